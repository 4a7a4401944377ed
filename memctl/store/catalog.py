"""The catalog: every memory file parsed, kept current by a stat scan confirmed by content hash.

The files are the truth; `.memctl/catalog.json` only saves re-parsing unchanged files.
`plan_file_changes` is pure; `load_snapshot` is the thin I/O shell around it.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Protocol

from pydantic import ValidationError

from memctl.core.models import Memory
from memctl.errors import InvalidMemory
from memctl.store.files import content_hash, write_bytes_atomic
from memctl.store.layout import ACTIVE_DIRS, ARCHIVE_DIR, INDEX_FILE

CATALOG_VERSION = 3


class Entry(NamedTuple):
    """One file as last seen: stat signature, content hash, and the parsed memory or an error."""

    mtime_ns: int
    size: int
    hash: str
    data: dict | None = None
    error: str | None = None


@dataclass
class ChangeReport:
    """What changed on disk since the catalog was written."""

    new: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    @property
    def dirty(self) -> bool:
        return bool(self.new or self.modified or self.removed)


def plan_file_changes(on_disk: dict[str, tuple[int, int]], cached: dict[str, Entry]) -> ChangeReport:
    """Compare stat signatures of files on disk with the cached entries (pure)."""
    report = ChangeReport()
    for rel, (mtime_ns, size) in on_disk.items():
        entry = cached.get(rel)
        if entry is None:
            report.new.append(rel)
        elif (entry.mtime_ns, entry.size) != (mtime_ns, size):
            report.modified.append(rel)
        else:
            report.unchanged.append(rel)
    report.removed = sorted(set(cached) - set(on_disk))
    return report


class Snapshot:
    """The directory as it is now: memory records, broken files, duplicate ids.

    Records are the catalog's plain dicts; `Memory` objects are validated lazily (`memories`,
    `memory(rel)`), so a fresh process that only needs a few hits never validates all of them.
    """

    def __init__(self, entries: dict[str, Entry], order: list[str], broken: list[tuple[str, str]],
                 duplicates: list[tuple[str, str]], objects: dict[str, Memory], fresh: set[str]) -> None:
        self.entries = entries
        self.order = order  # rel paths of valid, first-seen ids: active folders first, sorted
        self.broken = broken
        self.duplicates = duplicates
        self.objects = objects
        self._fresh = fresh  # rel paths whose old Memory objects must not be reused
        self.folders: dict[str, int] = {}
        self._memories: list[Memory] | None = None

    def records(self) -> list[tuple[str, dict]]:
        """(rel path, field dict) of every memory, without validation."""
        return [(rel, self.entries[rel].data) for rel in self.order]  # type: ignore[misc]  # order holds parsed entries only

    @property
    def hashes(self) -> dict[str, str]:
        """Content hash of each memory's file, by id."""
        return {self.entries[rel].data["id"]: self.entries[rel].hash for rel in self.order}  # type: ignore[index]

    def paths(self) -> dict[str, str]:
        """Relative path of each memory's file, by id."""
        return {self.entries[rel].data["id"]: rel for rel in self.order}  # type: ignore[index]

    def memory(self, rel: str) -> Memory:
        """The validated Memory of one file (cached)."""
        memory = self.objects.get(rel)
        if memory is None or rel in self._fresh:
            memory = Memory.model_validate(self.entries[rel].data)
            memory.path = rel
            self.objects[rel] = memory
            self._fresh.discard(rel)
        return memory

    @property
    def memories(self) -> list[Memory]:
        if self._memories is None:
            out = []
            for rel in self.order:
                try:
                    out.append(self.memory(rel))
                except ValidationError:
                    self.broken.append((rel, f"{rel}: invalid memory"))
            self._memories = out
        return self._memories

    def by_id(self) -> dict[str, Memory]:
        return {m.id: m for m in self.memories}


CATALOG_FILE = "catalog.bin"
_HEADER = (CATALOG_VERSION, sys.version_info[:2])


def _read_catalog(path: Path) -> dict[str, Entry]:
    """The on-disk catalog (marshal: fast to load and, unlike pickle, unable to run code)."""
    try:
        header, files = marshal.loads(path.read_bytes())
        if header != _HEADER:
            return {}
        make = Entry._make
        return {rel: make(value) for rel, value in files.items()}
    except (OSError, ValueError, TypeError, EOFError):
        return {}


def _write_catalog(path: Path, entries: dict[str, Entry]) -> None:
    files = {rel: tuple(e) for rel, e in entries.items()}
    with contextlib.suppress(OSError, ValueError):
        write_bytes_atomic(path, marshal.dumps((_HEADER, files)), durable=False)


def _walk(root: str, rel: str, out: dict[str, tuple[int, int]], folders: dict[str, int]) -> None:
    try:
        entries = list(os.scandir(os.path.join(root, rel)))
        folders[rel] = os.stat(os.path.join(root, rel)).st_mtime_ns
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue
        child = f"{rel}/{name}"
        try:
            if entry.is_dir():
                _walk(root, child, out, folders)
            elif name.endswith(".md") and name != INDEX_FILE:
                st = entry.stat()
                out[child] = (st.st_mtime_ns, st.st_size)
        except OSError:
            continue


def _stat_files(root_path: Path) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
    """Every memory file's (mtime_ns, size), and every folder's mtime, by relative path."""
    out: dict[str, tuple[int, int]] = {}
    folders: dict[str, int] = {}
    root = str(root_path)
    for top in (*ACTIVE_DIRS, ARCHIVE_DIR):
        _walk(root, top, out, folders)
    return out, folders


class Scan(Protocol):
    """What a folder layout tells the catalog: its cache file, its top folders, how files are found and parsed."""

    catalog_name: str
    tops: tuple[str, ...]

    def stat_files(self, root: Path) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
        """Every memory file's (mtime_ns, size) and every scanned folder's mtime, by relative path."""
        ...

    def parse(self, text: str, rel: str, mtime_ns: int) -> Memory:
        """One file's text as a Memory; InvalidMemory with a one-line reason otherwise."""
        ...


class MemctlScan:
    """The `memctl` layout: every `*.md` but MEMORY.md under users/, projects/ and archive/."""

    catalog_name: str = CATALOG_FILE
    tops: tuple[str, ...] = (*ACTIVE_DIRS, ARCHIVE_DIR)

    def stat_files(self, root: Path) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
        return _stat_files(root)

    def parse(self, text: str, rel: str, mtime_ns: int) -> Memory:
        from memctl.core.fileformat import parse_memory  # yaml parsing is only needed for changed files

        return parse_memory(text, rel)


MEMCTL_SCAN = MemctlScan()


def folders_unchanged(root_path: Path, folders: dict[str, int], tops: tuple[str, ...] = MemctlScan.tops) -> bool:
    """True when no folder's mtime moved: nothing was added, removed, renamed or atomically replaced."""
    root = str(root_path)
    for rel, mtime in folders.items():
        try:
            if os.stat(os.path.join(root, rel)).st_mtime_ns != mtime:
                return False
        except OSError:
            return False
    return all(os.path.isdir(os.path.join(root, top)) == (top in folders) for top in tops)


def _parse_entry(root: Path, rel: str, stat: tuple[int, int], old: Entry | None, scan: Scan) -> Entry:
    try:
        raw = (root / rel).read_bytes()
    except OSError as exc:
        return Entry(stat[0], stat[1], "", error=f"{rel}: cannot read ({exc.strerror})")
    digest = content_hash(raw)
    if old is not None and old.hash == digest:
        return Entry(stat[0], stat[1], digest, old.data, old.error)
    try:
        memory = scan.parse(raw.decode("utf-8"), rel, stat[0])
    except UnicodeDecodeError:
        return Entry(stat[0], stat[1], digest, error=f"{rel}: not UTF-8 text")
    except InvalidMemory as exc:
        return Entry(stat[0], stat[1], digest, error=str(exc))
    data = {k: v for k, v in memory.model_dump(mode="json", exclude={"path"}, exclude_none=True).items()
            if v != [] and v != {}}  # defaults come back on validation; a smaller catalog loads faster
    return Entry(stat[0], stat[1], digest, data=data)


def load_snapshot(root: Path, cache: Path, write_cache: bool = True, previous: Snapshot | None = None,
                  scan: Scan = MEMCTL_SCAN) -> Snapshot:
    """Scan the directory, re-parse only changed files, and report what changed.

    With `previous` (a warm process), its entries and parsed memories are reused, so an
    unchanged directory costs one stat per file and nothing else. `scan` is the folder layout.
    """
    catalog_path = cache / scan.catalog_name
    cached = previous.entries if previous is not None else _read_catalog(catalog_path)
    on_disk, folders = scan.stat_files(root)
    report = plan_file_changes(on_disk, cached)
    entries = {rel: cached[rel] for rel in report.unchanged}
    changed_paths = report.new + report.modified
    for rel in changed_paths:
        entries[rel] = _parse_entry(root, rel, on_disk[rel], cached.get(rel), scan)
    objects = dict(previous.objects) if previous is not None else {}
    snapshot = _assemble(entries, objects, set(changed_paths))
    snapshot.folders = folders
    if write_cache and (report.dirty or not catalog_path.exists()) and root.exists():
        with contextlib.suppress(OSError):
            cache.mkdir(parents=True, exist_ok=True)
            _write_catalog(catalog_path, entries)
    return snapshot


def _assemble(entries: dict[str, Entry], objects: dict[str, Memory], changed: set[str]) -> Snapshot:
    """Order the records, set aside broken files and repeated ids; no validation here."""
    order: list[str] = []
    broken: list[tuple[str, str]] = []
    duplicates: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    ordered = sorted(entries)  # plain string sort (fast); active folders first, then archive/
    for rel in [r for r in ordered if not r.startswith("archive/")] + [r for r in ordered if r.startswith("archive/")]:
        entry = entries[rel]
        if not entry.data:
            broken.append((rel, entry.error or f"{rel}: invalid memory"))
            continue
        memory_id = str(entry.data.get("id"))
        if memory_id in seen:
            duplicates.append((seen[memory_id], rel))
            continue
        seen[memory_id] = rel
        order.append(rel)
    live = {rel: m for rel, m in objects.items() if rel in entries}
    return Snapshot(entries, order, broken, duplicates, live, set(changed))
