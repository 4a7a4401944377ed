"""The warm server's record, `server.json`: where `memctl serve` answers for this directory.

It lives in this user's cache folder of the directory (store/cachedir.py), never in the shared
folder: a record someone committed or planted there could send the CLI's queries, and its token,
to any URL. A record is read only from a private cache folder, and only when this user owns it.

`memctl serve` writes it once it listens and removes it when it stops; the CLI reads it to decide
whether a command can go to the server. A record left by a server that died is stale: its process
is gone, it names another directory (a copied folder), or memctl.toml changed since it started
(the server would answer with old settings). Lean on purpose (json and os only): a forwarded
command reads it in a fresh process.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from memctl.store.cachedir import folder_cache, private_folder, why_not_private
from memctl.store.locate import CONFIG_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing takes ~6 ms to import; a command forwarded to a warm server runs without it
    from typing import Any

RECORD_NAME = "server.json"
MAX_RECORD_BYTES = 64 * 1024  # a record is a few hundred bytes


def record_path(root: Path) -> Path:
    """Where the record of `root`'s server lives."""
    return folder_cache(root) / RECORD_NAME


def config_stamp(root: Path) -> str:
    """memctl.toml's modification time and size: a server started before an edit must not answer."""
    try:
        st = (root / CONFIG_NAME).stat()
    except OSError:
        return "none"
    return f"{st.st_mtime_ns}-{st.st_size}"


def write_record(root: Path, url: str, version: str, local_key: str | None = None) -> dict[str, Any]:
    """Record that this process serves `root` at `url` (written atomically, readable by its owner
    only); returns the record. `local_key` is what the CLI sends to show its command comes from
    someone who can read this folder, so the server believes the source it gives (as in-process)."""
    from memctl.store.files import write_atomic  # tempfile and fcntl: only the server writes

    private_folder(record_path(root).parent)
    record = {"url": url, "pid": os.getpid(), "host": _hostname(), "root": str(root.resolve()),
              "version": version, "config": config_stamp(root),
              "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if local_key:
        record["local_key"] = local_key
    write_atomic(record_path(root), json.dumps(record, indent=2) + "\n", durable=False, mode=0o600)
    return record


def read_record(root: Path) -> dict[str, Any] | None:
    """The record as written, or None when there is none or it is unreadable (never an error)."""
    path = record_path(root)
    if not _own_file(path) or why_not_private(path.parent) is not None:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.loads(handle.read(MAX_RECORD_BYTES))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("url"), str) or not isinstance(data.get("pid"), int):
        return None
    return data


def _own_file(path: Path) -> bool:
    """True for a regular file (not a link) this user owns."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (st.st_mode & 0o170000) == 0o100000 and (not hasattr(os, "getuid") or st.st_uid == os.getuid())


def remove_record(root: Path, pid: int | None = None) -> bool:
    """Remove the record if it is this process's (or `pid`'s): a newer server's record stays."""
    record = read_record(root)
    if record is None or record["pid"] != (os.getpid() if pid is None else pid):
        return False
    try:
        record_path(root).unlink()
    except OSError:
        return False
    return True


def _hostname() -> str:
    """This machine's name (a pid means something only on the machine that wrote it)."""
    return os.uname().nodename


def process_alive(pid: int) -> bool:
    """True when a process with this id exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return pid > 0  # someone else's process: it exists
    return pid > 0


def stale_reason(record: dict[str, Any], root: Path) -> str | None:
    """Why a record cannot be trusted for `root` (None when it can): the process is gone, it names
    another directory, or memctl.toml changed since the server read it."""
    if record.get("host") == _hostname() and not process_alive(record["pid"]):
        return f"its process {record['pid']} is gone"
    if record.get("root") != str(root.resolve()):
        return f"it serves {record.get('root')!r}"
    if record.get("config") != config_stamp(root):
        return "memctl.toml changed since it started"
    return None


def live_record(root: Path) -> dict[str, Any] | None:
    """The record of a server that can answer for `root` now, or None."""
    record = read_record(root)
    return record if record is not None and stale_reason(record, root) is None else None
