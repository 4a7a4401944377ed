"""FileRepository: memories as Markdown files in a directory (the files are the truth).

Reads go through the catalog snapshot (a stat scan confirmed by content hashes); writes are atomic
file replacements and renames under a directory flock, each appended to the journal.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Sequence

from pydantic import ValidationError

from memctl import clock
from memctl.core.models import JournalEntry, Memory
from memctl.errors import Conflict, InvalidMemory, MemctlError, NotFound, UsageError
from memctl.store.cachedir import folder_cache, private_folder
from memctl.store.catalog import (
    MEMCTL_SCAN,
    Entry,
    Scan,
    ScanResult,
    Snapshot,
    folders_unchanged,
    load_snapshot,
    merge_scan,
    read_regular,
    record,
    save_catalog,
)
from memctl.store.compactions import CompactionRecords
from memctl.store.directory import read_text_file
from memctl.store.files import (
    STAGED,
    content_hash,
    discard,
    file_lock,
    fsync_dir,
    fsync_file,
    move,
    own_folder,
    pause_for_tests,
    stage_many,
    write_atomic,
)
from memctl.store.filters import MemoryFilter, filter_records, order_key, scope_owners
from memctl.store.journal import Journal
from memctl.store.layout import CACHE_DIR, Layout, MemctlLayout, is_archived
from memctl.store.repair import INTENT_OP, find_leftovers, finish, last_intent
from memctl.store.transcripts import TranscriptStore
from memctl.store.usage import UsageLog
from memctl.store.watch import Watcher, open_watcher

ARCHIVE_FIELDS = ("archived_reason", "archived_at", "superseded_by", "merged_into")
WRITE_OPS = ("add", "update", "supersede")
AUTO_SOURCES = frozenset({"auto", "ai"})
POOL_MEMO = 32  # filters whose candidate pools are kept per snapshot
RESCAN_SECONDS = 1.0  # between commands, a process without change notices re-stats every file this often
CATALOG_SECONDS = 10.0  # a watching process rewrites the catalog at most this often


def _has_subfolder(folder: Path) -> bool:
    """Whether a folder has a folder in it (a new folder's own folders need a full walk)."""
    try:
        return any(entry.is_dir() and not entry.name.startswith(".") for entry in os.scandir(folder))
    except OSError:
        return True


class FileRepository:
    """One memory directory on disk (the `memctl` layout; store/claude.py has Claude Code's)."""

    kind = "files"

    def __init__(self, root: Path, layout: Layout | None = None, scan: Scan = MEMCTL_SCAN) -> None:
        self.root = Path(root)
        # Caches (catalog, keyword index, vectors, usage) are this user's, outside the shared folder:
        # nothing memctl reads back as a cache can come from someone else (store/cachedir.py).
        self.cache = private_folder(folder_cache(self.root))
        # What the folder's users share stays in it: the locks (two people's processes in one
        # checkout exclude each other), the journal and compaction records (data, read bounded).
        self.state = self.root / CACHE_DIR
        self.layout: Layout = layout or MemctlLayout(self.root)
        self.scan = scan
        self.journal = Journal(self.state / "journal.jsonl")
        self.usage_log = UsageLog(self.cache)
        self.compactions = CompactionRecords(self.state / "compactions")
        self.transcripts = TranscriptStore(self.root)
        self._snapshot: Snapshot | None = None
        self._watcher: Watcher | None = None  # change notices, once a long-running process asks (watch)
        self._catalog_behind, self._catalog_saved = False, 0.0
        self._stale = True
        self._scanned_at = 0.0
        self._warnings: dict[str, None] = {}
        self._pools: dict[Any, tuple[dict[str, str], str, Snapshot]] = {}
        self._wholes: tuple[frozenset[str], Snapshot] | None = None
        self._touched: set[str] = set()
        # This repository's own writes not yet in the snapshot (store/catalog.py Snapshot.patched):
        # applied at the next read instead of a walk of the whole folder.
        self._own: dict[str, Entry] = {}
        self._own_gone: set[str] = set()
        self._own_folders: dict[str, int] = {}
        self._lock_depth = 0
        # What a lock hold wrote and has not fsynced yet: the folders of its renames and the journal
        # (each file's own data is fsynced before its rename); synced once, as the hold ends.
        self._unsynced: set[Path] = set()
        self._mutex = threading.RLock()  # the write lock within this process (the flock is per process)
        self._command_depth = 0
        self._checked = False  # the running command has its snapshot: it reads that one (command())
        self.repaired: list[str] = []  # what the last entry into locked() repaired

    # -- reading -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def command(self) -> Iterator[None]:
        """One command's reads (re-entrant): the first checks the folder, the rest of the command
        reads that same snapshot, re-scanned only after this repository wrote or when asked (the
        write lock asks). A slow step never makes a command walk the folder again: one consistent
        view, one stat of each file, however long the command runs."""
        if not self._command_depth:
            self._checked = False
        self._command_depth += 1
        try:
            yield
        finally:
            self._command_depth -= 1

    def snapshot(self, refresh: bool = False) -> Snapshot:
        """The directory as it is now (within a `command`: as it was when the command first read it).

        A full stat scan (re-parsing only changed files) runs when asked, after this repository
        wrote, and at a command's first read (or any read outside a command) when any folder's mtime
        moved (files added, removed, renamed or atomically saved) or the last scan is older than
        RESCAN_SECONDS (in-place edits, seen by a long-running process's next command).
        A repository that `watch`es re-stats only the folders its change notices name instead
        (also when asked to refresh: the notices miss nothing a scan would see).
        """
        if self._own or self._own_gone:
            self._apply_own()
        snap = self._snapshot
        if self._watcher is not None and snap is not None:  # notices are exact: a refresh needs no walk
            return self._noticed(snap)
        if snap is not None and not (refresh or self._stale) and self._command_depth and self._checked:
            return snap
        if (refresh or snap is None or self._stale or clock.monotonic() - self._scanned_at > RESCAN_SECONDS
                or not folders_unchanged(self.root, snap.folders, self.scan.tops)):
            snap = self._rescan(snap)
            if self._watcher is not None:
                snap = self._watch_folders(snap)
        self._checked = True
        return snap

    def _apply_own(self) -> None:
        """Put this repository's own writes into its snapshot without a walk (a rescan when that
        cannot be done: a broken or repeated-id file involved, or no snapshot to patch)."""
        written, gone, folders = self._own, self._own_gone, self._own_folders
        self._own, self._own_gone, self._own_folders = {}, set(), {}
        snap = self._snapshot
        patched = None if snap is None or self._stale else snap.patched(written, gone, folders)
        if patched is None:
            self._stale = True
        else:
            self._snapshot, self._catalog_behind = patched, True

    def _note_own(self, rel: str, text: str, memory: Memory | None) -> None:
        """Remember a file this repository just wrote (`memory`: its parse) or moved away (None)."""
        if memory is None or not getattr(self.scan, "mtime_free", False) or self._stale:
            self._stale = True
            return
        try:
            st = os.stat(self.root / rel)
        except OSError:
            self._stale = True
            return
        self._own[rel] = Entry((st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino), content_hash(text), record(memory))
        self._own_gone.discard(rel)
        self._note_folders(rel)

    def _note_gone(self, rel: str) -> None:
        self._own.pop(rel, None)
        self._own_gone.add(rel)
        self._note_folders(rel)

    def _note_folders(self, rel: str) -> None:
        """The new mtimes of the folders on the way to a file (a write changed its folder's; a new
        folder its parent's), so the next command's folder check knows them for this process's own."""
        folder = rel.rpartition("/")[0]
        while folder:
            with contextlib.suppress(OSError):
                self._own_folders[folder] = os.stat(self.root / folder).st_mtime_ns
            folder = folder.rpartition("/")[0]

    def _rescan(self, snap: Snapshot | None, found: ScanResult | None = None) -> Snapshot:
        """A new snapshot from a stat scan (`found`: one already made), its problems noted as warnings.
        A watching process rewrites the catalog (every file's entry) at most every CATALOG_SECONDS:
        it is only where a fresh process starts from, and it checks every entry's stat signature."""
        self._scanned_at = clock.monotonic()
        deferred = found is not None and self._watcher is not None
        snap = load_snapshot(self.root, self.cache, previous=snap, scan=self.scan, found=found, write_cache=not deferred)
        changed = snap is not self._snapshot  # a new snapshot: written now unless deferred
        if changed:  # written by load_snapshot now, unless deferred: then the catalog is behind
            self._catalog_behind = deferred
        self._snapshot = snap
        self._stale = False
        self._warnings.update(dict.fromkeys(f"skipped broken file {msg}" for _, msg in snap.broken))
        self._warnings.update(dict.fromkeys(f"duplicate id in {b} (also in {a}); skipped"
                                            for a, b in snap.duplicates))
        self._warnings.update(dict.fromkeys(snap.unknown_visibilities()))
        return snap

    def watch(self) -> bool:
        """Keep the snapshot current from the kernel's change notices (store/watch.py) instead of
        stat scans: a long-running process (a server) sees every change by the next read, and pays
        for the folders that changed only. False where notices are not available (stat scans go on)."""
        if self._watcher is None:
            self._watcher = open_watcher(self.root)
            if self._watcher is None:
                return False
            self._watch_folders(self._rescan(self._snapshot))
            self._catalog_saved = clock.monotonic()  # the full scan just wrote it
        return self._watcher is not None

    def _watch_folders(self, snap: Snapshot) -> Snapshot:
        """Watch every folder the scan walked (and the root, where top folders appear); folders
        watched only now are re-stat-ed, in case a file landed there before its watch."""
        assert self._watcher is not None
        added = self._watcher.watch([*snap.folders, ""])
        if self._watcher.lost:  # the watch limit: notices would miss folders, so stat scans it is
            self._watcher.close()
            self._watcher = None
            return snap
        again = tuple(rel for rel in added if rel in snap.folders)
        return self._rescan(snap, merge_scan(snap.scanned, self.scan.stat_files(self.root, again), again)) if again else snap

    def flush(self) -> None:
        """Write the catalog if a watching process has put it off, or own writes were patched in."""
        if self._own or self._own_gone:
            self._apply_own()
        if self._catalog_behind and self._snapshot is not None:
            save_catalog(self.cache, self.scan, self._snapshot)
            self._catalog_behind, self._catalog_saved = False, clock.monotonic()

    def _noticed(self, snap: Snapshot) -> Snapshot:
        """The snapshot brought up to date with the change notices queued since the last read."""
        assert self._watcher is not None
        if clock.monotonic() - self._catalog_saved > CATALOG_SECONDS:
            self.flush()
        notice = self._watcher.changes()
        if notice is None or not notice[0] <= snap.folders.keys():  # a folder went, or the root changed
            return self._watch_folders(self._rescan(snap))
        changed, created = notice[0], {rel for rel in notice[1] if self._holds_memories(rel)}
        if created:  # a new owner's folder: watched first, then read, so nothing written there is missed
            self._watcher.watch([*snap.folders, "", *created])
            if self._watcher.lost or any(_has_subfolder(self.root / rel) for rel in created):
                return self._watch_folders(self._rescan(snap))
        folders = tuple(sorted(changed | created))
        if not folders:
            return snap
        return self._rescan(snap, merge_scan(snap.scanned, self.scan.stat_files(self.root, folders), folders))

    def _holds_memories(self, rel: str) -> bool:
        """Whether the catalog reads the files of this folder (a top, or below one in a deep layout)."""
        tops = self.scan.tops
        if any(part.startswith(".") for part in rel.split("/")):
            return False  # the scan never enters a hidden folder
        return rel in tops or (self.scan.deep and any(rel.startswith(f"{top}/") for top in tops if top))

    def all_memories(self) -> list[Memory]:
        """Every readable memory, active and archived."""
        return self.snapshot().memories

    def is_active(self, memory: Memory) -> bool:
        """Active means: in an active folder and status active."""
        return memory.status == "active" and not is_archived(memory.path)

    def active(self, at: datetime | None = None, owner: str | None = None) -> list[Memory]:
        """Active memories that have not expired (of one scope folder when `owner` is given)."""
        at = at or clock.now()
        snap = self.snapshot()
        pool = snap.memories if owner is None else snap.owned(owner)
        return [m for m in pool if self.is_active(m) and not m.is_expired(at)]

    def get(self, memory_id: str) -> Memory:
        """A memory by id (a whole id is that memory, looked up by its path) or unique id prefix (at
        least 4 characters)."""
        snap = self.snapshot()
        rel = snap.paths().get(memory_id)
        if rel is not None:
            with contextlib.suppress(ValidationError):
                return snap.memory(rel)
        found = [m for m in snap.memories if m.id.startswith(memory_id)]
        if not found:
            raise self._not_found(memory_id)
        if len(found) > 1:
            raise UsageError(f"id prefix {memory_id!r} matches {len(found)} memories; give more characters",
                             code="ambiguous_id")
        return found[0]

    def implied_id(self, rel: str) -> str | None:
        """The id a file's name gives it when it names none (the memctl layout's files always do)."""
        return None

    def _not_found(self, memory_id: str) -> NotFound:
        """NotFound; when a conflict-marked file holds the id, naming that file and its marked lines."""
        from memctl.store.conflicted import find_conflicted

        hit = find_conflicted(self.root, self.snapshot().broken, memory_id, self.implied_id)
        if hit is None:
            return NotFound(f"no memory with id {memory_id!r}")
        return NotFound(f"memory {memory_id!r} is in {hit[0]}, which is conflict-marked by git at {hit[1]}: "
                        "resolve the conflict (keep one side or both), then it reads again", code="conflict_marked")

    def candidates(self, flt: MemoryFilter, now: datetime) -> dict[str, str]:
        """id -> path of the memories passing the filter; memoised per snapshot and filter until the
        next expiry among them, so an agent's repeated recalls skip the scan (a server answering
        many users keeps the pools of the last POOL_MEMO filters)."""
        snap = self.snapshot()
        cached = self._pools.get(flt)
        now_s = clock.format_timestamp(now)
        if cached is not None and cached[2] is snap and now_s < cached[1]:
            return cached[0]
        pool, next_expiry = filter_records(snap.records(), flt, now)
        pools = {k: v for k, v in self._pools.items() if v[2] is snap and k != flt}
        self._pools = {**dict(list(pools.items())[-(POOL_MEMO - 1):]), flt: (pool, next_expiry, snap)}
        return pool

    def select(self, flt: MemoryFilter, now: datetime, order: str | None = None, newest_first: bool = False,
               limit: int = 0, offset: int = 0) -> list[Memory]:
        """The memories passing the filter, in `order` (filters.ORDERS; None: as the folder lists
        them), reversed when `newest_first`, from `offset`, at most `limit` (0: all)."""
        snap = self.snapshot()
        memories = [snap.memory(rel) for rel in self.candidates(flt, now).values()]
        if order is not None:
            memories.sort(key=order_key(order), reverse=newest_first)
        elif newest_first:
            memories.reverse()
        return memories[offset:offset + limit] if limit else memories[offset:]

    def wholes(self) -> frozenset[str]:
        """Ids that some memory names as its `part_of`; memoised per snapshot."""
        snap = self.snapshot()
        if self._wholes is None or self._wholes[1] is not snap:
            self._wholes = (frozenset(str(d["part_of"]) for _, d in snap.records() if d.get("part_of")), snap)
        return self._wholes[0]

    def load(self, handle: str) -> Memory:
        """The validated memory of one file (by its relative path, from the snapshot `candidates`
        just used: a recall loads its hits without re-checking the folders for each one)."""
        return (self._snapshot or self.snapshot()).memory(handle)

    def owners(self) -> list[str]:
        """Every scope folder that has active memories, e.g. `users/alice`, `projects/shop`."""
        return sorted({m.owner for m in self.all_memories() if self.is_active(m)})

    def new_id(self) -> str:
        """A random 8-hex id that no file in the directory uses."""
        taken = set(self.snapshot().paths())
        while True:
            candidate = secrets.token_hex(4)
            # An all-digit id would read back from YAML as a number: skip it.
            if candidate not in taken and not candidate.isdigit():
                return candidate

    # -- writing -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def locked(self, timeout: float = 30.0) -> Iterator[None]:
        """The directory's write lock (`.memctl/lock`, in the folder), re-entrant within this repository.

        On entry it re-scans and finishes what an interrupted write left behind (see store/repair.py).
        Threads of one process (a server's requests) take it one at a time: the flock orders processes."""
        with self._mutex:
            if self._lock_depth:
                self._lock_depth += 1
                try:
                    yield
                finally:
                    self._lock_depth -= 1
                return
            with file_lock(own_folder(self.state) / "lock", timeout):
                self._lock_depth = 1
                try:
                    self.repaired = self.repair(self.snapshot(refresh=True))
                    yield
                finally:
                    self._lock_depth = 0
                    self._sync_hold()
                    if self._watcher is None:  # own writes patched in: the catalog a fresh process reads
                        self.flush()

    def _sync_hold(self) -> None:
        """Make the lock hold's renames and journal lines durable: one fsync per folder and one of
        the journal, however many memories the hold wrote (before the lock goes, so before any
        caller is told its write was made)."""
        unsynced, self._unsynced = self._unsynced, set()
        for folder in sorted(unsynced - {self.journal.path}):
            fsync_dir(folder)
        if self.journal.path in unsynced:
            fsync_file(self.journal.path)

    def _log(self, op: str, memory_id: str, before: str | None, after: str | None, **detail: Any) -> None:
        """Journal a write; under the lock its fsync waits for the hold's end (_sync_hold)."""
        held = bool(self._lock_depth)
        if held:
            self._unsynced.add(self.journal.path)
        self.journal.append(op, memory_id, before, after, durable=not held, **detail)

    def named_lock(self, name: str, timeout: float = 600.0) -> contextlib.AbstractContextManager[None]:
        """A lock of its own (`.memctl/<name>.lock`) for a long job such as an extraction."""
        return file_lock(own_folder(self.state) / f"{name}.lock", timeout)

    def _writable(self, path: Path) -> Path:
        """`path`, after checking that no folder on the way from the root is a symbolic link
        (memctl never writes through a link) and that it stays inside the directory."""
        rel = self.layout.relative(path)
        probe = self.root
        for part in Path(rel).parts:
            probe = probe / part
            if probe.is_symlink():
                raise UsageError(f"{self.layout.relative(probe)} is a symbolic link: memctl does not write through links",
                                 code="symlink")
        return path

    def render(self, memory: Memory, path: Path) -> str:
        """The text of a memory's file: the canonical serialisation (a layout may keep a file's own form)."""
        from memctl.core.fileformat import serialise_memory  # yaml: only paid by writers

        return serialise_memory(memory)

    def _save(self, memory: Memory, path: Path) -> str:
        """Serialise, check the text reads back, and write atomically; returns the new content hash."""
        text, parsed = self._rendered(memory, path)
        held = bool(self._lock_depth)
        write_atomic(self._writable(path), text, sync_dir=not held)
        return self._written(memory, path, text, parsed)

    def _rendered(self, memory: Memory, path: Path) -> tuple[str, Memory]:
        """A memory's file text and what it reads back as; InvalidMemory when it would not read back."""
        text = self.render(memory, path)
        own = getattr(self.scan, "parse_own", None)  # a layout whose files are memctl's own rendering
        try:
            rel = self.layout.relative(path)
            return text, own(text, rel, memory) if own is not None else self.scan.parse(text, rel, 0)
        except InvalidMemory as exc:  # never write a file the next scan would call broken
            raise InvalidMemory(f"memory {memory.id} would not read back ({exc.message}); nothing was written") from None

    def _written(self, memory: Memory, path: Path, text: str, parsed: Memory) -> str:
        """Note a file just written atomically (its folder's fsync left to the hold's end, when held);
        returns its content hash."""
        if self._lock_depth:
            self._unsynced.add(path.parent)
        memory.path = self.layout.relative(path)
        self._note_own(memory.path, text, parsed)
        self._touched.add(memory.owner)
        return content_hash(text)

    def create(self, memory: Memory, op: str = "add", *, actor: str | None = None, **detail: Any) -> Memory:
        """Write a new memory file and journal it."""
        after = self._save(memory, self.layout.new_path(memory))
        self._log(op, memory.id, None, after, path_after=memory.path, actor=actor, **detail)
        return memory

    def put(self, memory: Memory, op: str = "import", *, actor: str | None = None, **detail: Any) -> Memory:
        """Store a memory exactly as given (id, dates, status, links): an import of memctl's own records.
        It keeps its relative path when that fits this layout and is free."""
        after = self._save(memory, self.layout.place(memory))
        self._log(op, memory.id, None, after, path_after=memory.path, actor=actor, **detail)
        return memory

    def rewrite(self, memory: Memory, op: str, *, actor: str | None = None, **detail: Any) -> Memory:
        """Replace an existing file in place (never renamed), journaling before/after hashes.

        The file must still hold what the last scan read: a hand edit made since is never overwritten."""
        path = self.root / str(memory.path)
        before = content_hash(read_regular(path)) if path.exists() else None
        self._check_unchanged(str(memory.path), before)
        after = self._save(memory, path)
        detail.setdefault("path_before", memory.path)
        self._log(op, memory.id, before, after, path_after=memory.path, actor=actor, **detail)
        return memory

    def rewrite_many(self, memories: Sequence[Memory], op: str, *, actor: str | None = None,
                     details: Sequence[dict[str, Any]] = ()) -> dict[str, MemctlError]:
        """`rewrite` of many memories under the write lock, the data of all their files fsynced at once
        (files.stage_many), each then renamed into place and journaled as `rewrite` does (with its
        `details` entry). Returns, by id, the errors of those not rewritten (e.g. a hand edit since the
        scan); the others are written."""
        details = list(details) or [{} for _ in memories]
        if not self._lock_depth:  # a caller without the lock: taken here, as every write is under it
            with self.locked():
                return self.rewrite_many(memories, op, actor=actor, details=details)
        ready, failed = [], {}
        for memory, detail in zip(memories, details):
            path = self.root / str(memory.path)
            try:
                before = content_hash(read_regular(path)) if path.exists() else None
                self._check_unchanged(str(memory.path), before)
                ready.append((memory, detail, path, before, *self._rendered(memory, self._writable(path))))
            except MemctlError as exc:
                failed[memory.id] = exc
        for start in range(0, len(ready), STAGED):
            self._replace_staged(ready[start:start + STAGED], op, actor)
        return failed

    def _replace_staged(self, ready: list[tuple[Any, ...]], op: str, actor: str | None) -> None:
        """Stage the files of prepared rewrites (data fsynced together), then rename and journal each."""
        temps = stage_many([(path, text.encode("utf-8")) for _, _, path, _, text, _ in ready])
        pause_for_tests("MEMCTL_TEST_PAUSE_BEFORE_REPLACE")
        done = 0
        try:
            for memory, detail, path, before, text, parsed in ready:
                os.replace(temps[done], path)
                done += 1
                after = self._written(memory, path, text, parsed)
                self._log(op, memory.id, before, after, path_after=memory.path, actor=actor,
                          **{"path_before": memory.path, **detail})
        finally:
            discard(temps[done:])

    def archive(self, memory: Memory, status: str, reason: str | None, op: str, *, actor: str | None = None, **links: Any) -> Memory:
        """Move an active memory to archive/ (rename first: it exists exactly once), then mark why."""
        if not self.is_active(memory):
            raise UsageError(f"memory {memory.id} is already archived ({memory.status})", code="not_active")
        source = self.root / str(memory.path)
        before = content_hash(read_regular(source))
        self._check_unchanged(str(memory.path), before)
        target = self._free(self._writable(self.layout.archive_path(source)), memory)
        data = memory.model_dump(exclude={"path"})
        data.update(status=status, archived_reason=reason, archived_at=clock.now(), **links)
        archived = Memory(**data)
        self._rendered(archived, source)  # one that would not read back is refused before anything moves
        self.journal.append(INTENT_OP, memory.id, before, None, status=status, reason=reason, actor=actor, **links)
        move(source, target)
        self._note_gone(str(memory.path))
        pause_for_tests("MEMCTL_TEST_PAUSE_AFTER_MOVE")
        after = self._save(archived, target)
        self._log(op, memory.id, before, after, path_before=memory.path, path_after=archived.path,
                  reason=reason, actor=actor, **links)
        return archived

    def unarchive(self, memory: Memory, op: str = "restore", *, actor: str | None = None) -> Memory:
        """Move an archived memory back and drop the archive fields."""
        source = self.root / str(memory.path)
        before = content_hash(read_regular(source))
        self._check_unchanged(str(memory.path), before)
        target = self._free(self._writable(self.layout.active_path(source)), memory)
        data = memory.model_dump(exclude={"path", *ARCHIVE_FIELDS})
        data["status"] = "active"
        restored = Memory(**data)
        self._rendered(restored, target)  # one that would not read back is refused before anything moves
        self.journal.append(INTENT_OP, memory.id, before, None, status="active", actor=actor)
        move(source, target)
        pause_for_tests("MEMCTL_TEST_PAUSE_AFTER_MOVE")
        after = self._save(restored, target)
        self.journal.append(op, memory.id, before, after, path_before=memory.path, path_after=restored.path, actor=actor)
        return restored

    def _free(self, target: Path, memory: Memory) -> Path:
        """`target`, or a fresh `<slug>-<id>.md` beside it when that name is taken by another file."""
        if not target.exists():
            return target
        stem = f"{target.stem}-{memory.id}" if memory.id not in target.stem else f"{target.stem}-{secrets.token_hex(2)}"
        return target.with_name(stem + target.suffix)

    def _check_unchanged(self, rel: str, current: str | None) -> None:
        entry = self._known_entry(rel)
        if entry is not None and current is not None and entry.hash and entry.hash != current:
            self._stale = True
            raise Conflict(f"{rel} changed on disk since memctl read it; nothing was written (run the command again)")

    def _known_entry(self, rel: str) -> Entry | None:
        """What this repository last knew of a file: its own last write, else the snapshot's entry.
        While own writes wait to be patched in (_apply_own), they are of other files: the snapshot
        is used as it is, so rewriting many files patches it once, not once a file."""
        own = self._own.get(rel)
        if own is not None or rel in self._own_gone:
            return own
        if self._own and self._snapshot is not None and not self._stale:
            return self._snapshot.entries.get(rel)
        return self.snapshot().entries.get(rel)

    def relocate(self, memory: Memory, op: str, *, actor: str | None = None, **detail: Any) -> Memory:
        """Write a memory whose owner changed (a promotion) into its new folder, removing the old file."""
        source = self.root / str(memory.path)
        target = self.layout.new_path(memory)
        self._touched.add(self.layout.folder_of(str(memory.path)))
        if target.parent != source.parent:
            move(source, target)
            detail.setdefault("path_before", memory.path)
            memory.path = self.layout.relative(target)
        return self.rewrite(memory, op, actor=actor, **detail)

    def original(self, memory: Memory) -> dict[str, str]:
        """The path and exact text of a memory's file."""
        return {"path": str(memory.path), "text": (self.root / str(memory.path)).read_text(encoding="utf-8")}

    def put_back(self, current: Memory | None, original: dict[str, str], op: str, *, actor: str | None = None, **detail: Any) -> None:
        """Move the memory back to its original path and write its original bytes."""
        target = self.root / original["path"]
        if current is not None and current.path != original["path"]:
            if target.exists():
                raise UsageError(f"cannot undo: {original['path']} exists again", code="undo_conflict")
            move(self.root / str(current.path), target)
        self._stale = True
        self._touched.add(self.layout.folder_of(original["path"]))
        if target.exists() and target.read_text(encoding="utf-8") == original["text"]:
            return
        write_atomic(self._writable(target), original["text"])
        self.journal.append(op, current.id if current else "unknown", None, content_hash(original["text"]),
                            path_after=original["path"], actor=actor, **detail)

    def delete_created(self, memory: Memory, op: str, *, actor: str | None = None, **detail: Any) -> None:
        """Delete a file memctl created itself (a compaction summary being undone)."""
        (self.root / str(memory.path)).unlink(missing_ok=True)
        self._stale = True
        self._touched.add(memory.owner)
        self.journal.append(op, memory.id, None, None, actor=actor, **detail)

    def drain_touched(self) -> set[str]:
        """The scope folders written since the last call (their MEMORY.md may need a refresh)."""
        out, self._touched = self._touched, set()
        return out

    # -- journal and usage -------------------------------------------------------------------
    def history(self, memory_id: str) -> list[JournalEntry]:
        """Every journal entry about this memory (or naming it), and every commit git holds of its
        file (store/githistory.py), oldest first."""
        from memctl.store.githistory import file_history

        journal = [e for e in self.journal.read() if e.op != INTENT_OP
                   and (e.id == memory_id or memory_id in e.mentions())]
        path = next((str(m.path) for m in self.all_memories() if m.id == memory_id and m.path), None)
        path = path or next((e.path_after or e.path_before for e in reversed(journal) if e.path_after or e.path_before), None)
        commits = file_history(self.root, path, memory_id) if path else []
        if not commits:
            return journal
        import heapq

        return list(heapq.merge(journal, commits, key=lambda e: e.time))  # each in its own order, by time

    def auto_writes(self, session: str | None, since: str, until: str, owner: str | None = None) -> int:
        """Automatic writes within (since, until], from the journal: of `owner`'s session (its
        session_owner, users/alice), or (session None) those of `owner` made with no session."""
        key = "session_of" if session is not None else "owner"
        return sum(1 for e in self.journal.read()
                   if e.op in WRITE_OPS and e.detail.get("source") in AUTO_SOURCES and since < e.time <= until
                   and e.detail.get("session") == session and e.detail.get(key) == owner)

    def session_writes(self, session: str, since: str, owner: str) -> list[tuple[str, int | None]]:
        """(time, turn_at) of the explicit (not automatic) writes made in `owner`'s session from `since` on."""
        return [(e.time, _turn_at(e.detail.get("turn_at"))) for e in self.journal.read()
                if e.op in WRITE_OPS and e.detail.get("session") == session and e.detail.get("session_of") == owner
                and e.detail.get("source") not in AUTO_SOURCES and e.time >= since]

    def record_usage(self, ids: Sequence[str], at: datetime, session: str | None) -> None:
        """Count one use of each id in the usage cache."""
        self.usage_log.record(ids, at, session)

    def usage(self) -> dict[str, dict[str, Any]]:
        """Usage statistics by id."""
        return self.usage_log.read()

    # -- MEMORY.md and texts -----------------------------------------------------------------
    def read_memory_md(self, owner: str) -> str | None:
        """The MEMORY.md of a scope folder, or None when there is none."""
        path = self.layout.index_path(owner)
        try:
            return path.read_text(encoding="utf-8") if path.is_file() else None
        except (OSError, UnicodeDecodeError):
            return None

    def write_memory_md(self, owner: str, text: str) -> None:
        """Replace the MEMORY.md of a scope folder atomically (under the write lock)."""
        with self.locked():
            write_atomic(self._writable(self.layout.index_path(owner)), text)

    def text(self, name: str) -> str:
        """The directory's MEMORY.md.template or extract_prompt.md, else the shipped one."""
        return read_text_file(self.root, name)

    # -- health ------------------------------------------------------------------------------
    def warnings(self) -> list[str]:
        """Warnings gathered since the last call."""
        out = list(self._warnings)
        self._warnings.clear()
        return out

    def repair(self, snap: Snapshot) -> list[str]:
        """Finish what interrupted writes left (caller holds the lock): remove temp files, and make
        misfiled memories' folder and status agree again. Returns what was repaired."""
        found = find_leftovers(snap.records(), snap.temps)
        if not found:
            return []
        for rel in found.temps:
            with contextlib.suppress(OSError):
                (self.root / rel).unlink()
        journal = self.journal.read() if found.misfiled else []
        refiled = [rel for rel in found.misfiled if self._refiled(snap.memory(rel), journal)]
        self._stale = True
        self.snapshot(refresh=True)
        return found.temps + refiled

    def _refiled(self, memory: Memory, journal: list[JournalEntry]) -> bool:
        """`_refile`, or a warning when it cannot be done: one such file must not block every write."""
        try:
            self._refile(memory, journal)
        except (MemctlError, OSError) as exc:
            detail = exc.message if isinstance(exc, MemctlError) else str(exc)
            self._warnings[f"could not refile {memory.path} (memory {memory.id}): {detail}; left as it is "
                           "(memctl doctor reports it)"] = None
            return False
        return True

    def _refile(self, memory: Memory, journal: list[JournalEntry]) -> None:
        fields = finish(memory.status, is_archived(memory.path), last_intent(journal, memory.id))
        path = target = self.root / str(memory.path)
        if fields.pop("move_to_archive", False):
            target = self._free(self.layout.archive_path(path), memory)
        data = memory.model_dump(exclude={"path", *(ARCHIVE_FIELDS if fields["status"] == "active" else ())})
        data.update(fields)
        if fields["status"] != "active":
            data.setdefault("archived_at", clock.now())
        repaired = Memory(**data)
        self._rendered(repaired, target)  # one that would not read back is refused before anything moves
        if target != path:
            move(path, target)
        after = self._save(repaired, target)
        self.journal.append("repair", memory.id, None, after, path_before=memory.path, path_after=repaired.path,
                            status=repaired.status)

    def broken(self, flt: MemoryFilter | None = None) -> list[tuple[str, str]]:
        """(path, why) of the memory files that do not read; with a scope, those in its folders."""
        snap = self.snapshot()
        if flt is None or not flt.scoped:
            return list(snap.broken)
        owners = scope_owners(snap.records(), flt)
        return [(rel, why) for rel, why in snap.broken if self.layout.folder_of(rel) in owners]

    def problems(self, fix: bool = False) -> tuple[list[dict[str, str]], list[str]]:
        """Broken, duplicate-id, misplaced and misfiled files, leftover temp files; `fix` repairs what
        an interrupted write left (as the next write would)."""
        removed: list[str] = []
        if fix:
            with self.locked():
                removed = list(self.repaired)
        snap = self.snapshot(refresh=True)
        problems = [{"kind": "broken", "path": rel, "detail": msg.removeprefix(f"{rel}: ")} for rel, msg in snap.broken]
        problems += [{"kind": "duplicate_id", "path": b, "detail": f"same id as {a}"} for a, b in snap.duplicates]
        for m in snap.memories:
            if self.layout.folder_of(str(m.path)) != m.owner:
                problems.append({"kind": "misplaced", "path": str(m.path),
                                 "detail": f"its fields say it belongs in {m.owner}/"})
            if is_archived(m.path) == (m.status == "active"):
                problems.append({"kind": "status_location", "path": str(m.path),
                                 "detail": f"status {m.status} in this folder"})
        problems += [{"kind": "temp_file", "path": rel, "detail": "left by an interrupted write (the next write removes it)"}
                     for rel in snap.temps]
        return problems, removed

    def drop_caches(self) -> None:
        """Forget the catalog (the next read re-parses every file)."""
        (self.cache / self.scan.catalog_name).unlink(missing_ok=True)
        self._snapshot = None
        self._stale = True


def _turn_at(value: object) -> int | None:
    """A journal entry's transcript position (the journal is read from disk: anything else is None)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
