"""`[server] auto = true`: the first command that loads the model starts a warm server for the folder.

`maybe_start` runs when a recall, context or add finds no server to forward to. If the folder asks
for it (memctl.toml `[server] auto`, overridden by MEMCTL_AUTO_SERVE=0/1; off when CI is set), it
takes the directory's serve lock (store/serverlock.py: a server already running or starting holds
it, so two racing commands start one), and starts `memctl serve --port 0 --idle MINUTES` detached:
its own session, no terminal, stdin from /dev/null, stdout and stderr appended to `serve.log` in
this user's cache folder of the directory, the locked file handed to it. It does not wait: the
command that started it answers in-process; the server writes its record once warm, and later
commands forward to it. The server runs with no actor and no token of the command that started
it (each forwarded command names its own actor), answers only requests that carry the key of its
private record, and exits after `idle_minutes` with no request, or when memctl.toml changes.
Lean: os, and subprocess only when a server is started; the files are store/serverlock.py's.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from memctl.store import serverlock

ENV = "MEMCTL_AUTO_SERVE"
LOCK_FD_ENV = "_MEMCTL_AUTOSERVE_FD"  # tells `memctl serve` it was started here, and which fd is its lock
RETRY_SECONDS = 30.0  # a server that died younger than this is not started again before it has passed
DEFAULT_IDLE_MINUTES = 15.0
# the starting command's identity and one-off settings are not the server's
DROPPED_ENV = ("MEMCTL_ACTOR", "MEMCTL_TOKEN", "MEMCTL_TOKENS", "MEMCTL_SERVER", "MEMCTL_NOW", "MEMCTL_DIR",
               "MEMCTL_STORE", ENV)


def wanted(root: Path) -> float | None:
    """The idle minutes of the server `root` asks to be started, or None when it asks for none."""
    given = os.environ.get(ENV, "").strip()
    if given == "0" or (not given and os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")):
        return None
    settings = serverlock.server_settings(root)
    if given != "1" and settings.get("auto") is not True:
        return None
    idle = settings.get("idle_minutes", DEFAULT_IDLE_MINUTES)
    if isinstance(idle, bool) or not isinstance(idle, (int, float)) or not 0.05 <= idle <= 24 * 60:
        return DEFAULT_IDLE_MINUTES  # the in-process run reports a bad value in its own words
    return float(idle)


def maybe_start(root: Path) -> int | None:
    """Start the folder's server in the background if it asks for one and none runs or starts: the
    server's pid, or None when none was started. Never raises, never waits for it."""
    if os.name != "posix":
        return None
    try:
        idle = wanted(root)
        if idle is None or serverlock.started_within(root, RETRY_SECONDS):
            return None
        fd = serverlock.take(root)
        if fd is None:
            return None  # a server of this directory runs or is starting
        try:
            return _spawn(root, fd, idle)
        finally:
            os.close(fd)  # the server holds its own copy
    except Exception:  # a warm path is a bonus: the command runs in-process regardless
        return None


def _spawn(root: Path, fd: int, idle: float) -> int:
    """`memctl -d ROOT serve --port 0 --idle IDLE`, detached, its output in the log; its pid."""
    import subprocess

    serverlock.note_start(root)
    env = {name: value for name, value in os.environ.items() if name not in DROPPED_ENV}
    env[LOCK_FD_ENV] = str(fd)
    with serverlock.open_log(root, f"started by pid {os.getpid()}") as log:
        proc = subprocess.Popen([sys.executable, "-m", "memctl", "-d", str(root.resolve()), "serve", "--port", "0",
                                 "--idle", f"{idle:g}"], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                env=env, cwd="/", pass_fds=(fd,), start_new_session=True)
    serverlock.write_holder(fd, proc.pid)
    return proc.pid


def stop(root: Path, wait_seconds: float = 30.0) -> dict:
    """Stop the server of `root` (started by hand or by itself) with SIGTERM and wait until it has
    exited and let go of the directory's lock: {"root", "stopped": its pid or None when none ran, "url"}."""
    import signal

    from memctl.errors import MemctlError
    from memctl.store import server_record

    record, _ = server_record.examine(root)
    pid = serverlock.holder(root)  # the lock's holder, not what a record names: it is alive and ours
    done = {"root": str(root), "stopped": pid, "url": record["url"] if record and record["pid"] == pid else None}
    if pid is None:
        return done
    if pid == os.getpid() or not server_record.owned_process(pid):
        raise MemctlError(f"the serve lock of {root} names process {pid}, which is not a server of yours",
                          code="not_stopped")
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_seconds
    while server_record.process_alive(pid) or not serverlock.free(root):
        if time.monotonic() > deadline:
            raise MemctlError(f"memctl serve (pid {pid}) did not stop within {wait_seconds:g} s", code="not_stopped")
        time.sleep(0.05)
    return done
