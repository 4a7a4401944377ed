"""Where a memory folder's caches live: outside the folder, in a directory only this user can write.

A memory folder is shared (through git, a shared disk), so whatever memctl would read back from it
as a cache is someone else's input: whoosh's table of contents is a pickle, the catalog is marshal,
a server record names a URL the CLI sends queries and tokens to. So every cache (the catalog, the
keyword index, the vectors, usage, models, the server record) lives under the user's cache
directory instead, as mypy and ruff keep theirs: `MEMCTL_CACHE_DIR`, else `$XDG_CACHE_HOME/memctl`,
else `~/.cache/memctl`, one folder per memory folder, named after it and keyed by its real path.
A cache folder that is a link, someone else's, or writable by others is refused, never read.

Lean on purpose (the standard library only, not even typing): a command forwarded to a warm server
finds the server's record through it in a fresh process.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

try:  # the builtin module: hashlib costs a forwarded command ~3 ms more to import
    from _sha256 import sha256  # type: ignore[import-not-found, unused-ignore]
except ImportError:  # pragma: no cover  (Python 3.12+ names it _sha2)
    from hashlib import sha256

CACHE_ENV = "MEMCTL_CACHE_DIR"
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def cache_base() -> Path:
    """The user's memctl cache directory: MEMCTL_CACHE_DIR, else $XDG_CACHE_HOME/memctl, else
    ~/.cache/memctl (with no home at all, a per-user folder in the system's temp directory)."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "memctl"
    home = os.path.expanduser("~")
    if home != "~" and os.path.isabs(home):
        return Path(home) / ".cache" / "memctl"
    import tempfile  # rarely needed, and slow to import

    return Path(tempfile.gettempdir()) / f"memctl-{_uid()}"


def folder_cache(root: Path) -> Path:
    """The cache folder of the memory folder `root`: `<base>/<name>-<hash of its real path>`
    (not created; `private_folder` creates and checks it)."""
    real = os.path.realpath(root)
    name = "".join(c if c in _NAME_CHARS else "-" for c in os.path.basename(real))[:40].strip(".-") or "root"
    return cache_base() / f"{name}-{sha256(real.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}"


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0


def why_not_private(path: Path) -> str | None:
    """Why `path` cannot hold this user's caches (None when it can): it is a link, not a folder,
    someone else's, or writable by other users."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "it does not exist"
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISLNK(st.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a folder"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"it belongs to user id {st.st_uid}"
    if os.name == "posix" and st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "other users can write to it"
    return None


def private_folder(path: Path) -> Path:
    """`path`, created (mode 0700) if missing; StoreError when it exists but is not private."""
    from memctl.errors import StoreError

    try:
        os.makedirs(path.parent, exist_ok=True)
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise StoreError(f"cannot create the cache folder {path}: {exc.strerror or exc}", code="cache_folder") from None
    reason = why_not_private(path)
    if reason is not None:
        raise StoreError(f"memctl will not keep caches in {path}: {reason} (set {CACHE_ENV} to a folder of your own)",
                         code="cache_not_private")
    return path
