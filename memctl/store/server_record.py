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

from memctl.core import jsonsafe
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


def write_record(root: Path, url: str, version: str, local_key: str | None = None,
                 auto: bool = False) -> dict[str, Any]:
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
    if auto:
        record["auto"] = True  # started by the CLI (`[server] auto`): answers only requests with the key
    write_atomic(record_path(root), json.dumps(record, indent=2) + "\n", durable=False, mode=0o600)
    return record


def read_record(root: Path) -> dict[str, Any] | None:
    """The record as written, or None when there is none or it is unreadable (never an error)."""
    path = record_path(root)
    if not _own_file(path) or why_not_private(path.parent) is not None:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            data = jsonsafe.loads(handle.read(MAX_RECORD_BYTES))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("url"), str) or not isinstance(data.get("pid"), int):
        return None
    return data


def _own_file(path: Path) -> bool:
    """True for a regular file (not a link) this user owns, that no one else can read or write."""
    return _file_problem(path) is None


def _file_problem(path: Path) -> str | None:
    """Why `path` is not a record this user wrote (None when it is): missing, not a regular file,
    someone else's, or open to other users (its key would leak)."""
    try:
        st = os.lstat(path)
    except OSError:
        return "it does not exist"
    if (st.st_mode & 0o170000) != 0o100000:
        return "it is not a regular file"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"it belongs to user id {st.st_uid}"
    if os.name == "posix" and st.st_mode & 0o077:
        return f"other users can read or write it (mode {st.st_mode & 0o777:o})"
    return None


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
    return pid > 0 and not _zombie(pid)


def _zombie(pid: int) -> bool:
    """True for a process that has exited and waits to be reaped (Linux: its state in /proc is Z)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read(512).rpartition(b")")[2].split()[:1] == [b"Z"]
    except OSError:
        return False


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
    return examine(root)[0]


def examine(root: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(the record of a server this user started for `root` that answers now, or None; why a record
    that is there was ignored, when that is news: one that names a server this user did not start).
    A record whose process is gone is removed; one left by an older config is left to its server."""
    path = record_path(root)
    if not os.path.lexists(path):
        return None, None
    problem = _file_problem(path) or why_not_private(path.parent)
    record = read_record(root) if problem is None else None
    if record is None:
        return None, f"ignored the server record {path}: {problem or 'it is not a record memctl wrote'}"
    if record.get("host") == _hostname() and not process_alive(record["pid"]):
        remove_record(root, record["pid"])  # a server that died without cleaning up
        return None, None
    if stale_reason(record, root) is not None:
        return None, None
    problem = untrusted_reason(record)
    return (None, f"ignored the server record {path}: {problem}") if problem else (record, None)


def untrusted_reason(record: dict[str, Any]) -> str | None:
    """Why the server a record names may not be one this user started (None when it is): it is not
    on this machine's loopback, its process is someone else's, or (where /proc tells) that process
    does not hold the socket listening at the record's port. Queries and the key go to no other."""
    url = record["url"]
    host, _, port = url[len("http://"):].rstrip("/").rpartition(":") if url.startswith("http://") else ("", "", "")
    if host.strip("[]") not in LOOPBACK or not port.isdigit():
        return f"{url!r} is not an http:// address on this machine's loopback"
    if record.get("host") != _hostname():
        return f"it was written on {record.get('host')!r}"
    pid = record["pid"]
    if not owned_process(pid):
        return f"its process {pid} is not this user's"
    if not _holds_listener(pid, int(port)):
        return f"its process {pid} does not listen on port {port}"
    return None


LOOPBACK = ("127.0.0.1", "::1", "localhost")


def owned_process(pid: int) -> bool:
    """True when process `pid` runs as this user (where /proc tells; else when it can be signalled)."""
    try:
        return os.stat(f"/proc/{pid}").st_uid == os.getuid()
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except (OSError, OverflowError, ValueError):
        return False
    return True


def _holds_listener(pid: int, port: int) -> bool:
    """True when process `pid` holds a socket listening on TCP `port` (Linux: /proc/net and the
    process's open files); True where /proc does not tell (the other checks then stand alone)."""
    inodes = _listening_inodes(port)
    if inodes is None:
        return True
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}") in inodes:
                return True
        except OSError:
            continue
    return False


def _listening_inodes(port: int) -> set[str] | None:
    """`socket:[INODE]` of every TCP socket listening on `port` (IPv4 and IPv6), or None without /proc."""
    wanted, found, readable = f":{port:04X}", set(), False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as handle:
                lines = handle.read().splitlines()[1:]
        except OSError:
            continue
        readable = True
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "0A" and fields[1].endswith(wanted):  # 0A: LISTEN
                found.add(f"socket:[{fields[9]}]")
    return found if readable else None
