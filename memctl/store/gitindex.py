"""Which files under a memory folder's `.memctl/` git tracks, read from the repository's index file.

`.memctl/` is this checkout's own (locks, journal) and git-ignored, but anyone can `git add -f` it:
whoever clones the repository then gets whatever was committed there (a planted cache is the attack
issue 21 describes). memctl never reads a cache from the folder; `doctor` still reports such files so
they can be removed from the repository. The index is parsed here (versions 2 to 4, bounded) rather
than by running git: a shared folder's own `.git/config` may name a command git would run.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from memctl.store.files import read_bounded
from memctl.store.layout import CACHE_DIR

MAX_INDEX_BYTES = 64 * 1024 * 1024
MAX_PARENTS = 32  # folders walked up looking for the repository
_ENTRY_FIXED = 40  # ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields


def find_index(root: Path) -> tuple[Path, str] | None:
    """The index file of the git repository holding `root`, and `root`'s path inside it ("" at its
    top), or None outside a repository. `.git` may be a folder or a `gitdir:` file (a worktree)."""
    folder = os.path.realpath(root)
    for _ in range(MAX_PARENTS):
        dot_git = os.path.join(folder, ".git")
        gitdir = _gitdir(dot_git)
        if gitdir is not None:
            inside = os.path.relpath(os.path.realpath(root), folder)
            return Path(gitdir) / "index", "" if inside == "." else inside.replace(os.sep, "/") + "/"
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


def _gitdir(dot_git: str) -> str | None:
    if os.path.isdir(dot_git):
        return dot_git
    if not os.path.isfile(dot_git):
        return None
    try:
        text = read_bounded(Path(dot_git), 4096).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    target = text[len("gitdir:"):].strip()
    return os.path.join(os.path.dirname(dot_git), target) if target else None


def index_paths(data: bytes) -> list[str]:
    """The paths an index file lists (SHA-1 or SHA-256 object names); [] for what is not one."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return []
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4) or count > len(data) // 62:
        return []
    for hash_size in (20, 32):
        paths = _entries(data, version, count, hash_size)
        if paths is not None:
            return paths
    return []


def _entries(data: bytes, version: int, count: int, hash_size: int) -> list[str] | None:
    """Every entry's path, or None when the bytes do not parse with this object-name size."""
    paths: list[str] = []
    at, previous = 12, b""
    try:
        for _ in range(count):
            start = at
            at += _ENTRY_FIXED + hash_size
            (flags,) = struct.unpack(">H", data[at:at + 2])
            at += 4 if version >= 3 and flags & 0x4000 else 2
            if version == 4:
                strip, at = _varint(data, at)
                end = data.index(b"\0", at)
                if strip > len(previous):
                    return None
                name = previous[:len(previous) - strip] + data[at:end]
                at = end + 1
            else:
                end = data.index(b"\0", at)
                name = data[at:end]
                at = start + ((end - start) // 8 + 1) * 8  # 1 to 8 NULs pad the entry to a multiple of 8
            if not name or at > len(data):
                return None
            paths.append(name.decode("utf-8", "surrogateescape"))
            previous = name
    except (ValueError, struct.error, IndexError):
        return None
    return paths


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """git's offset encoding (each continuation adds one before shifting)."""
    byte = data[at]
    at += 1
    value = byte & 127
    while byte & 128:
        byte = data[at]
        at += 1
        value = ((value + 1) << 7) | (byte & 127)
        if value > MAX_INDEX_BYTES:
            raise ValueError("varint out of range")
    return value, at


def tracked_state(root: Path) -> list[str]:
    """Paths (relative to `root`) under `.memctl/` that git tracks; [] outside a repository or
    when the index does not read."""
    found = find_index(root)
    if found is None:
        return []
    index, prefix = found
    try:
        data = read_bounded(index, MAX_INDEX_BYTES)
    except OSError:
        return []
    inside = prefix + CACHE_DIR + "/"
    return [path[len(prefix):] for path in index_paths(data) if path.startswith(inside)]
