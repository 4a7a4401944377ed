"""Running `memctl serve`: bind, warm the store, record the address, serve with uvicorn, clean up.

The address goes into `.memctl/server.json` only once the model is loaded, so the CLI forwards to
a server that is ready; the record is removed when the server stops (Ctrl-C or SIGTERM). A record
whose process still runs is another server for the same directory, and this one does not start.
A server on a database with no folder (`serve --store URL`) writes no record: several of them may
serve one database, and the CLI does not forward to them.
"""

from __future__ import annotations

import logging
import secrets
import signal
import socket
import threading
from typing import Any, Callable

import uvicorn

from memctl._version import __version__
from memctl.agents.guard import Access, HttpEdges, check_bind_host, is_loopback, parse_tokens
from memctl.agents.http import create_app
from memctl.errors import MemctlError
from memctl.store import server_record

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
          trust_source: bool = False) -> str:
    """Serve until Ctrl-C or SIGTERM; returns the URL it served. Requests act as the store's actor,
    or as the person their MEMCTL_TOKENS token (`tokens`) names; the `source` a client claims is
    believed with `trust_source`, and for the CLI's forwarded commands, which prove they come from
    the folder by the key in server.json. Raises MemctlError before serving (a refused host, a bad
    token list, a taken port, another server for this directory)."""
    named = parse_tokens(tokens)
    check_bind_host(host, token, named)
    folder = store.root  # None: a database with no folder, so no record to keep
    if folder is not None:
        refuse_if_running(folder)
    sock = bind(host, port)
    url = url_of(sock)
    local_key = secrets.token_urlsafe(24) if folder is not None else None
    app = create_app(store, Access(token=token, loopback_only=is_loopback(host), defaults=access_defaults,
                                   actor=store.actor, tokens=named, trust_source=trust_source, local_key=local_key))
    try:
        store.warm_up()
        if folder is not None:
            server_record.write_record(folder, url, __version__, local_key)
        announce(url)
        _run(make_server(app), sock)
    finally:
        if folder is not None:
            server_record.remove_record(folder)
        store.flush()
        sock.close()
    return url


def make_server(app: Any) -> uvicorn.Server:
    """uvicorn for the app, behind guard.HttpEdges: h11 (strict parsing, chunked bodies), the app's
    lifespan (MCP's session manager runs in it), and no logging setup of its own (memctl's logger
    reports; uvicorn's stay quiet)."""
    config = uvicorn.Config(HttpEdges(app), http="h11", loop="asyncio", lifespan="on", log_config=None,
                            log_level="warning", access_log=False, server_header=False)
    return uvicorn.Server(config)


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
