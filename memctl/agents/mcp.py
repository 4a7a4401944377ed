"""`memctl mcp`: the memory tools over the Model Context Protocol (stdio), on the official `mcp` SDK.

The SDK's low-level server speaks the protocol (the handshake and its revision, ping, JSON-RPC
errors, the stdio framing); this module lists the tools of memctl.agents.tools with their
pydantic schemas, runs them, and offers each user's and project's MEMORY.md as a resource.
Arguments that do not fit a tool's schema come back as an `isError` result saying what to fix,
as do refusals (`sensitive: ...`), so the model can correct itself; an unknown tool is a protocol
error. Only `memctl mcp` imports this module (the SDK is the `server` extra).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
from typing import Any, Callable

import anyio
from mcp.server.stdio import stdio_server

from memctl._version import __version__
from memctl.agents.mcp_sdk import Server, error_message, make_server, protocol_error, types
from memctl.agents.tools import TOOLS, Caller, parse_arguments, run_tool
from memctl.config import Config
from memctl.core.jsonsafe import MAX_DEPTH, too_deep
from memctl.errors import MemctlError

log = logging.getLogger("memctl.agents.mcp")

RESOURCE_NOT_FOUND = -32002  # the spec's code for an unknown resource
_RESOURCE = re.compile(r"memctl://(users|projects)/([^/]+)/MEMORY\.md")
INSTRUCTIONS = ("Long-term memory about the user and their projects. Call memory_search (or memory_context) "
                "before answering when their history could matter; store durable facts they state with "
                "memory_add; correct with memory_update; never store secrets.")


class MemoryTools:
    """The tools over one store, opened on first use and then kept open (the model and caches stay
    warm between calls, and a missing directory is an error per call, not a server that cannot
    start). Calls run one at a time: the store is not thread-safe."""

    def __init__(self, opener: Callable[[], Any], caller: Caller = Caller()) -> None:
        self.opener = opener
        self.caller = caller
        self._store: Any = None
        self._lock = threading.Lock()

    def store(self) -> Any:
        """The open store (opened now if it is not yet)."""
        if self._store is None:
            self._store = self.opener()
        return self._store

    def _config(self) -> Any:
        try:
            return self.store().config
        except MemctlError:
            return Config()  # no directory yet: list the tools anyway; each call will say what is wrong

    def list_tools(self) -> list[types.Tool]:
        """Every tool with its schemas (the configured types as the memory_type enum) and annotations."""
        with self._lock:
            config = self._config()
        return [types.Tool.model_validate({"name": t.name, "title": t.title, "description": t.description,
                                           "inputSchema": t.input_schema(config), "outputSchema": t.output_schema(),
                                           "annotations": t.annotations()})
                for t in TOOLS.values()]

    def call(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """Run a tool; its data as JSON text and as structuredContent, or an isError result."""
        tool = TOOLS.get(name)
        if tool is None:
            raise protocol_error(types.INVALID_PARAMS, f"unknown tool {name!r} (tools: {', '.join(TOOLS)})")
        try:
            with self._lock:
                store = self.store()
                data = run_tool(store, tool, parse_arguments(tool, store.config, arguments), self.caller)
        except MemctlError as exc:
            return error_result(f"{exc.code}: {exc.message}")
        except Exception as exc:  # a bug costs one call, not the agent's whole memory server
            log.exception("internal error in %s", name)
            return error_result(f"internal: {exc}")
        finally:
            self._log_warnings()
        text = types.TextContent(type="text", text=json.dumps(data, ensure_ascii=False))
        return types.CallToolResult.model_validate({"content": [text], "structuredContent": data})

    def resources(self) -> list[types.Resource]:
        """Each user's and project's MEMORY.md."""
        with self._lock:
            owners = self.store().owners()
        return [types.Resource.model_validate({
                    "uri": f"memctl://{owner}/MEMORY.md", "name": f"{owner}/MEMORY.md",
                    "title": f"{owner.split('/', 1)[1]}'s MEMORY.md", "mimeType": "text/markdown",
                    "description": "The memory index: a profile and one line per memory, by type."})
                for owner in owners]

    def read(self, uri: str) -> str:
        """The text of a MEMORY.md resource, rendered from the memories as they are now."""
        match = _RESOURCE.fullmatch(uri)
        if match is None:
            raise protocol_error(RESOURCE_NOT_FOUND, f"no resource {uri!r} (memctl://users/NAME/MEMORY.md "
                                               "or memctl://projects/NAME/MEMORY.md)")
        kind, name = match.groups()
        try:
            with self._lock:
                store = self.store()
                if f"{kind}/{name}" not in store.owners():
                    raise protocol_error(RESOURCE_NOT_FOUND, f"no memories of {kind[:-1]} {name!r}")
                text: str = store.memory_md(**{kind[:-1]: name})
        except MemctlError as exc:
            raise protocol_error(types.INVALID_PARAMS, f"{exc.code}: {exc.message}") from None
        return text

    def _log_warnings(self) -> None:
        """Warnings the store gathered (broken files skipped...) go to the log, never to the protocol."""
        for message in self._store.drain_warnings() if self._store is not None else ():
            log.warning("%s", message)


def error_result(text: str) -> types.CallToolResult:
    """A tool result the model reads as a failure, with one line saying why."""
    return types.CallToolResult.model_validate({"content": [{"type": "text", "text": text}], "isError": True})


def build_server(tools: MemoryTools) -> Server[Any]:
    """The SDK's low-level server with memctl's handlers (store work runs in a worker thread)."""

    async def list_tools(params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=await anyio.to_thread.run_sync(tools.list_tools))

    async def call_tool(params: types.CallToolRequestParams) -> types.CallToolResult:
        return await anyio.to_thread.run_sync(tools.call, params.name, params.arguments)

    async def list_resources(params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=await anyio.to_thread.run_sync(tools.resources))

    async def list_templates(params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult.model_validate({"resourceTemplates": [
            {"uriTemplate": f"memctl://{kind}/{{name}}/MEMORY.md", "name": f"{kind}-memory-md",
             "title": f"A {kind[:-1]}'s MEMORY.md", "mimeType": "text/markdown"}
            for kind in ("users", "projects")]})

    async def read_resource(params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        text = await anyio.to_thread.run_sync(tools.read, str(params.uri))
        return types.ReadResourceResult.model_validate({"contents": [
            {"uri": str(params.uri), "text": text, "mimeType": "text/markdown"}]})

    return make_server("memctl", __version__, title="memctl memory", instructions=INSTRUCTIONS, handlers={
        "tools/list": list_tools, "tools/call": call_tool, "resources/list": list_resources,
        "resources/templates/list": list_templates, "resources/read": read_resource})


class BoundedLines:
    """stdin's lines for the SDK's reader, except a message nested deeper than MAX_DEPTH: its JSON
    parser would recurse that deep, and a line it cannot parse gets no answer at all. Such a line
    is answered here (JSON-RPC -32600, the request's id when it can be read) and goes no further."""

    _ID = re.compile(r'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')

    def __init__(self, lines: Any) -> None:
        self.lines = lines
        self.reply: Any = None  # the SDK's write stream, once stdio_server hands it over
        self.ready = anyio.Event()

    def __aiter__(self) -> Any:
        return self._bounded()

    async def _bounded(self) -> Any:
        async for line in self.lines:
            if not too_deep(line):
                yield line
                continue
            await self.ready.wait()
            await self.reply.send(error_message(self._id(line), types.INVALID_REQUEST,
                                                f"invalid request: JSON nested deeper than {MAX_DEPTH} levels"))

    def _id(self, line: str) -> int | str | None:
        found = self._ID.search(line[:4096])
        return None if found is None else json.loads(found.group(1))


def serve_stdio(opener: Callable[[], Any], caller: Caller = Caller()) -> int:
    """Serve MCP on stdin/stdout until EOF; returns the exit code. Only protocol messages reach
    stdout: anything printed while serving goes to stderr, where the logs go too."""
    import io

    server = build_server(MemoryTools(opener, caller))
    lines = BoundedLines(anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")))

    async def main() -> None:
        # it takes the real stdout for the protocol (stdin is ours, to bound what its parser reads)...
        async with stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]
            lines.reply = write
            lines.ready.set()
            saved, sys.stdout = sys.stdout, sys.stderr  # ...and a stray print goes to stderr
            try:
                await server.run(read, write, server.create_initialization_options())
            finally:
                sys.stdout = saved

    log.info("serving memory tools on stdio")
    try:
        anyio.run(main)
    except KeyboardInterrupt:
        return 130
    return 0
