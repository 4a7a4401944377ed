"""One `memctl serve` per directory: a lock held for the server's whole life, starting-up included,
and the other files of a server the CLI starts by itself (cli/autostart.py): its log and its start stamp.

The record (server_record.py) appears only once the server is warm; until then two CLI calls that
both find no record would each start a server. So the lock `serve.lock`, in this user's private
cache folder of the directory, is taken before a server is started (by the CLI that starts one,
which hands the locked file to the server it starts) and held by that server until it exits; the
kernel releases it when the process ends, however it ends. The file holds the holder's pid, for
`memctl serve --stop`. POSIX only (flock); elsewhere nothing starts a server by itself.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from memctl.store.cachedir import folder_cache, private_folder
from memctl.store.locate import CONFIG_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing takes ~6 ms to import; a command forwarded to a warm server runs without it
    from typing import Any, BinaryIO

LOCK_NAME = "serve.lock"
LOG_NAME = "serve.log"
STARTED_NAME = "serve.spawned"  # touched at each automatic start
MAX_LOG_BYTES = 1 << 20
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def lock_path(root: Path) -> Path:
    """Where the serve lock of `root` lives."""
    return folder_cache(root) / LOCK_NAME


def take(root: Path) -> int | None:
    """The lock's file descriptor, locked by this process (inheritable: a server started with it
    keeps it), or None when a server of this directory holds it (running or starting)."""
    import fcntl

    private_folder(lock_path(root).parent)
    fd = os.open(lock_path(root), os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def write_holder(fd: int, pid: int) -> None:
    """Record in the locked file which process holds it."""
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{pid}\n".encode(), 0)


def holder(root: Path) -> int | None:
    """The pid of the server holding the lock of `root` (running or starting), or None when none does."""
    fd = take(root)
    if fd is not None:
        os.close(fd)  # free: nobody holds it
        return None
    try:
        with open(lock_path(root), encoding="ascii") as handle:
            text = handle.read(32).strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def free(root: Path) -> bool:
    """True when no server holds the lock of `root`."""
    fd = take(root)
    if fd is None:
        return False
    os.close(fd)
    return True


def server_settings(root: Path) -> dict[str, Any]:
    """memctl.toml's [server] table as written (empty when missing or unreadable: the command
    itself reports a broken config in its own words)."""
    import tomllib

    try:
        with open(root / CONFIG_NAME, "rb") as handle:
            server = tomllib.load(handle).get("server", {})
    except (OSError, ValueError):
        return {}
    return server if isinstance(server, dict) else {}


def note_start(root: Path) -> None:
    """Stamp the time a server of `root` is started (private_folder: the lock made it)."""
    path = folder_cache(root) / STARTED_NAME
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | _NOFOLLOW, 0o600))
    os.utime(path)


def started_within(root: Path, seconds: float) -> bool:
    """True when a server of `root` was started less than `seconds` ago."""
    try:
        return time.time() - os.stat(folder_cache(root) / STARTED_NAME).st_mtime < seconds
    except OSError:
        return False


def log_path(root: Path) -> Path:
    """The log of the server the CLI starts for `root`."""
    return folder_cache(root) / LOG_NAME


def open_log(root: Path, headline: str) -> BinaryIO:
    """The server's log, opened to append after a dated `headline` (mode 0600; once it passes 1 MB
    it is moved to serve.log.1 first, so it stays bounded)."""
    path = log_path(root)
    try:
        if os.lstat(path).st_size > MAX_LOG_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
    except OSError:
        pass
    log = os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | _NOFOLLOW, 0o600), "ab")
    log.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {headline}\n".encode())
    log.flush()
    return log
