"""memctl's git merge driver: two versions of a memory file merged with nothing lost and no marker.

git calls `memctl git merge-file %O %A %B %P` for each memory file both sides changed. The
frontmatter is merged field by field (policy/fieldmerge.py), the body three-way by line (git
merge-file). When both sides changed one field or the same lines differently, the result keeps our
side and our side's file stays the memory; their side becomes a second memory beside it, linked by
`conflicts_with`, for `memctl conflicts` to show a person. A MEMORY.md keeps both sides' lines
(the next `memctl index` regenerates memctl's own). The three texts are attacker-controlled:
bounded, parsed with the safe loader, never executed.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from memctl.core.claudefile import derived_id, split_topic
from memctl.core.conflicts import conflict_regions
from memctl.core.fileformat import dump_fields, load_fields
from memctl.errors import InvalidMemory
from memctl.policy.fieldmerge import merge_fields
from memctl.store.git import merge_lines
from memctl.store.layout import INDEX_FILE

MAX_BYTES = 1024 * 1024  # one version of one memory file; a larger one is left to git (a conflict)
_STEM_ID = re.compile(r"-[0-9a-f]{4,16}$")


@dataclass
class Merged:
    """The merged text for our file, and their side as a second memory (file name, text) if they clashed."""

    text: str
    copy: tuple[str, str] | None = None
    conflicts: tuple[str, ...] = ()


@dataclass
class _Version:
    head: str
    fence: str
    fields: dict[str, Any]
    body: str


def merge_file(base: str, ours: str, theirs: str, path: str) -> Merged:
    """Merge one file git found changed on both sides; `path` is its path in the repository."""
    if path.rsplit("/", 1)[-1] == INDEX_FILE:
        return Merged(merge_index(base, ours, theirs))
    versions = [_read(text) for text in (base, ours, theirs)]
    o, a, b = versions
    if a is None or b is None:  # not a memory file on one side: whole texts, keep both if they clash
        return _merge_texts(base, ours, theirs, path)
    o = o or _Version(a.head, a.fence, {}, "")
    fields = merge_fields(o.fields, a.fields, b.fields)
    body, body_clash = merge_lines(o.body, a.body, b.body)
    conflicts = tuple(fields.conflicts) + (("body",) if body_clash else ())
    if not conflicts:
        return Merged(_write(a, fields.fields, body, ours))
    kept = _write(a, fields.fields, a.body if body_clash else body, ours)
    return Merged(kept, _their_copy(b, a, theirs, path), conflicts)


def merge_index(base: str, ours: str, theirs: str) -> str:
    """A MEMORY.md: both sides' lines (git's union merge), never a marker."""
    text, _ = merge_lines(base, ours, theirs, union=True)
    return text


def _read(text: str) -> _Version | None:
    """A memory file's parts, or None when it has no frontmatter mapping, is too big or conflict-marked."""
    if not text or len(text.encode("utf-8")) > MAX_BYTES or conflict_regions(text):
        return None
    parts = split_topic(text)
    if parts is None:
        return None
    try:
        fields = load_fields(parts.front, "memory")
    except InvalidMemory:
        return None
    return _Version(parts.head, parts.fence, fields, parts.body)


def _write(like: _Version, fields: dict[str, Any], body: str, original: str) -> str:
    """The file text: `original` itself when nothing changed (comments and all), else re-dumped."""
    if fields == like.fields and body == like.body:
        return original
    return f"{like.head}{dump_fields(fields) if fields else ''}{like.fence}{body}"


def _their_copy(theirs: _Version, ours: _Version, text: str, path: str) -> tuple[str, str]:
    """Their version as a new memory beside ours: an id of its own (the same in every clone that
    makes this merge), `conflicts_with` naming ours."""
    our_id = str(ours.fields.get("id") or derived_id(path))
    new_id = hashlib.sha256(f"{our_id}\0{text}".encode()).hexdigest()[:8]
    fields = {"id": new_id, **{k: v for k, v in theirs.fields.items() if k != "id"}}
    fields["conflicts_with"] = [*[c for c in fields.get("conflicts_with") or [] if c != our_id], our_id]
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    name = f"{_STEM_ID.sub('', stem)}-conflict-{new_id}.md"
    return name, f"{theirs.head}{dump_fields(fields)}{theirs.fence}{theirs.body}"


def _merge_texts(base: str, ours: str, theirs: str, path: str) -> Merged:
    """Files memctl cannot read as memories: a line merge; when it clashes, ours stays and theirs
    is kept whole beside it (`<name>.theirs-<hash>.md`), never a marker."""
    text, clash = merge_lines(base, ours, theirs)
    if not clash:
        return Merged(text)
    digest = hashlib.sha256(theirs.encode()).hexdigest()[:8]
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    return Merged(ours, (f"{stem}.theirs-{digest}.md", theirs), ("file",))
