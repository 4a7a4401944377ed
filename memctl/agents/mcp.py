"""`memctl mcp`: the memory tools over the Model Context Protocol (stdio), on the official `mcp` SDK.

The SDK's low-level server speaks the protocol (the handshake and its revision, ping, JSON-RPC
errors); memctl.agents.stdio frames it on stdin/stdout. This module lists the tools of
memctl.agents.tools with their pydantic schemas, runs them, offers each user's and project's
MEMORY.md as a resource, and the `recall` and `remember` prompts (memctl.agents.prompts).
Arguments that do not fit a tool's schema come back as an `isError` result saying what to fix,
as do refusals (`sensitive: ...`), so the model can correct itself; an unknown tool is a protocol
error. Only `memctl mcp` imports this module (the SDK is the `server` extra).
"""

from __future__ import annotations

import io
import json
import logging
import re
import threading
from typing import Any, BinaryIO, Callable

import anyio
from pydantic import ValidationError

from memctl._version import __version__
from memctl.agents import prompts
from memctl.agents.mcp_sdk import (
    Server,
    SessionMessage,
    dump_message,
    make_server,
    parse_message,
    protocol_error,
    types,
)
from memctl.agents.stdio import LineProtocol, claim_stdio
from memctl.agents.tools import TOOLS, Caller, parse_arguments, run_tool
from memctl.config import Config
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

    def __init__(self, opener: Callable[[], Any], caller: Caller = Caller(), lock: Any = None,
                 acting: Callable[[], tuple[Any, Caller]] | None = None) -> None:
        self.opener = opener
        self.caller = caller
        self._store: Any = None
        self._lock = lock or threading.Lock()
        self._acting = acting  # HTTP: the store as the request's actor and its caller, per request

    def acting(self) -> tuple[Any, Caller]:
        """The store to run a call on and who calls (stdio: the one store and caller of the server)."""
        store = self.store()
        return self._acting() if self._acting is not None else (store, self.caller)

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
                store, caller = self.acting()
                data = run_tool(store, tool, parse_arguments(tool, store.config, arguments), caller)
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
            owners = self.acting()[0].owners()
        return [types.Resource(uri=f"memctl://{owner}/MEMORY.md", name=f"{owner}/MEMORY.md",
                               title=f"{owner.split('/', 1)[1]}'s MEMORY.md", mime_type="text/markdown",
                               description="The memory index: a profile and one line per memory, by type.")
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
                store = self.acting()[0]
                if f"{kind}/{name}" not in store.owners():
                    raise protocol_error(RESOURCE_NOT_FOUND, f"no memories of {kind[:-1]} {name!r}")
                text: str = store.memory_md(**{kind[:-1]: name})
        except MemctlError as exc:
            raise protocol_error(types.INVALID_PARAMS, f"{exc.code}: {exc.message}") from None
        return text

    def prompts(self) -> list[types.Prompt]:
        """The prompts a person can pick: recall and remember (memctl.agents.prompts)."""
        return [types.Prompt(name=p.name, title=p.title, description=p.description, arguments=[
            types.PromptArgument(name=arg, description=text, required=required)
            for args, required in ((p.required, True), (p.optional, False)) for arg, text in args])
            for p in prompts.PROMPTS.values()]

    def prompt(self, name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
        """One prompt as the user message it stands for; an unknown prompt or a bad argument is -32602."""
        try:
            with self._lock:
                text = prompts.render(name, arguments, *self.acting())
        except MemctlError as exc:
            raise protocol_error(types.INVALID_PARAMS, f"{exc.code}: {exc.message}") from None
        finally:
            self._log_warnings()
        message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        return types.GetPromptResult(description=prompts.PROMPTS[name].description, messages=[message])

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

    async def list_prompts(params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=tools.prompts())

    async def get_prompt(params: types.GetPromptRequestParams) -> types.GetPromptResult:
        return await anyio.to_thread.run_sync(tools.prompt, params.name, params.arguments)

    return make_server("memctl", __version__, title="memctl memory", instructions=INSTRUCTIONS, handlers={
        "tools/list": list_tools, "tools/call": call_tool, "resources/list": list_resources,
        "resources/templates/list": list_templates, "resources/read": read_resource,
        "prompts/list": list_prompts, "prompts/get": get_prompt})


def serve_stdio(opener: Callable[[], Any], caller: Caller = Caller()) -> int:
    """Serve MCP on stdin/stdout until EOF, every request read answered; returns the exit code.
    Only protocol messages reach stdout: while serving, fd 0 reads nothing and fd 1 is stderr, so
    a stray print or a child process (the LLM command) never touches the wire."""
    server = build_server(MemoryTools(opener, caller))
    wire_in, wire_out, restore = claim_stdio()
    log.info("serving memory tools on stdio")
    try:
        anyio.run(_serve, server, wire_in, wire_out)
    except KeyboardInterrupt:
        return 130
    finally:
        restore()
    return 0


async def _serve(server: Server[Any], wire_in: BinaryIO, wire_out: BinaryIO) -> None:
    """The line protocol (memctl.agents.stdio) between the wire and the SDK's server."""
    to_server, server_in = anyio.create_memory_object_stream[Any](0)
    server_out, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    lines = anyio.wrap_file(io.TextIOWrapper(wire_in, encoding="utf-8", errors="replace"))
    out = anyio.wrap_file(io.TextIOWrapper(wire_out, encoding="utf-8"))
    writing = anyio.Lock()

    async def emit(line: str) -> None:
        async with writing:
            await out.write(line + "\n")
            await out.flush()

    async def submit(item: dict[str, Any]) -> None:
        try:
            message = parse_message(item)
        except ValidationError as exc:
            raise ValueError(f"not an MCP message: {exc.errors()[0]['msg']}") from None
        await to_server.send(SessionMessage(message))

    protocol = LineProtocol(submit, emit)

    async def read() -> None:
        async with to_server:
            await protocol.read(lines)

    async def relay() -> None:
        async with from_server:
            async for sent in from_server:
                await protocol.outbound(dump_message(sent.message))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        tasks.start_soon(relay)
        await server.run(server_in, server_out, server.create_initialization_options())
