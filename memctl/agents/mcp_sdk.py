"""The one module that knows which major version of the official `mcp` SDK is installed.

memctl runs on mcp 1.x (what langchain-mcp-adapters and llama-index-tools-mcp pin) and on 2.x, so
`memctl[server]` installs beside them. What differs between the two and memctl uses is here:
- the protocol error (`MCPError(code, message)` in 2.x, `McpError(ErrorData)` in 1.x);
- how a low-level server takes its handlers (`on_list_tools=...` keywords in 2.x, a table of
  request types in 1.x): `make_server` takes them by the protocol's method names;
- reading a JSON-RPC message into the SDK's model and writing one out (memctl.agents.stdio frames them).
Protocol objects are built from their wire form (`model_validate` of camelCase JSON), which both
versions accept (2.x names its fields in snake_case with camelCase aliases, 1.x in camelCase).
"""

from __future__ import annotations

import json
from importlib.metadata import version
from typing import Any, Awaitable, Callable

import mcp.shared.exceptions as _exceptions
from mcp import types
from mcp.server.lowlevel import Server
from mcp.shared.message import SessionMessage

__all__ = ["SDK_MAJOR", "MCPError", "Server", "SessionMessage", "dump_message", "make_server", "parse_message",
           "protocol_error", "types", "wire"]

SDK_MAJOR = int(version("mcp").split(".", 1)[0])
MCPError: type[Exception] = getattr(_exceptions, "MCPError", None) or _exceptions.McpError  # type: ignore[attr-defined]

# Typed against whichever version mypy sees; the branch for the other one goes through these.
_SERVER: Any = Server
_TYPES: Any = types

Handler = Callable[[Any], Awaitable[Any]]  # a request's params -> its result (a types.*Result)

# method -> (2.x keyword of Server, 1.x request type)
_METHODS = {
    "tools/list": ("on_list_tools", "ListToolsRequest"),
    "tools/call": ("on_call_tool", "CallToolRequest"),
    "resources/list": ("on_list_resources", "ListResourcesRequest"),
    "resources/templates/list": ("on_list_resource_templates", "ListResourceTemplatesRequest"),
    "resources/read": ("on_read_resource", "ReadResourceRequest"),
    "prompts/list": ("on_list_prompts", "ListPromptsRequest"),
    "prompts/get": ("on_get_prompt", "GetPromptRequest"),
}


def protocol_error(code: int, message: str) -> Exception:
    """The exception a handler raises to answer with a JSON-RPC error."""
    if SDK_MAJOR >= 2:
        return MCPError(code, message)
    return MCPError(types.ErrorData(code=code, message=message))


def wire(model: Any) -> dict[str, Any]:
    """A protocol object as its JSON (camelCase keys, unset fields left out), on either version."""
    data: dict[str, Any] = json.loads(model.model_dump_json(by_alias=True, exclude_none=True))
    return data


def make_server(name: str, version: str, *, title: str, instructions: str,
                handlers: dict[str, Handler]) -> Server[Any]:
    """The SDK's low-level server answering each method in `handlers` (by the protocol's method
    names, e.g. "tools/call") with handler(params)."""
    unknown = set(handlers) - set(_METHODS)
    if unknown:
        raise ValueError(f"no MCP method {sorted(unknown)} (methods: {', '.join(_METHODS)})")
    if SDK_MAJOR >= 2:
        return _server_v2(name, version, title, instructions, handlers)
    return _server_v1(name, version, instructions, handlers)


def _server_v2(name: str, version: str, title: str, instructions: str, handlers: dict[str, Handler]) -> Server[Any]:
    def bind(handler: Handler) -> Callable[[Any, Any], Awaitable[Any]]:
        async def on_request(ctx: Any, params: Any) -> Any:
            return await handler(params)
        return on_request

    keywords = {_METHODS[method][0]: bind(handler) for method, handler in handlers.items()}
    server: Server[Any] = _SERVER(name, version=version, title=title, instructions=instructions, **keywords)
    return server


def _server_v1(name: str, version: str, instructions: str, handlers: dict[str, Handler]) -> Server[Any]:
    # 1.x's decorators validate arguments and results themselves; memctl does that (a bad argument is
    # an isError result saying what to fix), so the handlers go in its request table as they are.
    server: Any = _SERVER(name, version=version, instructions=instructions)

    def bind(handler: Handler) -> Callable[[Any], Awaitable[Any]]:
        async def on_request(request: Any) -> Any:
            return _TYPES.ServerResult(await handler(request.params))
        return on_request

    for method, handler in handlers.items():
        server.request_handlers[getattr(types, _METHODS[method][1])] = bind(handler)
    result: Server[Any] = server
    return result


def parse_message(item: dict[str, Any]) -> Any:
    """A JSON-RPC message (a dict read off the wire) as the SDK's model, for its server's read stream."""
    if SDK_MAJOR >= 2:
        return _TYPES.jsonrpc_message_adapter.validate_python(item, by_name=False)
    return _TYPES.JSONRPCMessage.model_validate(item)


def dump_message(message: Any) -> dict[str, Any]:
    """A message the SDK's server sent, as the JSON-RPC dict to write (each version as its own writer does)."""
    if SDK_MAJOR >= 2:
        data: dict[str, Any] = message.model_dump(by_alias=True, mode="json", exclude_unset=True)
    else:
        data = message.model_dump(by_alias=True, mode="json", exclude_none=True)
    return data
