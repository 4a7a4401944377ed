"""MCP over streamable HTTP at `/mcp` on `memctl serve`: the same tools, resources and prompts as
`memctl mcp`, on the official SDK's streamable-HTTP transport (stateless, JSON answers).

Every request is let in exactly as a REST request is (guard.authenticate: the token, and Host and
Origin on loopback) and runs as that request's caller: its actor (a MEMCTL_TOKENS token's person,
else the server's --actor), the server's defaults and whether its source is believed. The tools use
the served store under the same lock as the REST routes, one call at a time. Only `memctl serve`
imports this module (the SDK is the `server` extra).
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Any, AsyncIterator

from fastapi import HTTPException
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from memctl.agents.guard import authenticate, failure, send_envelope
from memctl.agents.mcp import MemoryTools, build_server
from memctl.agents.tools import Caller

PATH = "/mcp"
_CALLER: ContextVar[Caller] = ContextVar("memctl_mcp_caller")


class McpEndpoint:
    """The ASGI app at /mcp: authenticate, then hand the request to the SDK's session manager with
    the caller in a context variable (the SDK runs each handler in the context of the request that
    sent its message)."""

    def __init__(self, served: Any) -> None:
        self.served = served
        self.tools = MemoryTools(lambda: served.store, lock=served.lock, acting=self._acting)
        self.manager = StreamableHTTPSessionManager(build_server(self.tools), json_response=True, stateless=True)

    def _acting(self) -> tuple[Any, Caller]:
        caller = _CALLER.get()
        return self.served.for_actor(caller.actor), caller

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            caller = authenticate(Request(scope, receive))
        except HTTPException as exc:
            code = {401: "unauthorized", 403: "forbidden"}.get(exc.status_code, "http_error")
            answer = failure("mcp", code, str(exc.detail))
            await send_envelope(send, exc.status_code, answer, dict(exc.headers or {}))
            return
        token = _CALLER.set(caller)
        try:
            await self.manager.handle_request(scope, receive, send)
        finally:
            _CALLER.reset(token)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The session manager's task group, for the server's lifespan."""
        async with self.manager.run():
            yield
