"""Running `memctl serve`: bind, warm the store, record the address, serve with uvicorn, clean up.

The address goes into `.memctl/server.json` only once the model is loaded, so the CLI forwards to
a server that is ready; the record is removed when the server stops (Ctrl-C or SIGTERM). A record
whose process still runs is another server for the same directory, and this one does not start.
A server on a database with no folder (`serve --store URL`) writes no record: several of them may
serve one database, and the CLI does not forward to them. A folder's server holds the directory's
serve lock (store/serverlock.py) from before warming up until it exits, so there is one per
directory even while one is starting; `idle_minutes` stops it after so long with no request.
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import threading
import time
from dataclasses import replace
from typing import Any, Callable

import uvicorn

from memctl._version import __version__
from memctl.agents.guard import Access, HttpEdges, KeyOnly, check_bind_host, is_loopback, parse_tokens
from memctl.agents.http import create_app
from memctl.errors import MemctlError
from memctl.store import server_record, serverlock

log = logging.getLogger("memctl.agents.serve")


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0 picks a free one); a taken port is a one-line error."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    # proto TCP, not 0: asyncio turns Nagle off only on sockets that say so, and with Nagle on, a
    # kept-alive client waits ~40 ms (delayed ACK) for every response's second segment
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise MemctlError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", code="bind_failed") from None
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    """The URL a local client uses for this socket (a wildcard address is reached via loopback)."""
    host, port = sock.getsockname()[:2]
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1" if host == "0.0.0.0" else "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def refuse_if_running(root: Any) -> None:
    """Another live server recorded for this directory: do not start a second one."""
    record = server_record.read_record(root)
    if record is None or server_record.stale_reason(record, root) is not None:
        return
    try:
        with socket.create_connection(_address(record["url"]), timeout=1.0):
            pass
    except OSError:
        return  # its process lives on but nothing answers there: a stale record
    raise MemctlError(f"memctl serve (pid {record['pid']}) already answers for this directory at {record['url']}",
                      code="already_serving")


def _address(url: str) -> tuple[str, int]:
    netloc = url.split("//", 1)[-1]
    host, _, port = netloc.rpartition(":")
    return host.strip("[]"), int(port)


def serve(store: Any, host: str, port: int, token: str | None, access_defaults: Any,
          announce: Callable[[str], None] = lambda url: None, tokens: str | None = None,
          trust_source: bool = False, idle_minutes: float | None = None, lock_fd: int | None = None) -> str:
    """Serve until Ctrl-C or SIGTERM (or `idle_minutes` with no request); returns the URL it served.
    Requests act as the store's actor, or as the person their MEMCTL_TOKENS token (`tokens`) names;
    the `source` a client claims is believed with `trust_source`, and for the CLI's forwarded
    commands, which prove they come from the folder by the key in server.json. `lock_fd`: the
    directory's serve lock, taken by the CLI that started this server by itself (cli/autostart.py):
    such a server answers only requests with that key, and stops when memctl.toml changes. Raises
    MemctlError before serving (a refused host, a bad token list, a taken port, another server for
    this directory)."""
    named = parse_tokens(tokens)
    check_bind_host(host, token, named)
    folder = store.root  # None: a database with no folder, so no record to keep
    auto = lock_fd is not None
    if folder is not None:
        refuse_if_running(folder)
        lock_fd = hold_lock(folder, lock_fd)
    try:
        return _serve_locked(store, host, port, Access(token=token, loopback_only=is_loopback(host),
                                                       defaults=access_defaults, actor=store.actor, tokens=named,
                                                       trust_source=trust_source), announce, idle_minutes, auto)
    finally:
        if lock_fd is not None:
            os.close(lock_fd)


def hold_lock(folder: Any, given: int | None) -> int:
    """The directory's serve lock, held by this process from now on (`given`: handed over already
    locked); MemctlError when another server holds it (one that is still starting has no record yet)."""
    fd = given if given is not None else serverlock.take(folder)
    if fd is None:
        pid = serverlock.holder(folder)
        raise MemctlError(f"memctl serve{f' (pid {pid})' if pid else ''} already answers for this directory "
                          "(or is starting; `memctl serve --stop` stops it)", code="already_serving")
    serverlock.write_holder(fd, os.getpid())
    return fd


def _serve_locked(store: Any, host: str, port: int, access: Access, announce: Callable[[str], None],
                  idle_minutes: float | None, auto: bool) -> str:
    folder = store.root
    sock = bind(host, port)
    url = url_of(sock)
    local_key = secrets.token_urlsafe(24) if folder is not None else None
    app: Any = HttpEdges(create_app(store, replace(access, local_key=local_key)))
    if auto and local_key:
        app = KeyOnly(app, local_key)
    watched = Watched(app)
    server = uvicorn.Server(server_config(watched))
    stop = threading.Event()
    try:
        store.warm_up()
        if folder is not None:
            server_record.write_record(folder, url, __version__, local_key, auto=auto)
        announce(url)
        watcher = Watcher(server, watched, idle_minutes, folder if auto else None, stop)
        threading.Thread(target=watcher.run, name="memctl-serve-watch", daemon=True).start()
        _run(server, sock)
    finally:
        stop.set()
        if folder is not None:
            server_record.remove_record(folder)
        store.flush()
        sock.close()
    return url


class Watched:
    """ASGI middleware that counts requests in flight and notes when the last one ended."""

    def __init__(self, app: Any) -> None:
        self.app, self.active, self.last = app, 0, time.monotonic()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.active += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.active -= 1
            self.last = time.monotonic()

    def idle_seconds(self) -> float:
        """How long the server has had no request (0 while one runs)."""
        return 0.0 if self.active else time.monotonic() - self.last

    def start_clock(self) -> None:
        """Count idle time from now: the server answers from now on (its warm-up is not idleness)."""
        self.last = time.monotonic()


class Watcher:
    """Stops the server once it has been idle for `idle_minutes`, and a server the CLI started
    (`folder` given) once memctl.toml changes or its record is gone or another's: the CLI would
    no longer forward to it."""

    def __init__(self, server: uvicorn.Server, watched: Watched, idle_minutes: float | None, folder: Any,
                 stop: threading.Event) -> None:
        self.server, self.watched, self.folder, self.stop = server, watched, folder, stop
        self.idle = idle_minutes * 60 if idle_minutes else None
        self.config = server_record.config_stamp(folder) if folder is not None else None

    def run(self) -> None:
        interval = min(5.0, max(0.2, self.idle / 20)) if self.idle else 5.0
        if not self.wait_started(interval):
            return
        self.watched.start_clock()
        while not self.stop.wait(interval):
            reason = self.reason()
            if reason:
                log.info("stopping: %s", reason)
                self.server.should_exit = True
                return

    def wait_started(self, interval: float) -> bool:
        """Whether uvicorn came to answer (False: the server stopped first). A loaded machine can take
        longer to warm up and start than `idle_minutes`: a server idle from its birth would stop before
        it ever answered."""
        while not self.server.started:
            if self.stop.wait(min(interval, 0.05)):
                return False
        return True

    def reason(self) -> str | None:
        """Why the server should stop now, or None."""
        if self.idle is not None and self.watched.idle_seconds() >= self.idle:
            return f"no request for {self.idle / 60:g} minutes"
        if self.folder is None:
            return None
        if server_record.config_stamp(self.folder) != self.config:
            return "memctl.toml changed (a new server reads it)"
        record = server_record.read_record(self.folder)
        if record is None or record["pid"] != os.getpid():
            return "its record is gone or names another server"
        return None


def make_server(app: Any) -> uvicorn.Server:
    """uvicorn for the app, behind guard.HttpEdges."""
    return uvicorn.Server(server_config(HttpEdges(app)))


def server_config(asgi: Any) -> uvicorn.Config:
    """uvicorn's settings for an ASGI app: h11 (strict parsing, chunked bodies), the app's lifespan
    (MCP's session manager runs in it), and no logging setup of its own (memctl's logger reports;
    uvicorn's stay quiet)."""
    return uvicorn.Config(asgi, http="h11", loop="asyncio", lifespan="on", log_config=None,
                          log_level="warning", access_log=False, server_header=False)


def _run(server: uvicorn.Server, sock: socket.socket) -> None:
    """uvicorn's graceful shutdown on Ctrl-C and SIGTERM; afterwards it re-raises the signal, which
    here is a KeyboardInterrupt either way, so the caller's cleanup runs."""
    main = threading.current_thread() is threading.main_thread()  # signals exist only there
    previous = signal.signal(signal.SIGTERM, _interrupt) if main else None
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
