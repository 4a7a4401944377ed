"""Low-level file operations: atomic writes, renames that never duplicate a file, and locks."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import time
from pathlib import Path
from typing import Iterator, Sequence

from memctl.errors import LockTimeout, StoreError


def content_hash(text: str | bytes) -> str:
    """Short sha256 of a file's bytes: the journal's before/after and the caches' change key."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()[:16]


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = 30.0) -> Iterator[None]:
    """An exclusive lock on `path` (created if missing), across processes and threads; LockTimeout
    after `timeout` seconds. On POSIX an flock of the file's own descriptor (closing it releases the
    lock, also when the process dies); elsewhere filelock (msvcrt on Windows). filelock is not used on
    POSIX because importing it costs more than a fresh `memctl recall` spends on its whole search."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if os.name != "posix":
        with _portable_lock(path, timeout):
            yield
        return
    fd = _open_lock_file(path)
    try:
        _flock(fd, path, timeout)
        yield
    finally:
        os.close(fd)


def _open_lock_file(path: Path) -> int:
    """The lock file's descriptor; a symlink in its place is refused (it could point anywhere). A
    lock file someone else created (two people working in one checkout) is locked read-only."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        try:
            return os.open(path, os.O_RDWR | os.O_CREAT | nofollow, 0o644)
        except PermissionError:
            return os.open(path, os.O_RDONLY | nofollow)
    except OSError as exc:
        raise StoreError(f"cannot open the lock file {path}: {exc.strerror or exc}") from None


def own_folder(path: Path, create: bool = True) -> Path:
    """A folder memctl keeps its own files in inside a memory directory (`.memctl/`: locks, the
    journal, compaction records), created if missing. A link or a file in its place is refused
    (StoreError): whatever memctl wrote there would land wherever it points."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if create:
            path.mkdir(parents=True, exist_ok=True)
        return path
    if not stat.S_ISDIR(st.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a folder"
        raise StoreError(f"{path} is {kind}: memctl keeps its lock and journal there and will not use it "
                         "(remove it; the next command recreates it)", code="state_folder")
    return path


def _flock(fd: int, path: Path, timeout: float) -> None:
    """Take an exclusive flock on `fd`, polling every 20 ms until `timeout` (then LockTimeout)."""
    import fcntl

    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise _timed_out(path, timeout) from None
            time.sleep(0.02)


def _timed_out(path: Path, timeout: float) -> LockTimeout:
    return LockTimeout(f"another memctl process holds {path} (waited {timeout:.0f} s)")


@contextlib.contextmanager
def _portable_lock(path: Path, timeout: float) -> Iterator[None]:
    """filelock's lock, for systems without flock."""
    from filelock import FileLock, Timeout

    lock = FileLock(str(path), timeout=timeout, thread_local=False)
    try:
        lock.acquire(poll_interval=0.02)
    except Timeout:
        raise _timed_out(path, timeout) from None
    try:
        yield
    finally:
        lock.release()


def write_atomic(path: Path, text: str, durable: bool = True, mode: int | None = None, sync_dir: bool = True) -> None:
    """Write via a unique temp file in the same folder, fsync, then os.replace. The file keeps its
    mode (a new one gets the umask's), unless `mode` says otherwise (0o600: private records).
    `sync_dir` False leaves the folder's fsync (the rename's durability) to the caller, who groups them."""
    write_bytes_atomic(path, text.encode("utf-8"), durable, mode, sync_dir)


def write_bytes_atomic(path: Path, data: bytes, durable: bool = True, mode: int | None = None,
                       sync_dir: bool = True) -> None:
    """Bytes version of write_atomic; durable=False skips the fsyncs (caches that can be rebuilt)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(path, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if durable:
            pause_for_tests("MEMCTL_TEST_PAUSE_BEFORE_REPLACE")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable and sync_dir:
        fsync_dir(path.parent)


def stage_many(files: Sequence[tuple[Path, bytes]], workers: int = 8) -> list[str]:
    """The first half of write_bytes_atomic for many files: each written to a temp file beside it and
    all their data fsynced at once (in threads, so the file system makes a few journal commits for
    them, not one a file); returns the temp names, for the caller to os.replace into place one by one
    (and the folders' fsyncs are the caller's). On a failure no temp file is left and none is renamed.
    Every file is open until the fsyncs end: a caller passes a bounded number (STAGED)."""
    from concurrent.futures import ThreadPoolExecutor  # only a batch of rewrites pays for it

    temps: list[str] = []
    handles = []
    try:
        try:
            for path, data in files:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = temp_beside(path)
                temps.append(tmp)
                handles.append(os.fdopen(fd, "wb"))
                handles[-1].write(data)
                handles[-1].flush()
            if handles:
                with ThreadPoolExecutor(min(workers, len(handles))) as pool:
                    list(pool.map(os.fsync, [handle.fileno() for handle in handles]))
        finally:
            for handle in handles:
                with contextlib.suppress(OSError):
                    handle.close()
    except BaseException:
        discard(temps)
        raise
    return temps


STAGED = 64  # files stage_many is given at a time (each open until their fsyncs end)


def discard(temps: Sequence[str]) -> None:
    """Remove temp files that were not renamed into place (best effort)."""
    for tmp in temps:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def fsync_file(path: Path) -> None:
    """Make what was appended to a file without an fsync durable (best effort: it may be gone)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def temp_beside(path: Path, mode: int | None = None) -> tuple[int, str]:
    """A new unique temp file in `path`'s folder (descriptor, name) with the mode the file will keep
    once it replaces `path`: an existing file's own permission bits, else what the umask gives a new
    file (0644 under 022), as `open()` would. mkstemp's 0600 would turn a group's shared 644 checkout
    private on every write. An explicit `mode` wins."""
    mode = _kept_mode(path) if mode is None else mode
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = str(path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666 if mode is None else 0o600)
        except FileExistsError:
            continue
        if mode is not None and hasattr(os, "fchmod"):
            with contextlib.suppress(OSError):
                os.fchmod(fd, mode)
        return fd, tmp
    raise FileExistsError(errno.EEXIST, "no unique temp name", str(path.parent))


def _kept_mode(path: Path) -> int | None:
    """The permission bits of the regular file at `path`, or None when there is none."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return stat.S_IMODE(st.st_mode) & 0o777 if stat.S_ISREG(st.st_mode) else None


def append_line(path: Path, line: str, durable: bool = True) -> int:
    """Append one line, fsync'd unless not `durable` (the journal, transcripts: a crash loses at most
    that line); returns the file's new size. A symlink in the file's place is refused (StoreError):
    appending through it could write anywhere."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise StoreError(f"{path} is a symbolic link: memctl does not write through one") from None
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")
        handle.flush()
        if durable:
            os.fsync(handle.fileno())
        return handle.tell()


def read_tail(path: Path, limit: int) -> bytes:
    """At most the last `limit` bytes of a regular file memctl keeps itself (the journal), starting
    at a line: never through a link, never blocking on a FIFO (OSError otherwise)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        start = max(0, st.st_size - limit)
        os.lseek(fd, start, os.SEEK_SET)
        chunks, left = [], limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return data[data.find(b"\n") + 1:] if start else data


def read_bounded(path: Path, limit: int) -> bytes:
    """A regular file's bytes, never through a link, never blocking on a FIFO, never more than
    `limit` bytes (OSError otherwise: EFBIG when it is larger)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"over {limit // 1024} KB", str(path))
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"over {limit // 1024} KB", str(path))
    return data


def read_text_nofollow(path: Path, limit: int = 64 * 1024 * 1024) -> str:
    """A file's text, for files memctl keeps itself: bounded, never through a link (OSError)."""
    return read_bounded(path, limit).decode("utf-8")


def move(source: Path, target: Path) -> None:
    """Rename a file (same filesystem, atomic): it exists exactly once throughout."""
    if target.exists():
        raise FileExistsError(errno.EEXIST, "target exists", str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    os.rename(source, target)
    fsync_dir(target.parent)
    fsync_dir(source.parent)


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new file in `folder` durable."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def pause_for_tests(variable: str) -> None:
    """Fault injection: sleep so a test can SIGKILL the process at this point."""
    delay = os.environ.get(variable)
    if delay:
        time.sleep(float(delay))
