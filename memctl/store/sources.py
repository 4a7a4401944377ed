"""Other stores, read from the paths a user names, and folders written for an export.

A mem0 export or any JSON is read as text; a MemoryService database as the rows of its
`structured_memories` table (read-only); a folder of memory files (memctl's layout or Claude Code's)
as the memories its files hold, without reading or writing a cache. An export writes a new folder.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memctl.core.models import Memory
from memctl.errors import UsageError
from memctl.store.catalog import MEMCTL_SCAN, Scan, load_snapshot
from memctl.store.files import write_atomic
from memctl.store.layout import ACTIVE_DIRS, INDEX_FILE, Layout, MemctlLayout

MEMORYSERVICE_TABLE = "structured_memories"
_SQLITE_HEADER = b"SQLite format 3\x00"


def read_source_text(path: str | Path) -> str:
    """A source file's text (UTF-8, a BOM dropped); a missing or unreadable file is bad input."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}", code="bad_input") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 text (byte {exc.start})", code="not_utf8") from None


def is_sqlite(path: str | Path) -> bool:
    """True when the file starts with SQLite's header."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(_SQLITE_HEADER)) == _SQLITE_HEADER
    except OSError:
        return False


def read_sqlite_rows(path: str | Path, table: str = MEMORYSERVICE_TABLE) -> list[dict[str, Any]]:
    """Every row of `table`, oldest first when it has created_at; opened read-only (never changed)."""
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    try:
        with sqlite3.connect(uri, uri=True) as connection:
            connection.row_factory = sqlite3.Row
            columns = {row["name"] for row in connection.execute(f"PRAGMA table_info({table})")}
            if not columns:
                raise UsageError(f"{path} has no {table} table (is it a MemoryService database?)", code="bad_input")
            order = " ORDER BY created_at" if "created_at" in columns else ""
            return [dict(row) for row in connection.execute(f"SELECT * FROM {table}{order}")]
    except sqlite3.Error as exc:
        raise UsageError(f"cannot read {path} as a SQLite database: {exc}", code="bad_input") from None


@dataclass
class FolderContents:
    """The memories a folder holds, and the files that could not be read (relative path, why)."""

    layout: str
    memories: list[Memory] = field(default_factory=list)
    broken: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class FolderFormat:
    """How one layout finds, places and writes memory files in a folder."""

    kind: str
    layout: Layout
    scan: Scan
    render: Callable[[Memory, str], str]


def folder_layout(path: Path) -> str:
    """`memctl` for a folder with users/ or projects/, else `claude` (a flat folder of .md files)."""
    return "memctl" if any((path / folder).is_dir() for folder in ACTIVE_DIRS) else "claude"


def folder_format(kind: str, root: Path, default_type: str) -> FolderFormat:
    """The memctl layout (canonical files) or Claude Code's (topic files, the folder's own project)."""
    if kind == "memctl":
        from memctl.core.fileformat import serialise_memory

        return FolderFormat(kind, MemctlLayout(root), MEMCTL_SCAN, lambda memory, rel: serialise_memory(memory))
    from memctl.core.claudefile import TopicDefaults, new_topic_text
    from memctl.store.claude import with_claude_names
    from memctl.store.claudelayout import ClaudeLayout, default_project

    defaults = TopicDefaults(project=default_project(root), type=default_type)
    layout = ClaudeLayout(root, defaults)
    return FolderFormat(kind, layout, layout,
                        lambda memory, rel: new_topic_text(with_claude_names(memory), rel, defaults))


def read_folder(path: str | Path, kind: str | None = None, default_type: str = "fact") -> FolderContents:
    """Every memory in a folder (active and archived), read through its layout's catalog scan (`kind`,
    else recognised); nothing is written into the folder."""
    root = Path(path)
    if not root.is_dir():
        raise UsageError(f"{path} is not a folder", code="bad_input")
    form = folder_format(kind or folder_layout(root), root, default_type)
    # No cache is read or written: a folder someone hands over is parsed from its files alone
    # (marshal, the catalog's format, is not meant for data from elsewhere).
    snapshot = load_snapshot(root, Path(os.devnull), write_cache=False, scan=form.scan)
    memories = snapshot.memories
    broken = list(snapshot.broken) + [(b, f"{b}: the same id as {a}") for a, b in snapshot.duplicates]
    return FolderContents(form.kind, memories, broken)


def _free_target(target: Path) -> None:
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UsageError(f"{target} is not an empty folder: export into a new or empty one", code="target_not_empty")


def write_folder(target: str | Path, memories: Iterable[Memory], kind: str, default_type: str = "fact",
                 index: Callable[[list[Memory]], str] | None = None,
                 own_text: Callable[[Memory], str] | None = None) -> list[Memory]:
    """Write each memory as a file of layout `kind` into a new or empty folder: at its own relative path
    when that fits the layout (with `own_text`, the file's own text, byte for byte), else where a new
    memory would go, in the layout's form; `index`, if given, renders the folder's MEMORY.md. Returns
    the memories with their new paths."""
    root = Path(target)
    _free_target(root)
    root.mkdir(parents=True, exist_ok=True)
    form = folder_format(kind, root, default_type)
    written = []
    for memory in sorted(memories, key=lambda m: (m.status != "active", m.path or "", m.id)):
        copy = memory.model_copy(deep=True)
        path = form.layout.place(copy)
        copy.path = form.layout.relative(path)
        same = own_text is not None and copy.path == memory.path
        write_atomic(path, own_text(memory) if same and own_text else form.render(copy, copy.path))
        written.append(copy)
    if index is not None:
        write_atomic(root / INDEX_FILE, index(written))
    return written
