"""Who may talk to `memctl serve`, and the HTTP edges FastAPI leaves open: body limits, HEAD, OPTIONS.

On a loopback address the server checks Host and Origin, so a web page the user visits cannot
read or write memories through DNS rebinding or a cross-site request. On any other address it
needs a token (MEMCTL_TOKEN, sent as `Authorization: Bearer`, or MEMCTL_TOKENS, one token per
person: `name=token,name=token`), and refuses to start without one; a token, when set, is
required on loopback too. `authenticate` is the one place a request's identity is decided: the
actor is the person a MEMCTL_TOKENS token names, else the server's `--actor` (MEMCTL_ACTOR), and
every request runs as that actor (roles and visibility apply). The ASGI middleware bounds request bodies
(chunked ones too, counted as they arrive), answers HEAD like GET without the body, and OPTIONS
with the methods a path allows, each as the JSON envelope.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable
from urllib.parse import urlsplit

from fastapi import HTTPException, Request

from memctl.agents.tools import Caller, Defaults
from memctl.core.envelope import envelope
from memctl.core.jsonsafe import MAX_DEPTH, too_deep
from memctl.errors import UsageError

LOOPBACK_NAMES = ("localhost",)
MAX_BODY_BYTES = 1 << 20
MIN_TOKEN_LENGTH = 16
LOCAL_KEY_HEADER = "Memctl-Local-Key"
Message = dict[str, Any]
ASGIApp = Callable[[Message, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]]


@dataclass(frozen=True)
class Access:
    """How requests are let in: the token (None: none needed), whether Host/Origin must be loopback,
    and the defaults and trust every authenticated caller gets."""

    token: str | None = None
    loopback_only: bool = True
    defaults: Defaults = field(default_factory=Defaults)
    actor: str | None = None  # the server's --actor: who a request acts for unless its token names someone
    tokens: tuple[tuple[str, str], ...] = ()  # (token, actor) from MEMCTL_TOKENS
    trust_source: bool = False  # --trust-source: believe the source every client claims
    local_key: str | None = None  # in server.json: a forwarded CLI command that sends it is believed too

    @property
    def guarded(self) -> bool:
        """Whether requests need a bearer token."""
        return bool(self.token or self.tokens)


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses; names are never resolved (no network at run time)."""
    host = host.strip("[]")
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind_host(host: str, token: str | None, tokens: tuple[tuple[str, str], ...] = ()) -> None:
    """A non-loopback address needs a token that is hard to guess; else the server does not start."""
    if is_loopback(host):
        return
    if not (token or tokens):
        raise UsageError(f"refusing to listen on {host!r} without a token: memories would be open to anyone "
                         "who can reach it (set MEMCTL_TOKEN or MEMCTL_TOKENS; clients send it as "
                         "Authorization: Bearer)", code="remote_refused")
    if token and len(token) < MIN_TOKEN_LENGTH:
        raise UsageError(f"MEMCTL_TOKEN is too short to guard {host!r} (at least {MIN_TOKEN_LENGTH} characters)",
                         code="weak_token")


def parse_tokens(text: str | None) -> tuple[tuple[str, str], ...]:
    """MEMCTL_TOKENS (`name=token,name=token`) as (token, actor) pairs; UsageError naming a bad entry.
    Every token is at least MIN_TOKEN_LENGTH characters and names one person."""
    from memctl.core.models import name_arg

    pairs: list[tuple[str, str]] = []
    for entry in (text or "").split(","):
        if not entry.strip():
            continue
        name, eq, token = (part.strip() for part in entry.partition("="))
        if not eq or not name:
            raise UsageError("MEMCTL_TOKENS: each entry is name=token, separated by commas", code="bad_tokens")
        name_arg(name, "actor")
        if len(token) < MIN_TOKEN_LENGTH:
            raise UsageError(f"MEMCTL_TOKENS: the token of {name!r} is too short (at least {MIN_TOKEN_LENGTH} "
                             "characters)", code="weak_token")
        if any(hmac.compare_digest(token.encode(), t.encode()) for t, _ in pairs):
            raise UsageError(f"MEMCTL_TOKENS: the token of {name!r} is another person's too", code="bad_tokens")
        pairs.append((token, name))
    return tuple(pairs)


def _header_host(value: str) -> str:
    """The host part of a Host or Origin header value (`http://[::1]:8765` -> `::1`)."""
    return urlsplit(value if "//" in value else "//" + value).hostname or ""


def authenticate(request: Request) -> Caller:
    """The caller of a request, or 401/403: the token if one is set, loopback Host and Origin on loopback."""
    access: Access = request.app.state.access
    if access.loopback_only:
        host, origin = request.headers.get("host"), request.headers.get("origin")
        if host and not is_loopback(_header_host(host)):
            raise HTTPException(403, f"host {host!r} is not a loopback address")
        if origin and not is_loopback(_header_host(origin)):  # "null" too: sandboxed pages send it
            raise HTTPException(403, f"origin {origin!r} is not allowed")
    actor = access.actor
    if access.guarded:
        actor = _bearer_actor(request, access)
    return Caller(identity="token" if access.guarded else "local", defaults=access.defaults,
                  trust_source=access.trust_source, actor=actor)


def sent_local_key(request: Request, access: Access) -> bool:
    """Whether the request carries the key of the folder's server.json (the CLI forwarding a command)."""
    sent = request.headers.get(LOCAL_KEY_HEADER, "")
    return bool(access.local_key and sent) and hmac.compare_digest(sent.encode(), str(access.local_key).encode())


class KeyOnly:
    """ASGI middleware of a server the CLI started by itself (`[server] auto`): it answers only
    requests carrying the key of its record, which only this user can read (a private cache
    folder, mode 0600), so no other local user reaches the memories through it; 401 otherwise."""

    def __init__(self, app: Any, key: str) -> None:
        self.app, self.key = app, key.encode()

    async def __call__(self, scope: Message, receive: Callable[[], Awaitable[Message]],
                       send: Callable[[Message], Awaitable[None]]) -> None:
        if scope["type"] == "http":
            sent = dict(scope.get("headers") or ()).get(LOCAL_KEY_HEADER.lower().encode(), b"")
            if not hmac.compare_digest(sent, self.key):
                await send_envelope(send, 401, failure("http", "unauthorized", "this server answers only the memctl "
                                                       "CLI of the user who started it"))
                return
        await self.app(scope, receive, send)


def _bearer_actor(request: Request, access: Access) -> str | None:
    """The actor of the request's bearer token (MEMCTL_TOKENS names one; MEMCTL_TOKEN the server's
    --actor), or 401. Every token is compared, so the time taken says nothing about which matched."""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    sent = given.strip().encode()
    matched = [name for token, name in access.tokens if hmac.compare_digest(sent, token.encode())]
    if scheme.lower() == "bearer" and access.token and hmac.compare_digest(sent, access.token.encode()):
        matched.append(access.actor or "")
    if scheme.lower() != "bearer" or not matched:
        raise HTTPException(401, "a valid token is required (Authorization: Bearer $MEMCTL_TOKEN)",
                            headers={"WWW-Authenticate": "Bearer"})
    return matched[0] or None


def allowed_methods(app: Any, path: str) -> list[str]:
    """Every method some route accepts at `path` (HEAD with GET; OPTIONS always), for `Allow`."""
    methods: set[str] = set()
    for route in app.router.routes:
        regex = getattr(route, "path_regex", None)
        if regex is not None and regex.match(path):
            methods |= set(getattr(route, "methods", None) or ())
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods | {"OPTIONS"}) if methods else []


async def send_envelope(send: Callable[[Message], Awaitable[None]], status: int, payload: dict[str, Any],
                        headers: dict[str, str] | None = None, body: bool = True) -> None:
    """One JSON envelope as a complete HTTP response (no body for HEAD, Content-Length kept)."""
    data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data if body else b""})


def failure(command: str, code: str, message: str, data: Any = None) -> dict[str, Any]:
    """The envelope of a failed request."""
    return envelope(command, False, data, [{"code": code, "message": message}])


class HttpEdges:
    """ASGI middleware around the FastAPI app (it reads the app's routes): request bodies over the
    limit get 413 (before or while they arrive), HEAD is GET without the body, OPTIONS lists the
    allowed methods, JSON nested deeper than MAX_DEPTH gets 400; all answered with the envelope."""

    def __init__(self, app: Any, max_body: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Message, receive: Callable[[], Awaitable[Message]],
                       send: Callable[[Message], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, head = scope["method"], scope["method"] == "HEAD"
        declared = dict(scope.get("headers") or ()).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > self.max_body:
            await send_envelope(send, 413, failure("http", "too_large", f"request body over {self.max_body} bytes"),
                                {"Connection": "close"}, body=not head)
            return
        body = await self._read_body(receive)
        if body is None:
            await send_envelope(send, 413, failure("http", "too_large", f"request body over {self.max_body} bytes"),
                                {"Connection": "close"}, body=not head)
            return
        if method == "OPTIONS":
            await self._options(scope, send)
            return
        if too_deep(body):  # FastAPI's JSON parser would recurse that deep (a RecursionError, a 500)
            await send_envelope(send, 400, failure("http", "invalid_arguments", "request body: JSON nested deeper "
                                                   f"than {MAX_DEPTH} levels"), body=not head)
            return
        replay = _replay(body, receive)
        if head:
            await self.app({**scope, "method": "GET"}, replay, _without_body(send))
        else:
            await self.app(scope, replay, send)

    async def _read_body(self, receive: Callable[[], Awaitable[Message]]) -> bytes | None:
        """The whole body (chunked or not), or None once it passes the limit."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return b"".join(chunks)  # the client went away: the app sees an empty body
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body"):
                return b"".join(chunks)

    async def _options(self, scope: Message, send: Callable[[Message], Awaitable[None]]) -> None:
        allow = allowed_methods(self.app, scope["path"])
        if not allow:
            await send_envelope(send, 404, failure("http", "not_found", f"no endpoint {scope['path']}"))
            return
        await send_envelope(send, 200, envelope("options", True, {"path": scope["path"], "allow": allow}),
                            {"Allow": ", ".join(allow)})


def _replay(body: bytes, receive: Callable[[], Awaitable[Message]]) -> Callable[[], Awaitable[Message]]:
    """A receive() that hands the app the body already read, then waits on the real one."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay


def _without_body(send: Callable[[Message], Awaitable[None]]) -> Callable[[Message], Awaitable[None]]:
    """A send() for HEAD: the GET's status and headers (Content-Length too), no body bytes."""

    async def send_head(message: Message) -> None:
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)

    return send_head
