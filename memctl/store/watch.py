"""Change notification for a long-running process: Linux inotify over the memory folders.

A server must see a file edited on disk in its very next search, without stat-ing 10,000 files
per search. inotify gives that strictly: the kernel queues the event inside the writer's
`write`, `rename` or `unlink`, before it returns, so reading the queue (non-blocking) at the start
of a search sees every change made before the search began. `Watcher.changes()` says which
watched folders had something happen in them, or None when it cannot say (the queue overflowed,
a folder appeared, vanished or moved): then the caller rescans everything. Where inotify is
missing (not Linux, no libc symbol, the watch limit reached) `open_watcher` returns None and the
caller keeps its stat scans. Only libc through ctypes: no dependency.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_Q_OVERFLOW, IN_IGNORED = 0x400, 0x800, 0x4000, 0x8000
IN_ONLYDIR, IN_ISDIR = 0x01000000, 0x40000000
MASK = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
        | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of NUL-padded name)
_SELF_GONE = IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED

available = sys.platform.startswith("linux")  # tests turn it off to check the fallback


class Watcher:
    """inotify watches on a set of folders (relative to a root); not thread-safe."""

    def __init__(self, root: Path, libc: ctypes.CDLL, fd: int) -> None:
        self.root = root
        self._libc = libc
        self._fd = fd
        self._folders: dict[int, str] = {}  # watch descriptor -> folder, relative to the root
        self._watched: dict[str, int] = {}
        self.lost = False  # a watch could not be added: changes() no longer tells everything

    def watch(self, folders: Iterable[str]) -> list[str]:
        """Watch each folder (relative; "" is the root) not watched yet; drop those not named any
        more. Returns the folders newly watched (the caller rescans them: a file may have been
        written there before its watch existed)."""
        wanted = set(folders)
        for rel in [r for r in self._watched if r not in wanted]:
            self._libc.inotify_rm_watch(self._fd, self._watched.pop(rel))  # already gone: harmless
        added = []
        for rel in sorted(wanted - set(self._watched)):
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(os.path.join(self.root, rel)), MASK)
            if wd < 0 or self._folders.get(wd, rel) != rel:  # limit reached, or one folder seen by two names
                self.lost = True
                continue
            self._folders[wd], self._watched[rel] = rel, wd
            added.append(rel)
        for wd in [wd for wd, rel in self._folders.items() if rel not in self._watched]:
            del self._folders[wd]
        return added

    def changes(self) -> tuple[set[str], set[str]] | None:
        """The watched folders something happened in since the last call (files created, written,
        renamed, removed, their attributes changed) and the folders created in them (or moved in),
        or None when only a full rescan can tell."""
        folders: set[str] = set()
        created: set[str] = set()
        whole = self.lost
        while True:
            try:
                data = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                return None
            if not data:
                break
            whole = self._parse(data, folders, created) or whole
        return None if whole else (folders, created)

    def _parse(self, data: bytes, folders: set[str], created: set[str]) -> bool:
        """Note the folder of each event in `data` (and each folder created); True when one calls
        for a full rescan."""
        whole, at = False, 0
        while at + _EVENT.size <= len(data):
            wd, mask, _cookie, length = _EVENT.unpack_from(data, at)
            name = data[at + _EVENT.size:at + _EVENT.size + length].rstrip(b"\0")
            at += _EVENT.size + length
            rel = self._folders.get(wd)
            if rel is not None and mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO) and name:
                created.add(os.path.join(rel, os.fsdecode(name)) if rel else os.fsdecode(name))
                continue
            if mask & IN_Q_OVERFLOW or rel is None or mask & IN_ISDIR or mask & _SELF_GONE:
                whole = whole or not (rel is None and mask & IN_IGNORED)  # a dropped watch's last word
                if mask & IN_IGNORED and rel is not None:
                    del self._folders[wd]
                    self._watched.pop(rel, None)
                continue
            folders.add(rel)
        return whole

    def close(self) -> None:
        """Release the inotify descriptor."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:  # a store dropped without closing must not hold one of the user's 128 instances
        self.close()


def open_watcher(root: Path) -> Watcher | None:
    """A Watcher for folders under `root`, or None where inotify cannot be used."""
    if not available:
        return None
    try:
        # The process's own symbols hold libc's: ctypes.util.find_library would run ldconfig (a process
        # started by a server that is meant to start none).
        libc = ctypes.CDLL(None, use_errno=True)
        init = libc.inotify_init1
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):
        return None
    fd = init(os.O_NONBLOCK | os.O_CLOEXEC)
    return Watcher(Path(root), libc, fd) if fd >= 0 else None
