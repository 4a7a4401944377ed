"""Memory tools for agents, and `memctl mcp`: those tools over the Model Context Protocol (stdio).

The tools (recall, add, context, forget, list) are plain functions over one open MemoryStore that
return the same data as the CLI's --json; `memctl serve` (memctl.agents.http) exposes the same tools over
HTTP. The protocol is newline-delimited JSON-RPC 2.0, written by hand to add no dependency.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import IO, Any, Callable

from memctl.agents.tools import TOOLS, Defaults, InvalidArguments, call_tool
from memctl.errors import MemctlError

log = logging.getLogger("memctl.agents.mcp")

PROTOCOL_VERSIONS = ("2025-06-18", "2025-03-26", "2024-11-05")  # newest first: ours when the client's is unknown
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603


# -- the protocol -------------------------------------------------------------------

class RpcError(Exception):
    """A JSON-RPC error response."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _error(msg_id: Any, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def tool_result(text: str, is_error: bool = False) -> dict:
    """An MCP tools/call result holding one text item."""
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


class McpServer:
    """Dispatches JSON-RPC messages to the tools; the store is opened on first use and then kept open,
    so the model and caches stay warm between calls (and a missing directory is an error per call,
    not a server that cannot start)."""

    def __init__(self, opener: Callable[[], Any], defaults: Defaults = Defaults()) -> None:
        self.opener = opener
        self.defaults = defaults
        self._store: Any = None

    def store(self) -> Any:
        """The open store (opened now if it is not yet)."""
        if self._store is None:
            self._store = self.opener()
        return self._store

    def handle_line(self, line: bytes | str) -> str | None:
        """One input line to one output line (None for notifications and blank lines)."""
        try:
            text = line.decode("utf-8") if isinstance(line, bytes) else line
            if not text.strip():
                return None
            message = json.loads(text)
        except (UnicodeDecodeError, ValueError) as exc:
            return json.dumps(_error(None, PARSE_ERROR, f"parse error: {exc}"))
        reply = self.handle_batch(message) if isinstance(message, list) else self.handle(message)
        return json.dumps(reply, ensure_ascii=False) if reply is not None else None

    def handle_batch(self, messages: list) -> list | dict | None:
        """A JSON-RPC batch (protocol 2025-03-26 allows them): the replies, without notifications'."""
        if not messages:
            return _error(None, INVALID_REQUEST, "empty batch")
        replies = [r for r in (self.handle(m) for m in messages) if r is not None]
        return replies or None

    def handle(self, message: Any) -> dict | None:
        """One request or notification; returns the response, or None when none is due."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return _error(None, INVALID_REQUEST, "not a JSON-RPC 2.0 message")
        if "method" not in message:
            return None  # a response to something we never ask: ignore it
        msg_id, is_request = message.get("id"), "id" in message
        try:
            result = self.dispatch(str(message["method"]), message.get("params") or {})
        except RpcError as exc:
            return _error(msg_id, exc.code, str(exc)) if is_request else None
        except Exception as exc:  # a bug must cost one reply, not the agent's whole memory server
            log.exception("internal error in %s", message.get("method"))
            return _error(msg_id, INTERNAL_ERROR, f"internal error: {exc}") if is_request else None
        return {"jsonrpc": "2.0", "id": msg_id, "result": result} if is_request else None

    def dispatch(self, method: str, params: Any) -> dict:
        """Run one method; raises RpcError for unknown methods and bad params."""
        if not isinstance(params, dict):
            raise RpcError(INVALID_PARAMS, "params must be an object")
        if method == "initialize":
            return self.initialize(params)
        if method == "ping" or method.startswith("notifications/"):
            return {}
        if method == "tools/list":
            return {"tools": [t.listing() for t in TOOLS.values()]}
        if method == "tools/call":
            return self.call(params.get("name"), params.get("arguments"))
        raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")

    def initialize(self, params: dict) -> dict:
        """The handshake: the client's protocol version if we speak it, else our newest."""
        from memctl._version import __version__

        asked = params.get("protocolVersion")
        return {"protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
                "capabilities": {"tools": {}}, "serverInfo": {"name": "memctl", "version": __version__},
                "instructions": "Long-term memory: recall before answering when history matters; "
                                "add durable facts the user states; never store secrets."}

    def call(self, name: Any, arguments: Any) -> dict:
        """tools/call: bad names and arguments are protocol errors; memctl errors are tool results."""
        if not isinstance(name, str) or name not in TOOLS:
            raise RpcError(INVALID_PARAMS, f"unknown tool: {name!r}")
        try:
            data = call_tool(self.store(), name, arguments, self.defaults)
        except InvalidArguments as exc:
            raise RpcError(INVALID_PARAMS, exc.message) from None
        except MemctlError as exc:
            return tool_result(f"{exc.code}: {exc.message}", is_error=True)
        finally:
            _log_warnings(self._store)
        return tool_result(json.dumps(data, ensure_ascii=False))


def _log_warnings(store: Any) -> None:
    """Warnings the store gathered (broken files skipped...) go to the log, never to the protocol."""
    for message in store.drain_warnings() if store is not None else ():
        log.warning("%s", message)


def serve_stdio(opener: Callable[[], Any], defaults: Defaults = Defaults(),
                instream: IO[bytes] | None = None, outstream: IO[bytes] | None = None) -> int:
    """Serve MCP on stdin/stdout until EOF; returns the exit code. Only protocol messages reach stdout:
    anything else printed while serving is sent to stderr, where logs go too."""
    instream = instream or sys.stdin.buffer
    out = outstream or sys.stdout.buffer  # bytes: UTF-8 whatever the locale says
    saved, sys.stdout = sys.stdout, sys.stderr
    server = McpServer(opener, defaults)
    log.info("serving memory tools on stdio")
    try:
        for line in iter(instream.readline, b""):
            reply = server.handle_line(line)
            if reply is not None:
                out.write(reply.encode("utf-8") + b"\n")
                out.flush()
    except KeyboardInterrupt:
        return 130
    finally:
        sys.stdout = saved
    return 0
