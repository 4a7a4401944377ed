"""The catalog: every memory file parsed, kept current by a stat scan confirmed by content hash.

The files are the truth; `catalog.bin` (in this user's cache folder) only saves re-parsing unchanged files. A file is
re-read when its modification time, size, inode change time or inode moved: a hand edit that keeps
size and mtime (`touch -r`, `cp -p`, `rsync -t`, a restored backup) still changes the change time.
The scan never leaves the memory directory: a symbolic link is followed only when it points inside
it (and never twice: no loops); anything that is not a regular file, or is over MAX_FILE_BYTES, is
reported and not read. `plan_file_changes` is pure; `load_snapshot` is the thin I/O shell around it.
"""

from __future__ import annotations

import bisect
import contextlib
import marshal
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, NamedTuple, Protocol

from pydantic import ValidationError

from memctl.core.models import Memory
from memctl.errors import InvalidMemory
from memctl.store.files import content_hash, read_bounded, write_bytes_atomic
from memctl.store.layout import ACTIVE_DIRS, ARCHIVE_DIR, INDEX_FILE

CATALOG_VERSION = 5  # 5: kind and fields are fields of their own
MAX_FILE_BYTES = 256 * 1024  # a memory is a note; anything larger is reported, not read
Signature = tuple[int, int, int, int]  # mtime_ns, size, ctime_ns, inode


class Entry(NamedTuple):
    """One file as last seen: stat signature, content hash, and the parsed memory or an error."""

    sig: Signature
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


def plan_file_changes(on_disk: dict[str, Signature], cached: dict[str, Entry]) -> ChangeReport:
    """Compare stat signatures of files on disk with the cached entries (pure)."""
    report = ChangeReport()
    for rel, sig in on_disk.items():
        entry = cached.get(rel)
        if entry is None:
            report.new.append(rel)
        elif tuple(entry.sig) != sig:
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
        self.temps: list[str] = []
        self.scanned = ScanResult({}, {}, [], [])  # the stat scan it was made from
        self._memories: list[Memory] | None = None
        self._by_owner: dict[str, list[Memory]] | None = None  # `memories` by owner, each in order
        self._by_id: tuple[dict[str, str], dict[str, str]] | None = None
        self._odd: list[str] | None = None
        # Own writes applied without a walk (`patched`): the ids each patch changed or removed, shared
        # by every snapshot patched from the same scan; `generation` is how many of them this one holds.
        self.changes: list[tuple[frozenset[str], frozenset[str]]] = []
        self.generation = 0

    def unvalidated(self) -> set[str]:
        """Paths whose file changed and whose Memory object has not been rebuilt since."""
        return set(self._fresh)

    def records(self) -> list[tuple[str, dict]]:
        """(rel path, field dict) of every memory, without validation."""
        return [(rel, self.entries[rel].data) for rel in self.order]  # type: ignore[misc]  # order holds parsed entries only

    @property
    def hashes(self) -> dict[str, str]:
        """Content hash of each memory's file, by id (shared: do not change it)."""
        return self._ids()[0]

    def paths(self) -> dict[str, str]:
        """Relative path of each memory's file, by id (shared: do not change it)."""
        return self._ids()[1]

    def _ids(self) -> tuple[dict[str, str], dict[str, str]]:
        """Both maps in one pass, once per snapshot: each cache's sync, the recall and new ids read them."""
        if self._by_id is None:
            hashes: dict[str, str] = {}
            paths: dict[str, str] = {}
            entries = self.entries
            for rel in self.order:
                entry = entries[rel]
                memory_id = entry.data["id"]  # type: ignore[index]  # order holds parsed entries only
                hashes[memory_id] = entry.hash
                paths[memory_id] = rel
            self._by_id = (hashes, paths)
        return self._by_id

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

    def owned(self, owner: str) -> list[Memory]:
        """`memories` of one owner (e.g. users/alice), in order (shared: do not change it). Kept by
        owner once per scan and carried through `patched`: a write decision looks at the candidate's
        owner only, and a store of many owners is not filtered whole for each candidate."""
        if self._by_owner is None:
            index: dict[str, list[Memory]] = {}
            for memory in self.memories:
                index.setdefault(memory.owner, []).append(memory)
            self._by_owner = index
        return self._by_owner.get(owner, [])

    def unknown_visibilities(self) -> list[str]:
        """One line for each memory whose visibility the access rules do not know (they treat it as
        owner_only); memoised on the snapshot, which an unchanged directory keeps."""
        if self._odd is None:
            from memctl.core.access import unknown_visibility, visibility_problem

            self._odd = [visibility_problem(rel, d.get("visibility")) for rel, d in self.records()
                         if unknown_visibility(d.get("visibility"))]
        return self._odd

    def by_id(self) -> dict[str, Memory]:
        return {m.id: m for m in self.memories}

    def changed_since(self, older: "Snapshot") -> tuple[set[str], set[str]] | None:
        """(ids changed, ids removed) between `older` and this snapshot when this one was patched from
        it (own writes, no walk); None when they are not of one scan (a consumer then compares all)."""
        if older.changes is not self.changes or older.generation > self.generation:
            return None
        changed: set[str] = set()
        removed: set[str] = set()
        for new, gone in self.changes[older.generation:self.generation]:
            changed = (changed - gone) | new
            removed = (removed - new) | gone
        return changed, removed

    def patched(self, written: dict[str, Entry], removed: Iterable[str], folders: dict[str, int]) -> "Snapshot | None":
        """This snapshot with a process's own writes applied, without a walk: `written` files (new or
        replaced, each a valid memory) and `removed` ones (moved away), `folders` their folders' new
        mtimes. None when a write touches a broken file or a repeated id (a scan sorts that out)."""
        removed = [rel for rel in removed if rel not in written]
        if not self._patchable(written, removed):
            return None
        work = self._working_copy()
        for rel in removed:
            work.remove(rel)
        if not all(work.write(rel, entry) for rel, entry in written.items()):
            return None  # the id is another file's, or the file held another memory
        return self._after(work, written, removed, folders)

    def _patchable(self, written: dict[str, Entry], removed: list[str]) -> bool:
        """Whether own writes can be applied to this snapshot: it is the newest patch of its scan, and
        they touch no broken file or repeated id and write only parsed memories."""
        odd = {rel for rel, _ in self.broken} | {rel for pair in self.duplicates for rel in pair}
        return (self.generation == len(self.changes) and not odd & (set(written) | set(removed))
                and all(e.data for e in written.values()))

    def _working_copy(self) -> "_Patch":
        """Copies of what a patch changes (the Memory list only when it is whole and in order)."""
        hashes, paths = (dict(m) for m in self._ids())
        aligned = self._memories is not None and len(self._memories) == len(self.order)
        memories = list(self._memories) if aligned and self._memories is not None else None
        return _Patch(dict(self.entries), list(self.order), memories, dict(self.objects), set(self._fresh),
                      hashes, paths)

    def _after(self, work: "_Patch", written: dict[str, Entry], removed: list[str],
               folders: dict[str, int]) -> "Snapshot":
        """The patched snapshot: `work`'s state, the scan's signatures and folders updated, the owner
        index carried over, and the patch recorded in the scan's shared `changes`."""
        snap = Snapshot(work.entries, work.order, list(self.broken), list(self.duplicates), work.objects, work.fresh)
        snap.folders, snap.temps = {**self.folders, **folders}, self.temps
        files = dict(self.scanned.files)
        for rel in removed:
            files.pop(rel, None)
        files.update((rel, e.sig) for rel, e in written.items())
        snap.scanned = self.scanned._replace(files=files, folders={**self.scanned.folders, **folders})
        snap._memories, snap._by_id = work.memories, (work.hashes, work.paths)
        if work.memories is not None and self._by_owner is not None:
            snap._by_owner = _owned_after(self._by_owner, work.dropped, work.added)
        new_ids = frozenset(str(e.data["id"]) for e in written.values())  # type: ignore[index]
        self.changes.append((new_ids, frozenset(work.gone_ids - new_ids)))
        snap.changes, snap.generation = self.changes, len(self.changes)
        return snap


@dataclass
class _Patch:
    """A working copy of a snapshot's state that own writes are applied to (Snapshot.patched), with
    the Memory objects its list loses and gains (the owner index's change)."""

    entries: dict[str, Entry]
    order: list[str]
    memories: list[Memory] | None
    objects: dict[str, Memory]
    fresh: set[str]
    hashes: dict[str, str]
    paths: dict[str, str]
    gone_ids: set[str] = field(default_factory=set)
    dropped: list[Memory] = field(default_factory=list)
    added: list[Memory] = field(default_factory=list)

    def remove(self, rel: str) -> None:
        """A file moved away."""
        entry = self.entries.pop(rel, None)
        if entry is None:
            return
        at = bisect.bisect_left(self.order, _order_key(rel), key=_order_key)
        if at < len(self.order) and self.order[at] == rel:
            del self.order[at]
            if self.memories is not None:
                self.dropped.append(self.memories.pop(at))
        memory_id = str(entry.data["id"])  # type: ignore[index]  # entries in order are parsed
        self.paths.pop(memory_id, None)
        self.hashes.pop(memory_id, None)
        self.objects.pop(rel, None)
        self.fresh.discard(rel)
        self.gone_ids.add(memory_id)

    def write(self, rel: str, entry: Entry) -> bool:
        """A file written (new or replaced); False when its id is another file's, or the file held
        another memory."""
        memory_id, old = str(entry.data["id"]), self.entries.get(rel)  # type: ignore[index]
        if self.paths.get(memory_id, rel) != rel or (old is not None and str((old.data or {}).get("id")) != memory_id):
            return False
        self.entries[rel] = entry
        self.hashes[memory_id], self.paths[memory_id] = entry.hash, rel
        self.objects.pop(rel, None)
        self.fresh.add(rel)
        at = bisect.bisect_left(self.order, _order_key(rel), key=_order_key)
        if old is None:
            self.order.insert(at, rel)
        if self.memories is not None:
            self._validated(at, rel, entry, replaces=old is not None)
        return True

    def _validated(self, at: int, rel: str, entry: Entry, replaces: bool) -> None:
        """The written file's Memory in the list, at its place (replacing the old one's)."""
        assert self.memories is not None
        memory = Memory.model_validate(entry.data)
        memory.path = rel
        self.objects[rel] = memory
        self.fresh.discard(rel)
        end = at + int(replaces)
        self.dropped += self.memories[at:end]
        self.memories[at:end] = [memory]
        self.added.append(memory)


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


class ScanResult(NamedTuple):
    """What a stat scan found: memory files, folders (for change detection), files set aside."""

    files: dict[str, Signature]
    folders: dict[str, int]
    skipped: list[tuple[str, str]]  # (rel path, reason): links out, non-regular files, oversized files
    temps: list[str]  # leftover temp files of interrupted writes (`.<name>.<random>.tmp`)


def _signature(st: os.stat_result) -> Signature:
    return (st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino)


def _inside(root_real: str, path: str) -> bool:
    real = os.path.realpath(path)
    return real == root_real or real.startswith(root_real + os.sep)


Accept = Callable[[str], bool]  # which file names are memory files


def _is_memory_file(name: str) -> bool:
    return name.endswith(".md") and name != INDEX_FILE


def _walk(scan: ScanResult, root: str, root_real: str, rel: str, seen: set[str], accept: Accept = _is_memory_file,
          deep: bool = True) -> None:
    folder = os.path.join(root, rel)
    real = os.path.realpath(folder)
    if real in seen:  # a link back to a folder already walked: a loop
        scan.skipped.append((rel, "symbolic link loop; not followed"))
        return
    seen.add(real)
    try:
        entries = list(os.scandir(folder))
        scan.folders[rel] = os.stat(folder).st_mtime_ns
    except OSError:
        return
    prefix, files = (f"{rel}/" if rel else ""), scan.files
    for entry in entries:
        name = entry.name
        try:
            # The common case inline (10,000 times in a large directory): a memory file the listing
            # says is a plain file (no link), one lstat; anything else takes _visit's checks.
            if entry.is_file(follow_symlinks=False) and name[0] != "." and accept(name):
                st = entry.stat(follow_symlinks=False)
                if st.st_size <= MAX_FILE_BYTES and stat.S_ISREG(st.st_mode):
                    files[prefix + name] = (st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino)
                    continue
            _visit(scan, root, root_real, prefix + name, entry, seen, accept, deep)
        except OSError:  # a file that vanishes mid-scan is simply not there
            pass


def _visit(scan: ScanResult, root: str, root_real: str, child: str, entry: os.DirEntry, seen: set[str],
           accept: Accept, deep: bool) -> None:
    name = entry.name
    if name.startswith("."):
        if name.endswith(".tmp") and entry.is_file(follow_symlinks=False):
            scan.temps.append(child)
        return
    if entry.is_symlink() and not _inside(root_real, entry.path):
        scan.skipped.append((child, "symbolic link to outside the memory directory; not followed"))
        return
    if entry.is_dir():
        if deep:
            _walk(scan, root, root_real, child, seen, accept, deep)
        return
    if not accept(name):
        return
    st = entry.stat()
    if not stat.S_ISREG(st.st_mode):
        scan.skipped.append((child, "not a regular file; not read"))
    elif st.st_size > MAX_FILE_BYTES:
        scan.skipped.append((child, f"{st.st_size} bytes, over the {MAX_FILE_BYTES // 1024} KB a memory file may have; not read"))
    else:
        scan.files[child] = _signature(st)


def scan_files(root_path: Path, tops: tuple[str, ...] = (*ACTIVE_DIRS, ARCHIVE_DIR),
               accept: Accept = _is_memory_file, deep: bool = True) -> ScanResult:
    """Every memory file's signature and every folder's mtime, by relative path, plus what was set
    aside. `tops` are the folders scanned ("" is the root itself); `deep=False` stays in them."""
    scan = ScanResult({}, {}, [], [])
    root = str(root_path)
    root_real = os.path.realpath(root)
    seen: set[str] = set()
    for top in tops:
        path = os.path.join(root, top)
        if os.path.islink(path) and not _inside(root_real, path):
            scan.skipped.append((top, "symbolic link to outside the memory directory; not followed"))
        elif os.path.isdir(path):
            _walk(scan, root, root_real, top, seen, accept, deep)
    return scan


class Scan(Protocol):
    """What a folder layout tells the catalog: its cache file, its top folders, how files are found and parsed."""

    catalog_name: str
    tops: tuple[str, ...]
    deep: bool  # whether folders below the tops hold memories too

    def stat_files(self, root: Path, folders: tuple[str, ...] | None = None) -> ScanResult:
        """Every memory file's signature and every scanned folder's mtime, by relative path; with
        `folders`, only the files directly in those (a change notice named them)."""
        ...

    def parse(self, text: str, rel: str, mtime_ns: int) -> Memory:
        """One file's text as a Memory; InvalidMemory with a one-line reason otherwise."""
        ...


class MemctlScan:
    """The `memctl` layout: every `*.md` but MEMORY.md under users/, projects/ and archive/."""

    mtime_free = True  # parse never reads the file's mtime: a writer's own parse is what a scan would read
    catalog_name: str = CATALOG_FILE
    tops: tuple[str, ...] = (*ACTIVE_DIRS, ARCHIVE_DIR)
    deep = True

    def stat_files(self, root: Path, folders: tuple[str, ...] | None = None) -> ScanResult:
        return scan_files(root, self.tops) if folders is None else scan_files(root, folders, deep=False)

    def parse(self, text: str, rel: str, mtime_ns: int) -> Memory:
        from memctl.core.fileformat import parse_memory  # yaml parsing is only needed for changed files

        return parse_memory(text, rel)

    def parse_own(self, text: str, rel: str, memory: Memory) -> Memory:
        """`parse` of a text this process just rendered from `memory` (a write's read-back check)."""
        from memctl.core.fileformat import parse_rendered

        return parse_rendered(text, memory, rel)


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


def read_regular(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """A regular file's bytes, never following a link and never blocking on a FIFO (OSError otherwise)."""
    return read_bounded(path, limit)


def _parse_entry(root: Path, rel: str, sig: Signature, old: Entry | None, scan: Scan) -> Entry:
    try:
        path = root / rel
        raw = read_regular(path) if not path.is_symlink() else read_regular(path.resolve())
    except OSError as exc:
        return Entry(sig, "", error=f"{rel}: cannot read ({exc.strerror or exc})")
    digest = content_hash(raw)
    if old is not None and old.hash == digest:
        return Entry(sig, digest, old.data, old.error)
    try:
        memory = scan.parse(raw.decode("utf-8"), rel, sig[0])
    except UnicodeDecodeError:
        return Entry(sig, digest, error=f"{rel}: not UTF-8 text")
    except InvalidMemory as exc:
        return Entry(sig, digest, error=str(exc))
    return Entry(sig, digest, data=record(memory))


def record(memory: Memory) -> dict:
    """The catalog's field dict of a parsed memory (defaults come back on validation: a smaller
    catalog loads faster)."""
    return {k: v for k, v in memory.model_dump(mode="json", exclude={"path"}, exclude_none=True).items()
            if v != [] and v != {}}


def merge_scan(old: ScanResult, fresh: ScanResult, folders: Iterable[str]) -> ScanResult:
    """`old` with what was directly in `folders` replaced by `fresh` (a scan of just those; pure)."""
    rescanned = set(folders)

    def outside(rel: str) -> bool:
        return rel.rpartition("/")[0] not in rescanned

    return ScanResult({**{rel: sig for rel, sig in old.files.items() if outside(rel)}, **fresh.files},
                      {**old.folders, **fresh.folders},
                      [item for item in old.skipped if outside(item[0])] + fresh.skipped,
                      [rel for rel in old.temps if outside(rel)] + fresh.temps)


def load_snapshot(root: Path, cache: Path, write_cache: bool = True, previous: Snapshot | None = None,
                  scan: Scan = MEMCTL_SCAN, found: ScanResult | None = None) -> Snapshot:
    """Scan the directory, re-parse only changed files, and report what changed.

    With `previous` (a warm process), its entries and parsed memories are reused, so an
    unchanged directory costs one stat per file and nothing else. `scan` is the folder layout;
    `found` a stat scan already made (a change notice said which folders to re-stat).
    """
    catalog_path = cache / scan.catalog_name
    cached = previous.entries if previous is not None else _read_catalog(catalog_path)
    found = scan.stat_files(root) if found is None else found
    on_disk = found.files
    report = plan_file_changes(on_disk, cached)
    if previous is not None and not report.dirty and catalog_path.exists():
        previous.folders, previous.scanned, previous.temps = found.folders, found, found.temps
        return previous  # nothing changed: the same snapshot, so what was memoised on it stays valid
    entries = {rel: cached[rel] for rel in report.unchanged}
    changed_paths = report.new + report.modified
    for rel in changed_paths:
        entries[rel] = _parse_entry(root, rel, on_disk[rel], cached.get(rel), scan)
    objects = dict(previous.objects) if previous is not None else {}
    # Objects the previous snapshot had not re-validated since their file changed are stale too.
    stale = set(changed_paths) | (previous.unvalidated() if previous is not None else set())
    snapshot = _assemble(entries, objects, stale)
    snapshot.folders, snapshot.scanned = found.folders, found
    snapshot.broken.extend((rel, f"{rel}: {reason}") for rel, reason in found.skipped)
    snapshot.temps = found.temps
    if write_cache and (report.dirty or not catalog_path.exists()) and root.exists():
        save_catalog(cache, scan, snapshot)
    return snapshot


def save_catalog(cache: Path, scan: Scan, snapshot: Snapshot) -> None:
    """Write the snapshot's entries as the catalog a fresh process starts from (best effort: a cache)."""
    with contextlib.suppress(OSError):
        cache.mkdir(parents=True, exist_ok=True)
        _write_catalog(cache / scan.catalog_name, snapshot.entries)


def _order_key(rel: str) -> tuple[bool, str]:
    """Where a file comes in a snapshot's order: active folders first, then archive/, each sorted."""
    return rel.startswith(ARCHIVE_DIR + "/"), rel


def _memory_key(memory: Memory) -> tuple[bool, str]:
    return _order_key(str(memory.path))


def _owned_after(index: dict[str, list[Memory]], dropped: list[Memory], added: list[Memory]) -> dict[str, list[Memory]] | None:
    """An owner index (Snapshot.owned) with `dropped` taken out and `added` put in order; only the
    owners' lists these touch are copied. None when a dropped memory is not where it should be
    (the index is then built again when asked)."""
    out, copied = dict(index), set()
    for memory in [*dropped, *added]:
        if memory.owner not in copied:
            out[memory.owner] = list(out.get(memory.owner, ()))
            copied.add(memory.owner)
    for memory in dropped:
        group = out[memory.owner]
        at = bisect.bisect_left(group, _memory_key(memory), key=_memory_key)
        if at >= len(group) or group[at] is not memory:
            return None
        del group[at]
    for memory in added:
        bisect.insort(out[memory.owner], memory, key=_memory_key)
    return out


def _id_keepers(entries: dict[str, Entry], ranked: list[str]) -> dict[str, str]:
    """Per id, the file that keeps it when several say it: an active folder's before archive/'s, then
    one whose name ends with the id (`<slug>-<id>.md`, as memctl named it: a copy made by hand keeps
    the id it was copied with, and must not hide the memory by its name's place in the alphabet),
    then the first by path."""
    out: dict[str, str] = {}
    for rel in ranked:
        data = entries[rel].data
        if not data:
            continue
        memory_id = str(data.get("id"))
        held = out.get(memory_id)
        if held is None or (held.startswith("archive/") == rel.startswith("archive/")
                            and not _named_by(held, memory_id) and _named_by(rel, memory_id)):
            out[memory_id] = rel
    return out


def _named_by(rel: str, memory_id: str) -> bool:
    """Whether the file's name ends with the id (`prefers-window-seats-3f9a1c2e.md`)."""
    return rel.rpartition("/")[2].endswith(f"{memory_id}.md")


def _assemble(entries: dict[str, Entry], objects: dict[str, Memory], changed: set[str]) -> Snapshot:
    """Order the records, set aside broken files and repeated ids; no validation here."""
    order: list[str] = []
    broken: list[tuple[str, str]] = []
    duplicates: list[tuple[str, str]] = []
    ordered = sorted(entries)  # plain string sort (fast); active folders first, then archive/
    ranked = [r for r in ordered if not r.startswith("archive/")] + [r for r in ordered if r.startswith("archive/")]
    keeper = _id_keepers(entries, ranked)
    for rel in ranked:
        entry = entries[rel]
        if not entry.data:
            broken.append((rel, entry.error or f"{rel}: invalid memory"))
            continue
        memory_id = str(entry.data.get("id"))
        if keeper[memory_id] != rel:
            duplicates.append((keeper[memory_id], rel))
            continue
        order.append(rel)
    live = {rel: m for rel, m in objects.items() if rel in entries}
    return Snapshot(entries, order, broken, duplicates, live, set(changed))
