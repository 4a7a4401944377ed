"""A memory file's history as git holds it: every commit that changed it, who, when, which fields.

`memctl history ID` shows these beside the local journal, so a clone that never ran memctl (or
whose `.memctl/` was deleted) still sees every change that travelled through git. Read-only
plumbing only (`git log --follow`, `git cat-file --batch`), under store/git.py's safe settings
and timeout, at most MAX_COMMITS commits and MAX_BLOB bytes of each version.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memctl.core.claudefile import split_topic
from memctl.core.fileformat import load_fields
from memctl.core.models import JournalEntry
from memctl.errors import InvalidMemory, StoreError
from memctl.store.files import content_hash
from memctl.store.git import repo_top, run_git

MAX_COMMITS = 200
MAX_BLOB = 1024 * 1024
_RECORD, _UNIT = "\x1e", "\x1f"


def file_history(root: Path, rel: str, memory_id: str) -> list[JournalEntry]:
    """The commits that changed `rel` (relative to the memory folder `root`), oldest first, as journal
    entries (op "commit"); [] outside git or when git fails (history never fails for it)."""
    try:
        top = repo_top(root)
        if top is None:
            return []
        commits = _log(root, rel)
        blobs = _blobs(top, [f"{c['commit']}:{c['path']}" for c in commits])
    except StoreError:
        return []
    entries = []
    previous: str | None = None
    for commit, text in reversed(list(zip(commits, blobs))):
        entries.append(_entry(memory_id, commit, previous, text, root, top))
        previous = text
    return entries


def _log(root: Path, rel: str) -> list[dict[str, str]]:
    """Newest first: commit, author, date, subject and the file's path (from the top) in each."""
    done = run_git(["log", "--follow", "--no-show-signature", "--no-ext-diff", "--no-textconv", "--no-color",
                    f"-n{MAX_COMMITS}", f"--format={_RECORD}%H{_UNIT}%an{_UNIT}%aI{_UNIT}%s", "--name-only",
                    "--", rel], root)
    if done.returncode != 0:
        return []
    out = []
    for record in done.stdout.decode("utf-8", errors="replace").split(_RECORD)[1:]:
        head, _, names = record.partition("\n")
        parts = head.split(_UNIT)
        paths = [n for n in names.splitlines() if n.strip()]
        if len(parts) == 4 and paths:
            out.append({"commit": parts[0], "author": parts[1], "date": parts[2], "subject": parts[3][:200],
                        "path": paths[-1]})
    return out


def _blobs(top: Path, specs: list[str]) -> list[str | None]:
    """Each `<commit>:<path>`'s text (None: gone in that commit, or over MAX_BLOB)."""
    if not specs:
        return []
    done = run_git(["cat-file", "--batch"], top, stdin="".join(f"{s}\n" for s in specs).encode())
    data, at = done.stdout, 0
    out: list[str | None] = []
    for _ in specs:
        end = data.find(b"\n", at)
        header = data[at:end].split() if end >= 0 else []
        if len(header) != 3 or header[1] != b"blob":
            out.append(None)
            at = end + 1
            continue
        size = int(header[2])
        body = data[end + 1:end + 1 + size]
        out.append(body.decode("utf-8", errors="replace") if size <= MAX_BLOB else None)
        at = end + 1 + size + 1
    return out


def _entry(memory_id: str, commit: dict[str, str], before: str | None, after: str | None,
           root: Path, top: Path) -> JournalEntry:
    """One commit as a journal entry: the fields it changed, its author and subject in `detail`."""
    path = (top / commit["path"]).resolve()
    rel = path.relative_to(root.resolve()).as_posix() if path.is_relative_to(root.resolve()) else commit["path"]
    detail: dict[str, Any] = {"commit": commit["commit"][:12], "author": commit["author"],
                              "subject": commit["subject"], "fields": changed_fields(before, after)}
    return JournalEntry(op="commit", id=memory_id, time=_utc(commit["date"]),
                        before=content_hash(before) if before is not None else None,
                        after=content_hash(after) if after is not None else None, path_after=rel, detail=detail)


def changed_fields(before: str | None, after: str | None) -> list[str]:
    """The frontmatter keys (and `body`) that differ between two versions of a file."""
    if after is None:
        return ["deleted"]
    old, new = _fields(before or ""), _fields(after)
    keys = [k for k in dict.fromkeys([*new[0], *old[0]]) if old[0].get(k) != new[0].get(k)]
    return keys + (["body"] if old[1] != new[1] else [])


def _fields(text: str) -> tuple[dict[str, Any], str]:
    parts = split_topic(text)
    if parts is None:
        return {}, text
    try:
        return load_fields(parts.front, "memory"), parts.body
    except InvalidMemory:
        return {}, parts.body


def _utc(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return stamp
