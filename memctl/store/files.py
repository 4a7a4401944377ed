"""Files on disk: locating the directory, atomic writes, the archive, the journal and the write lock."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import tempfile
import time
from pathlib import Path
from typing import Iterator

from memctl.clock import format_timestamp, now
from memctl.config import CONFIG_NAME
from memctl.errors import InvalidId, LockTimeout, NoDirectory
from memctl.core.models import JournalEntry, Memory

CACHE_DIR = ".memctl"
ACTIVE_DIRS = ("users", "projects")
ARCHIVE_DIR = "archive"
INDEX_FILE = "MEMORY.md"
TEMPLATE_NAME = "MEMORY.md.template"
_SLUG_WORD = re.compile(r"[a-z0-9]+")


def find_root(explicit: str | os.PathLike | None, env: str | None, cwd: Path) -> Path:
    """`--dir`, else MEMCTL_DIR, else the nearest ancestor holding memctl.toml."""
    for given in (explicit, env):
        if given:
            path = Path(given).expanduser()
            if not path.is_dir():
                raise NoDirectory(f"memory directory {str(path)!r} does not exist (run `memctl init {path}`)")
            return path.resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder
    raise NoDirectory("no memory directory found: pass --dir, set MEMCTL_DIR, or run `memctl init`")


def content_hash(text: str | bytes) -> str:
    """Short sha256 of a file's bytes: the journal's before/after and the caches' change key."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()[:16]


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = 30.0) -> Iterator[None]:
    """An exclusive flock on `path` (created if missing); LockTimeout after `timeout` seconds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockTimeout(f"another memctl process holds {path} (waited {timeout:.0f} s)")
                time.sleep(0.02)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def check_id(value: str) -> str:
    """An id argument: hex only, so it can never name a path outside the directory."""
    if not isinstance(value, str) or "\x00" in value or not re.fullmatch(r"[0-9a-f]{4,32}", value):
        raise InvalidId(f"invalid memory id {value!r} (expected 4-32 lowercase hex characters)")
    return value


def slugify(text: str, fallback: str) -> str:
    """Up to six ASCII words of the content, for readable file names."""
    words = _SLUG_WORD.findall(text.lower())[:6]
    while words and len("-".join(words)) > 40:
        words.pop()
    slug = "-".join(words)
    return slug if any(c.isalpha() for c in slug) else fallback


def write_atomic(path: Path, text: str, durable: bool = True) -> None:
    """Write via a unique temp file in the same folder, fsync, then os.replace."""
    write_bytes_atomic(path, text.encode("utf-8"), durable)


def write_bytes_atomic(path: Path, data: bytes, durable: bool = True) -> None:
    """Bytes version of write_atomic; durable=False skips the fsyncs (caches that can be rebuilt)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if durable:
            _pause_for_tests("MEMCTL_TEST_PAUSE_BEFORE_REPLACE")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _pause_for_tests(variable: str) -> None:
    """Fault injection: sleep so a test can SIGKILL the process at this point."""
    delay = os.environ.get(variable)
    if delay:
        time.sleep(float(delay))


class Directory:
    """One memory directory on disk: paths, atomic file operations, journal and lock."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache = root / CACHE_DIR

    def ensure_cache(self) -> Path:
        """The `.memctl/` cache folder, created on demand."""
        self.cache.mkdir(parents=True, exist_ok=True)
        return self.cache

    def relative(self, path: Path) -> str:
        """A path relative to the root, with forward slashes."""
        return path.relative_to(self.root).as_posix()

    def new_path(self, memory: Memory, archived: bool = False) -> Path:
        """Where a new memory goes: `<scope folder>/<slug>-<id>.md`."""
        name = f"{slugify(memory.body, memory.type)}-{memory.id}.md"
        folder = self.root / (ARCHIVE_DIR if archived else "") / memory.owner
        return folder / name

    def archive_path(self, active: Path) -> Path:
        """The archive location that mirrors an active file's path."""
        return self.root / ARCHIVE_DIR / self.relative(active)

    def active_path(self, archived: Path) -> Path:
        """The active location that mirrors an archived file's path."""
        return self.root / self.relative(archived).removeprefix(ARCHIVE_DIR + "/")

    def new_id(self, taken: set[str]) -> str:
        """A random 8-hex id that no file in the directory uses."""
        while True:
            candidate = secrets.token_hex(4)
            # An all-digit id would read back from YAML as a number: skip it.
            if candidate not in taken and not candidate.isdigit():
                return candidate

    def save(self, memory: Memory, path: Path) -> str:
        """Serialise and write atomically; returns the new content hash."""
        from memctl.core.fileformat import serialise_memory  # yaml: only paid by writers

        text = serialise_memory(memory)
        write_atomic(path, text)
        memory.path = self.relative(path)
        return content_hash(text)

    def move(self, source: Path, target: Path) -> None:
        """Rename a memory file (same filesystem, atomic): it exists exactly once throughout."""
        if target.exists():
            raise FileExistsError(errno.EEXIST, "target exists", str(target))
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(source, target)
        _fsync_dir(target.parent)
        _fsync_dir(source.parent)

    def lock(self, timeout: float = 30.0, name: str = "lock") -> contextlib.AbstractContextManager[None]:
        """Exclusive write lock for the whole directory (flock on `.memctl/lock`), or a named one."""
        return file_lock(self.ensure_cache() / name, timeout)

    @property
    def journal_path(self) -> Path:
        return self.cache / "journal.jsonl"

    def journal(self, op: str, memory_id: str, before: str | None, after: str | None, **detail: object) -> JournalEntry:
        """Append one mutation to the journal (append-only, fsynced)."""
        paths = {k: detail.pop(k) for k in ("path_before", "path_after") if k in detail}
        entry = JournalEntry(op=op, id=memory_id, time=format_timestamp(now()), before=before,
                             after=after, detail={k: v for k, v in detail.items() if v is not None}, **paths)
        line = json.dumps(entry.model_dump(exclude_none=True), ensure_ascii=False, sort_keys=True)
        self.ensure_cache()
        with open(self.journal_path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        return entry

    def read_journal(self) -> list[JournalEntry]:
        """Every journal entry, oldest first; unreadable lines are skipped."""
        if not self.journal_path.exists():
            return []
        entries = []
        for line in self.journal_path.read_text(encoding="utf-8", errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                entries.append(JournalEntry.model_validate_json(line))
        return entries
