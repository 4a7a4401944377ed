"""The co-install set at work: `memctl mcp` driven by langchain-mcp-adapters' and
llama-index-tools-mcp's own MCP clients, in the virtualenv they share with memctl[server] (CI's
second one, where they pin mcp to 1.x). No LLM: the tools are called as an agent would."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from tests.helpers import use_hashing_embedder


def _args(memdir: Path) -> list[str]:
    use_hashing_embedder(memdir)
    return ["-m", "memctl", "-d", str(memdir), "mcp", "--user", "alice"]


def test_langchain_mcp_adapters_loads_and_calls_the_tools(memdir: Path) -> None:
    pytest.importorskip("langchain_mcp_adapters")
    from langchain_mcp_adapters.client import MultiServerMCPClient

    client = MultiServerMCPClient({"memory": {"command": sys.executable, "args": _args(memdir),
                                              "transport": "stdio"}})

    async def main() -> None:
        with anyio.fail_after(90):
            tools = {t.name: t for t in await client.get_tools()}
            assert {"memory_add", "memory_search"} <= set(tools)
            await tools["memory_add"].ainvoke({"content": "Alice prefers window seats on flights",
                                               "memory_type": "preference"})
            found = await tools["memory_search"].ainvoke({"query": "which seat does Alice like"})
            assert "window seats" in json.dumps(found, default=str)

    anyio.run(main)


def test_llama_index_tools_mcp_loads_and_calls_the_tools(memdir: Path) -> None:
    pytest.importorskip("llama_index.tools.mcp")
    from llama_index.tools.mcp import BasicMCPClient, McpToolSpec

    client = BasicMCPClient(sys.executable, args=_args(memdir))

    async def main() -> None:
        with anyio.fail_after(90):
            tools = {t.metadata.name: t for t in await McpToolSpec(client).to_tool_list_async()}
            assert {"memory_add", "memory_search"} <= set(tools)
            await tools["memory_add"].acall(content="Alice is allergic to peanuts", memory_type="constraint")
            found = await tools["memory_search"].acall(query="what is Alice allergic to")
            assert "peanuts" in str(found)

    anyio.run(main)
