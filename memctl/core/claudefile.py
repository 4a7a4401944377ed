"""Claude Code's topic files: `name`, `description` and `type` frontmatter over a Markdown body.

Reading fills in what such a file leaves out (an id derived from its file name, the folder's
project, dates from its modification time) and never writes any of it back. A new file puts
Claude's three keys first and memctl's own metadata after them. An edit changes only the keys
whose values changed: ruamel.yaml finds each key in the file, and every other line is kept byte for
byte, so the user's key order, comments and formatting survive.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memctl.clock import format_timestamp
from memctl.core.fileformat import dump_fields, load_fields, memory_from_fields, refuse_conflicts
from memctl.core.models import Memory
from memctl.errors import InvalidMemory

CLAUDE_KEYS = ("name", "description", "type")
OWNER_KEYS = ("scope", "user", "project", "session")
NAME_CHARS = 60
DESCRIPTION_CHARS = 150
_FRONT = re.compile(r"\A(\ufeff?---[ \t]*\r?\n)(.*?)(^---[ \t]*(?:\r?\n|\Z))", re.S | re.M)
_HEADING = re.compile(r"#{1,6}[ \t]+([^\n]+)")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s")


@dataclass(frozen=True)
class TopicDefaults:
    """What a topic file that says nothing else belongs to: the folder's project, and a type."""

    project: str
    type: str


@dataclass(frozen=True)
class TopicText:
    """A topic file cut at its fences, every part exactly as written."""

    head: str
    front: str
    fence: str
    body: str


def derived_id(rel: str) -> str:
    """The id of a file that names none: a hash of its file name, stable while the name is."""
    stem = rel.rsplit("/", 1)[-1].removesuffix(".md")
    digest = hashlib.sha256(f"claude:{stem}".encode()).hexdigest()
    return "a" + digest[1:8] if digest[:8].isdigit() else digest[:8]


def split_topic(text: str) -> TopicText | None:
    """The fences, frontmatter and body of a file, or None when it has no frontmatter."""
    match = _FRONT.match(text)
    if match is None:
        return None
    return TopicText(match.group(1), match.group(2), match.group(3), text[match.end():])


def implied_fields(rel: str, meta: dict[str, Any], mtime: datetime, defaults: TopicDefaults) -> dict[str, Any]:
    """What reading fills in for the fields a topic file leaves out (never written back)."""
    stamp = format_timestamp(mtime)
    out: dict[str, Any] = {"id": derived_id(rel), "type": defaults.type,
                           "created": meta.get("updated", stamp), "updated": meta.get("created", stamp)}
    if not any(key in meta for key in OWNER_KEYS):
        out.update(scope="project", project=defaults.project)
    return out


def parse_topic(text: str, rel: str, mtime: datetime, defaults: TopicDefaults) -> Memory:
    """A topic file as a Memory; a file with no frontmatter is a memory too (its text is the body)."""
    refuse_conflicts(text, rel)
    parts = split_topic(text)
    if parts is None and text.lstrip("\ufeff").startswith("---"):
        raise InvalidMemory(f"{rel}: the frontmatter has no closing ---")
    meta = load_fields(parts.front, rel) if parts else {}
    body = parts.body if parts else text
    if not body.strip():  # a file that is all frontmatter: its description is what it says
        body = str(meta.get("description") or meta.get("name") or "")
    implied = implied_fields(rel, meta, mtime, defaults)
    heading = _HEADING.match(body.lstrip())
    if heading and "name" not in meta:  # a plain note's title is its first heading
        implied["name"] = heading.group(1).strip()
    return memory_from_fields({**implied, **meta}, body, rel, rel)


def _owned_by_folder(front: dict[str, Any], defaults: TopicDefaults) -> bool:
    return (front.get("scope") == "project" and front.get("project") == defaults.project
            and "user" not in front and "session" not in front)


def topic_fields(memory: Memory, rel: str, defaults: TopicDefaults) -> dict[str, Any]:
    """A new file's frontmatter: Claude's three keys first, then memctl's, leaving out what reading
    implies anyway (the id derived from the name, status active, the folder's own project)."""
    data = memory.frontmatter()
    front = {key: data.pop(key) for key in CLAUDE_KEYS if key in data}
    if data.get("id") == derived_id(rel):
        data.pop("id")
    if data.get("status") == "active":
        data.pop("status")
    if _owned_by_folder(data, defaults):
        data.pop("scope")
        data.pop("project")
    return {**front, **data}


def new_topic_text(memory: Memory, rel: str, defaults: TopicDefaults) -> str:
    """The text of a topic file memctl creates."""
    return f"---\n{dump_fields(topic_fields(memory, rel, defaults))}---\n{memory.body.strip()}\n"


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "…"


def derive_name(body: str) -> str:
    """A title for a memory that has none: its first sentence, within NAME_CHARS."""
    flat = " ".join(body.split())
    first = _SENTENCE_END.split(flat, maxsplit=1)[0].rstrip(".!?。！？ ")
    return _clip(first or flat, NAME_CHARS)


def derive_description(body: str) -> str:
    """A one-line description for a memory that has none: its text on one line (a leading heading, which
    is its name, left out), within DESCRIPTION_CHARS."""
    lines = body.strip().splitlines()
    if len(lines) > 1 and _HEADING.match(lines[0]):
        lines = lines[1:]
    return _clip(" ".join(" ".join(lines).split()), DESCRIPTION_CHARS)


def edit_topic_text(text: str, old: Memory, new: Memory, rel: str) -> str:
    """`text` (a topic file read as `old`) changed to say `new`, touching only the keys that changed.

    A key keeps its line, and its end-of-line comment, when only its value changes; a key that now
    says what reading implies (status active, the derived id) is removed rather than written; dates
    a file never had stay out of it (its modification time keeps standing for them).
    """
    plain = split_topic(text) is None
    parts = split_topic(text) or TopicText("---\n", "", "---\n", text)
    present = set(load_fields(parts.front, rel)) if parts.front.strip() else set()
    before, after = old.frontmatter(), new.frontmatter()
    implicit = {"id": derived_id(rel), "status": "active"}
    dates_follow_mtime = not {"created", "updated"} & present
    changes: dict[str, Any] = {}
    for key in [*after, *(k for k in before if k not in after)]:
        value = after.get(key)
        if before.get(key) == value or (dates_follow_mtime and key in ("created", "updated")):
            continue
        if value is None or value == implicit.get(key):
            if key in present:
                changes[key] = None
        else:
            changes[key] = value
    if not changes and old.body == new.body:
        return text
    front = patch_front(parts.front, changes, rel) if changes else parts.front
    body = parts.body
    if old.body != new.body:
        blank_lead = parts.body[: len(parts.body) - len(parts.body.lstrip("\r\n"))]
        body = blank_lead + new.body.strip() + "\n"
    return body if plain and not changes else parts.head + front + parts.fence + body


def _spans(lines: list[str], starts: dict[str, int]) -> dict[str, tuple[int, int]]:
    """Each top-level key's lines: from its own to the next key's, less trailing comments and blanks."""
    ordered = sorted(starts.items(), key=lambda item: item[1])
    spans = {}
    for index, (key, start) in enumerate(ordered):
        end = ordered[index + 1][1] if index + 1 < len(ordered) else len(lines)
        while end - 1 > start and (not lines[end - 1].strip() or lines[end - 1].startswith("#")):
            end -= 1
        spans[key] = (start, end)
    return spans


def _locate(front: str, label: str) -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    """Line of each top-level key, and (line, column) of its end-of-line comment, found by ruamel.yaml."""
    if not front.strip():
        return {}, {}
    from ruamel.yaml import YAML  # only an edit of a Claude Code file needs it
    from ruamel.yaml.error import YAMLError

    try:
        tree = YAML(typ="rt").load(front)
    except (YAMLError, ValueError) as exc:
        raise InvalidMemory(f"{label}: cannot edit this frontmatter in place ({type(exc).__name__}); "
                            "fix it by hand and try again", code="uneditable") from None
    if not hasattr(tree, "lc"):
        raise InvalidMemory(f"{label}: frontmatter is not a mapping of fields", code="uneditable")
    starts = {str(key): tree.lc.key(key)[0] for key in tree}
    if len(set(starts.values())) < len(starts):
        raise InvalidMemory(f"{label}: its keys share a line (a flow mapping); edit it by hand", code="uneditable")
    comments = {}
    for key in tree:
        token = (tree.ca.items.get(key) or [None, None, None])[2]
        if token is not None and token.start_mark.line == starts[str(key)]:
            comments[str(key)] = (token.start_mark.line, token.start_mark.column)
    return starts, comments


def _snippet(key: str, value: Any, newline: str, line: str | None, comment_at: int | None) -> list[str]:
    lines = dump_fields({key: value}).splitlines()
    if line is not None and comment_at is not None and len(lines) == 1:
        gap = len(line[:comment_at]) - len(line[:comment_at].rstrip())
        lines[0] += " " * max(gap, 1) + line[comment_at:].rstrip("\r\n")
    return [entry + newline for entry in lines]


def _insert_at(key: str, spans: dict[str, tuple[int, int]], count: int) -> int:
    """Claude's keys go after the ones of them that precede them (so never after memctl's); others last."""
    if key not in CLAUDE_KEYS:
        return count
    earlier = [spans[k][1] for k in CLAUDE_KEYS[: CLAUDE_KEYS.index(key)] if k in spans]
    return max(earlier, default=0)


def patch_front(front: str, changes: dict[str, Any], label: str) -> str:
    """Frontmatter YAML with `changes` applied (None removes a key); untouched lines kept byte for byte."""
    lines = front.splitlines(keepends=True)
    starts, comments = _locate(front, label)
    spans = _spans(lines, starts)
    newline = "\r\n" if "\r\n" in front else "\n"
    replace: dict[int, tuple[int, list[str]]] = {}
    inserts: dict[int, list[str]] = {}
    for key in sorted(changes, key=lambda k: CLAUDE_KEYS.index(k) if k in CLAUDE_KEYS else len(CLAUDE_KEYS)):
        value = changes[key]
        if key in spans:
            start, end = spans[key]
            single = end - start == 1 and key in comments
            new = [] if value is None else _snippet(key, value, newline, lines[start] if single else None,
                                                    comments[key][1] if single else None)
            replace[start] = (end, new)
        elif value is not None:
            inserts.setdefault(_insert_at(key, spans, len(lines)), []).extend(_snippet(key, value, newline, None, None))
    out: list[str] = []
    index = 0
    while index <= len(lines):
        out += inserts.get(index, [])
        if index == len(lines):
            break
        if index in replace:
            end, new = replace[index]
            out += new
            index = end
            continue
        out.append(lines[index])
        index += 1
    return "".join(out)
