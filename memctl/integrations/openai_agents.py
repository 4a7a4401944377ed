"""memctl's memory tools for an OpenAI Agents SDK agent, in process: `memory_tools(store, user=...)`.

The tools are memctl.agents.tools, the ones `memctl mcp` serves (memory_search, memory_add,
memory_context, ...), with the same argument schemas and the same data back as JSON; a call the
store refuses (`sensitive: ...`, `invalid_arguments: ...`) comes back as that one line, for the
model to correct itself. A schema the SDK's strict mode cannot take is given as it is (strict off
for that tool). No session class: memctl's transcripts are append-only, and an Agents SDK session
must pop and clear; keep the conversation in the SDK's session and the long-term memory here.

    from agents import Agent
    from memctl.api import MemoryStore
    from memctl.integrations.openai_agents import memory_tools
    agent = Agent(name="assistant", tools=memory_tools(MemoryStore.open("~/mem"), user="alice"))
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from agents import FunctionTool
from agents.exceptions import UserError

from memctl.agents.tools import TOOLS, Caller, Defaults, call_tool
from memctl.core import jsonsafe
from memctl.errors import MemctlError


def memory_tools(memory: Any, *, user: str | None = None, project: str | None = None,
                 trust_source: bool = False) -> list[FunctionTool]:
    """Every memory tool over one MemoryStore, for `user` / `project` when a call names neither
    (`trust_source`: believe the `source` a write claims, as `memctl mcp --trust-source`)."""
    caller = Caller(defaults=Defaults(user, project), trust_source=trust_source)
    lock = threading.Lock()
    return [_tool(memory, name, caller, lock) for name in TOOLS]


def _tool(memory: Any, name: str, caller: Caller, lock: threading.Lock) -> FunctionTool:
    tool = TOOLS[name]

    def run(arguments: str) -> str:
        try:
            with lock:
                data = call_tool(memory, name, jsonsafe.loads(arguments or "{}"), caller)
        except MemctlError as exc:
            return f"{exc.code}: {exc.message}"
        except ValueError as exc:
            return f"invalid_arguments: not JSON: {exc}"
        return json.dumps(data, ensure_ascii=False)

    async def invoke(ctx: Any, arguments: str) -> str:
        return await asyncio.to_thread(run, arguments)

    schema = tool.input_schema(memory.config)
    try:
        return FunctionTool(name=name, description=tool.description, params_json_schema=schema,
                            on_invoke_tool=invoke, strict_json_schema=True)
    except UserError:
        return FunctionTool(name=name, description=tool.description, params_json_schema=schema,
                            on_invoke_tool=invoke, strict_json_schema=False)
