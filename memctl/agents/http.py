"""`memctl serve`: a local HTTP JSON API over the agent tools, sharing one warm store across requests.

Every answer is the CLI's JSON envelope. Only the standard library: http.server is enough for a
loopback service, and the store (not thread-safe) is used under one lock.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from memctl.agents.tools import TOOLS, Defaults, call_tool
from memctl.core import envelope as render
from memctl.errors import EXIT_NOT_FOUND, EXIT_REFUSED, EXIT_USAGE, MemctlError, UsageError

log = logging.getLogger("memctl.agents.http")

# path -> (method, envelope command, tool)
ROUTES: dict[str, tuple[str, str, str]] = {
    "/recall": ("POST", "recall", "memory_recall"),
    "/add": ("POST", "add", "memory_add"),
    "/context": ("POST", "context", "memory_context"),
    "/memories": ("GET", "list", "memory_list"),
    "/query": ("POST", "query", "memory_query"),
}
STATUS_BY_EXIT = {EXIT_USAGE: 400, EXIT_REFUSED: 422, EXIT_NOT_FOUND: 404}
MAX_BODY_BYTES = 1 << 20
LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses; names are never resolved (no network at run time)."""
    host = host.strip("[]")
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind_host(host: str, allow_remote: bool) -> str | None:
    """Refuse a non-loopback address unless allowed; returns a warning when it is allowed."""
    if is_loopback(host):
        return None
    if not allow_remote:
        raise UsageError(f"refusing to listen on {host!r}: memories would be reachable from other machines "
                         "(use --allow-remote if you mean it)", code="remote_refused")
    return f"listening on {host}: anyone who can reach this address can read and write these memories"


def _header_host(value: str) -> str:
    """The host part of a Host or Origin header value (`http://[::1]:8765` -> `::1`)."""
    netloc = urlsplit(value if "//" in value else "//" + value).hostname
    return netloc or ""


class MemoryHTTPServer(ThreadingHTTPServer):
    """The HTTP server: holds the store, its lock, the defaults and the remote policy."""

    daemon_threads = True  # a stuck client must not keep Ctrl-C from stopping the server

    def __init__(self, address: tuple[str, int], store: Any, defaults: Defaults = Defaults(),
                 allow_remote: bool = False, log_requests: bool = True) -> None:
        super().__init__(address, MemoryRequestHandler)
        self.store = store
        self.defaults = defaults
        self.allow_remote = allow_remote
        self.log_requests = log_requests
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        """Where the server listens, as a URL."""
        host, port = (str(part) for part in self.server_address[:2])
        return f"http://{f'[{host}]' if ':' in host else host}:{port}"

    def respond(self, method: str, target: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
        """One request to (HTTP status, envelope); no socket here, so it is easy to reason about."""
        parts = urlsplit(target)
        denied = self.forbidden(headers)
        if denied:
            return 403, render.envelope("http", False, None, [{"code": "forbidden", "message": denied}])
        if parts.path == "/health":
            return self._health(method)
        route = ROUTES.get(parts.path)
        if route is None:
            return 404, render.envelope("http", False, None, [{"code": "not_found", "message": f"no endpoint {parts.path}"}])
        wanted, command, tool = route
        if method != wanted:
            return 405, render.envelope(command, False, None, [{"code": "method_not_allowed",
                                                                "message": f"{parts.path} takes {wanted}"}])
        return self.run_tool(command, tool, lambda: _arguments(method, tool, body, parts.query))

    def forbidden(self, headers: dict[str, str]) -> str | None:
        """Without --allow-remote, only loopback Host and Origin: a web page the user visits cannot
        read or write memories through DNS rebinding or a cross-site POST."""
        if self.allow_remote:
            return None
        host, origin = headers.get("host"), headers.get("origin")
        if host and not is_loopback(_header_host(host)):
            return f"host {host!r} is not a loopback address"
        if origin and not is_loopback(_header_host(origin)):  # "null" too: sandboxed pages send it
            return f"origin {origin!r} is not allowed"
        return None

    def _health(self, method: str) -> tuple[int, dict]:
        from memctl._version import __version__

        if method != "GET":
            return 405, render.envelope("health", False, None, [{"code": "method_not_allowed", "message": "/health takes GET"}])
        return 200, render.envelope("health", True, {"status": "ok", "version": __version__, "root": str(self.store.root)})

    def run_tool(self, command: str, tool: str, arguments: Any) -> tuple[int, dict]:
        """Parse, call the tool under the lock, map memctl errors to HTTP statuses."""
        try:
            args = arguments()
            with self.lock:
                data = call_tool(self.store, tool, args, self.defaults)
            return 200, render.envelope(command, True, data)
        except MemctlError as exc:
            status = STATUS_BY_EXIT.get(exc.exit_code, 500)
            return status, render.envelope(command, False, exc.data, [{"code": exc.code, "message": exc.message}])
        except Exception as exc:  # a bug costs one request, not the server
            log.exception("internal error in %s", command)
            return 500, render.envelope(command, False, None, [{"code": "internal", "message": str(exc)}])
        finally:
            _log_warnings(self.store)


def _arguments(method: str, tool: str, body: bytes, query: str) -> dict:
    """A POST's JSON object, or a GET's query string typed by the tool's schema."""
    if method == "GET":
        return _query_arguments(tool, query)
    try:
        args = json.loads(body.decode("utf-8")) if body.strip() else None
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"the request body is not JSON: {exc}", code="bad_json") from None
    if not isinstance(args, dict):
        raise UsageError("the request body must be a JSON object", code="bad_json")
    return args


def _query_arguments(tool: str, query: str) -> dict:
    properties = TOOLS[tool].properties
    args: dict[str, Any] = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=False).items()}
    for name, value in args.items():
        if properties.get(name, {}).get("type") == "integer":
            try:
                args[name] = int(value)
            except ValueError:
                raise UsageError(f"{name} must be an integer", code="invalid_arguments") from None
    return args


def _content_length(value: str | None) -> int | None:
    """The Content-Length header as a number (0 when absent, None when malformed)."""
    try:
        length = int(value or 0)
    except ValueError:
        return None
    return length if length >= 0 else None


def _log_warnings(store: Any) -> None:
    """Warnings the store gathered (broken files skipped...) go to the log, never to the protocol."""
    for message in store.drain_warnings() if store is not None else ():
        log.warning("%s", message)


class MemoryRequestHandler(BaseHTTPRequestHandler):
    """Reads a request, asks the server for the answer, writes it as JSON."""

    server: MemoryHTTPServer
    server_version = "memctl"
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._answer("GET")

    def do_POST(self) -> None:
        self._answer("POST")

    def _answer(self, method: str) -> None:
        length = _content_length(self.headers.get("Content-Length"))
        if length is None or length > MAX_BODY_BYTES:
            self.close_connection = True  # an unread body would be taken for the next request
            status, code, message = (413, "too_large", "body over 1 MB") if length else (400, "bad_length", "bad Content-Length")
            self._send(status, render.envelope("http", False, None, [{"code": code, "message": message}]))
            return
        body = self.rfile.read(length) if length > 0 else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        self._send(*self.server.respond(method, self.path, body, headers))

    def _send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's signature)
        if self.server.log_requests:
            log.info("%s %s", self.address_string(), format % args)


def make_server(store: Any, host: str = "127.0.0.1", port: int = 8765, *, defaults: Defaults = Defaults(),
                allow_remote: bool = False, log_requests: bool = True) -> MemoryHTTPServer:
    """Bind the API (port 0 picks a free port: read it from `server.server_address`)."""
    warning = check_bind_host(host, allow_remote)
    if warning:
        log.warning("%s", warning)
    try:
        return MemoryHTTPServer((host, port), store, defaults, allow_remote, log_requests)
    except OSError as exc:
        raise MemctlError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", code="bind_failed") from None


def serve(server: MemoryHTTPServer) -> None:
    """Serve until Ctrl-C, then close the socket."""
    try:
        # announced inside the try: a Ctrl-C right after the announcement is still a clean stop
        log.info("listening on %s (Ctrl-C to stop)", server.url)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
