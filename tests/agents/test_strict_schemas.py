"""The tool schemas pass the OpenAI Agents SDK's strict conversion, checked with the real package
(openai-agents) over a real `memctl mcp`, and a strict call (every argument, null for the unused) works."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest

from memctl.agents.tools import TOOLS, call_tool
from memctl.api import MemoryStore
from memctl.config import Config
from tests.agents.test_tools import ALICE
from tests.helpers import use_hashing_embedder

strict_schema = pytest.importorskip("agents.strict_schema")


@pytest.mark.parametrize("name", list(TOOLS))
def test_every_tool_schema_converts_to_strict(name: str) -> None:
    schema = TOOLS[name].input_schema(Config())
    strict = strict_schema.ensure_strict_json_schema(json.loads(json.dumps(schema)), _reject_open_objects=True)
    assert strict["required"] == list(strict["properties"])  # strict: every argument is sent...
    unused = {arg: None for arg, prop in strict["properties"].items() if "null" in _types(prop)}
    assert "text" not in unused and "query" not in unused  # ...and the optional ones may be null
    jsonschema.validate(unused | _required_values(name), strict)


def _types(prop: dict[str, Any]) -> list[str]:
    kind = prop.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def _required_values(name: str) -> dict[str, Any]:
    """Values a strict model must give where null is not allowed (the defaults, mostly)."""
    values = {"memory_search": {"query": "seats", "k": 5, "types": [], "subtypes": [], "tags": [], "sources": [], "users": [],
                                "projects": [], "scopes": [], "status": "active", "mode": "hybrid"},
              "memory_add": {"text": "Alice's trip departs 2026-03-10", "type": "event", "tags": [], "source_ids": []},
              "memory_context": {"query": "seats", "budget": 800, "format": "markdown"},
              "memory_update": {"memory_id": "abcd"}, "memory_forget": {"memory_id": "abcd"},
              "memory_list": {"status": "active", "limit": 50, "offset": 0},
              "memory_query": {"op": "count", "kind": "trip", "where": []}, "memory_show": {"memory_id": "abcd"}}
    strict = TOOLS[name].input_schema(Config())
    return {k: v for k, v in values[name].items() if k in strict["properties"]}


def test_a_strict_call_with_nulls_and_field_pairs_is_stored(store: MemoryStore) -> None:
    strict = TOOLS["memory_add"].input_schema(Config())
    arguments = dict.fromkeys(strict["properties"]) | _required_values("memory_add")
    arguments |= {"kind": "trip", "fields": [{"name": "departs", "value": "2026-03-10"}], "confidence": 0.9}
    added = call_tool(store, "memory_add", arguments, ALICE)
    assert added["written"] and added["memory"]["fields"] == {"departs": "2026-03-10"}
    again = call_tool(store, "memory_add", {"text": "Bob's trip departs 2026-05-01", "user": "bob", "kind": "trip",
                                            "fields": {"departs": "2026-05-01"}}, ALICE)  # an object still works
    assert again["memory"]["fields"] == {"departs": "2026-05-01"}
    with pytest.raises(Exception, match="'departs' is given twice"):
        call_tool(store, "memory_add", {"text": "Carol's trip departs 2026-06-01", "kind": "trip", "fields": [
            {"name": "departs", "value": "2026-06-01"}, {"name": "departs", "value": "2026-06-02"}]}, ALICE)


def test_the_agents_sdk_lists_memctl_mcp_tools_as_strict(memdir: Path) -> None:
    from agents.mcp import MCPServerStdio, MCPUtil

    from memctl.agents.mcp_sdk import wire

    use_hashing_embedder(memdir)
    params = {"command": sys.executable, "args": ["-m", "memctl", "-d", str(memdir), "mcp", "--user", "alice"]}

    async def main() -> None:
        with anyio.fail_after(90):
            async with MCPServerStdio(params=params, name="memctl", client_session_timeout_seconds=60) as server:
                tools = await server.list_tools()
                converted = [MCPUtil.to_function_tool(t, server, convert_schemas_to_strict=True) for t in tools]
                assert [t.name for t in converted] == list(TOOLS)
                assert all(t.strict_json_schema for t in converted), [t.name for t in converted
                                                                      if not t.strict_json_schema]
                add = next(t for t in converted if t.name == "memory_add").params_json_schema
                arguments = dict.fromkeys(add["properties"]) | _required_values("memory_add")
                result = await server.call_tool("memory_add", arguments)
                assert not wire(result).get("isError"), result.content  # on mcp 1.x and 2.x

    anyio.run(main)
    assert MemoryStore(memdir).list(user="alice")[0].confidence == 0.7  # unrated: [gate] agent_confidence
