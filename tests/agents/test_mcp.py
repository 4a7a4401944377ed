"""memctl mcp: the tools and resources in-process, and real stdio sessions driven by the SDK's own client.

They run on mcp 1.x and 2.x (CI runs them on both): protocol objects are read in their wire form.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
import jsonschema
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memctl.agents.mcp import RESOURCE_NOT_FOUND, MemoryTools
from memctl.agents.mcp_sdk import MCPError, wire
from memctl.agents.tools import Caller, Defaults
from memctl.api import MemoryStore
from memctl.errors import NoDirectory
from tests.helpers import use_hashing_embedder

CARD = "My card number is 4111 1111 1111 1111"
DEFAULT_TYPES = ["preference", "fact", "skill", "habit", "event", "context", "constraint", "decision"]


# -- in-process ------------------------------------------------------------------------------

def test_a_missing_directory_lists_tools_and_fails_each_call(tmp_path: Path) -> None:
    def opener() -> MemoryStore:
        raise NoDirectory("no memory directory found: pass --dir, set MEMCTL_DIR, or run `memctl init`")

    tools = MemoryTools(opener)
    assert next(t.name for t in tools.list_tools()) == "memory_search"
    result = wire(tools.call("memory_list", {}))
    assert result["isError"] and result["content"][0]["text"].startswith("no_directory: ")


def test_an_unexpected_exception_is_an_error_result(memdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MemoryStore, "list", lambda *a, **k: 1 / 0)
    result = wire(MemoryTools(lambda: MemoryStore(memdir), Caller(defaults=Defaults("alice"))).call("memory_list", {}))
    assert result["isError"] and "division" in result["content"][0]["text"]


def test_resources_are_the_memory_md_of_each_owner(memdir: Path) -> None:
    store = MemoryStore(memdir)
    store.add_raw("Alice prefers window seats on flights", type="preference", user="alice")
    store.add_raw("Checkout is written in Go", type="context", project="shop")
    tools = MemoryTools(lambda: store)
    assert [str(r.uri) for r in tools.resources()] == ["memctl://projects/shop/MEMORY.md",
                                                      "memctl://users/alice/MEMORY.md"]
    assert "window seats" in tools.read("memctl://users/alice/MEMORY.md")
    assert not (memdir / "users" / "alice" / "MEMORY.md").exists()  # reading renders, writes nothing
    for uri, code in [("memctl://users/bob/MEMORY.md", RESOURCE_NOT_FOUND), ("file:///etc/passwd", RESOURCE_NOT_FOUND),
                      ("memctl://users/../MEMORY.md", RESOURCE_NOT_FOUND)]:
        with pytest.raises(MCPError) as info:
            tools.read(uri)
        assert info.value.error.code == code  # type: ignore[attr-defined]


# -- real stdio sessions with the SDK client --------------------------------------------------------

def session(root: Path, *extra: str, test: Callable[[ClientSession], Awaitable[None]]) -> None:
    """Run `python -m memctl -d ROOT mcp EXTRA` and drive it with the SDK's stdio client."""
    use_hashing_embedder(root)
    params = StdioServerParameters(command=sys.executable, args=["-m", "memctl", "-d", str(root), "mcp", *extra])

    async def main() -> None:
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
                init = wire(await client.initialize())
                assert init["protocolVersion"] == "2025-11-25" and init["serverInfo"]["name"] == "memctl"
                await test(client)

    anyio.run(main)


def data(result: Any) -> dict:
    """The structured content of a successful call, checked equal to its JSON text."""
    answer = wire(result)
    assert answer["isError"] is False, answer["content"][0]["text"]
    assert json.loads(answer["content"][0]["text"]) == answer["structuredContent"]
    return dict(answer["structuredContent"])


def text(result: Any) -> str:
    """The one line of an isError result."""
    answer = wire(result)
    assert answer["isError"] is True
    return str(answer["content"][0]["text"])


def test_stdio_session_end_to_end(memdir: Path) -> None:
    async def check(client: ClientSession) -> None:
        tools = {t.name: wire(t) for t in (await client.list_tools()).tools}
        assert list(tools) == ["memory_search", "memory_add", "memory_context", "memory_update", "memory_forget",
                               "memory_list", "memory_query", "memory_show"]
        assert tools["memory_add"]["inputSchema"]["properties"]["type"]["enum"] == DEFAULT_TYPES
        assert tools["memory_add"]["inputSchema"]["properties"]["type"]["default"] == "fact"
        assert {n for n, t in tools.items() if t["annotations"]["readOnlyHint"]} == {
            "memory_search", "memory_list", "memory_context", "memory_query", "memory_show"}
        assert tools["memory_forget"]["annotations"]["destructiveHint"] is True
        assert all(t["outputSchema"] and t["title"] and t["description"] for t in tools.values())

        added = data(await client.call_tool("memory_add", {"content": "Alice prefers window seats on flights",
                                                           "memory_type": "preference"}))
        jsonschema.validate(added, tools["memory_add"]["outputSchema"])
        memory_id = added["memory"]["id"]
        assert added["written"] and added["memory"]["user"] == "alice" and added["memory"]["source"] == "ai"
        hits = data(await client.call_tool("memory_search", {"query": "which seat does Alice like"}))["hits"]
        assert hits[0]["id"] == memory_id
        changed = data(await client.call_tool("memory_update", {"id": memory_id, "tags": ["travel"]}))["memory"]
        assert changed["tags"] == ["travel"]
        listed = data(await client.call_tool("memory_list", {}))
        assert [m["id"] for m in listed["memories"]] == [memory_id]
        block = data(await client.call_tool("memory_context", {"query": "book a flight for me", "budget": 400}))
        assert "window seats" in block["text"] and block["tokens"] <= 400

        resources = (await client.list_resources()).resources
        assert [str(r.uri) for r in resources] == ["memctl://users/alice/MEMORY.md"]
        read = await client.read_resource("memctl://users/alice/MEMORY.md")
        assert "window seats" in read.contents[0].text

        assert text(await client.call_tool("memory_add", {"content": CARD})).startswith("sensitive: ")
        problem = text(await client.call_tool("memory_add", {"content": "Alice likes tea", "confidence": 3,
                                                             "memory_type": "gossip"}))
        assert problem.startswith("invalid_arguments: invalid arguments for memory_add: ")
        assert "type: Input should be 'preference'" in problem and "confidence: " in problem
        with pytest.raises(MCPError):
            await client.call_tool("memory_teleport", {})

        gone = data(await client.call_tool("memory_forget", {"id": memory_id, "reason": "user asked"}))
        assert gone["memory"]["status"] == "forgotten"
        assert data(await client.call_tool("memory_list", {}))["count"] == 0
        await client.send_ping()  # still serving after the errors

    session(memdir, "--user", "alice", test=check)
    assert not list((memdir / "users").rglob("*.md")) and list((memdir / "archive").rglob("*.md"))


def test_the_claude_presets_types_are_in_the_schema(memdir: Path) -> None:
    config = memdir / "memctl.toml"
    config.write_text(config.read_text().replace('preset = "default"', 'preset = "claude"'))

    async def check(client: ClientSession) -> None:
        tools = {t.name: wire(t) for t in (await client.list_tools()).tools}
        prop = tools["memory_add"]["inputSchema"]["properties"]["type"]
        assert prop["enum"] == ["user", "feedback", "project", "reference"] and prop["default"] == "user"
        assert tools["memory_list"]["inputSchema"]["properties"]["type"]["enum"] == [*prop["enum"], None]
        added = data(await client.call_tool("memory_add", {"content": "Alice wants terse answers, no preamble"}))
        assert added["memory"]["type"] == "user"  # not `unknown type 'fact'`
        assert "type: Input should be" in text(await client.call_tool("memory_list", {"memory_type": "banana"}))

    session(memdir, "--user", "alice", test=check)


def test_typed_facts_through_mcp(memdir: Path) -> None:
    async def check(client: ClientSession) -> None:
        tools = {t.name: wire(t) for t in (await client.list_tools()).tools}
        assert {"kind", "fields", "name", "description"} <= set(tools["memory_add"]["inputSchema"]["properties"])
        assert tools["memory_query"]["inputSchema"]["properties"]["op"]["enum"] == ["count", "sum", "latest",
                                                                                 "earliest", "list"]
        for day in ("2025-02-01", "2025-06-01", "2026-01-01"):
            added = data(await client.call_tool("memory_add", {"content": f"Alice's trip departing {day}",
                                                               "kind": "trip", "fields": {"departs": day},
                                                               "name": f"Trip {day}"}))
            assert added["memory"]["kind"] == "trip" and added["memory"]["fields"] == {"departs": day}
        answer = data(await client.call_tool("memory_query", {"op": "count", "kind": "trip",
                                                              "where": ["departs in 2025"]}))
        jsonschema.validate(answer, tools["memory_query"]["outputSchema"])
        assert answer["value"] == 2 and len(answer["memories"]) == 2
        assert "expected a value or a field" in text(await client.call_tool(
            "memory_query", {"op": "count", "kind": "trip", "where": ["departs <"]}))
        assert "op: unknown query 'median'" in text(await client.call_tool("memory_query", {"op": "median", "kind": "trip"}))

    session(memdir, "--user", "alice", test=check)


def test_an_empty_user_never_searches_everyones_memories(memdir: Path) -> None:
    store = MemoryStore(memdir)
    store.add_raw("Bob keeps his diary in a blue notebook", type="fact", user="bob")

    async def check(client: ClientSession) -> None:
        for tool, arguments in (("memory_search", {"query": "blue notebook diary", "user": ""}),
                                ("memory_context", {"query": "blue notebook diary", "user": ""}),
                                ("memory_list", {"user": ""})):
            problem = text(await client.call_tool(tool, arguments))
            assert problem.startswith("invalid_arguments: ") and "user" in problem and "Bob" not in problem

    session(memdir, "--user", "alice", test=check)


def test_a_deeply_nested_argument_is_a_clean_error(memdir: Path) -> None:
    """100k nested brackets in a tool argument (written by hand: no client serialises that deep):
    an error answer, never a crash, and the server keeps serving."""
    use_hashing_embedder(memdir)
    proc = subprocess.Popen([sys.executable, "-m", "memctl", "-d", str(memdir), "mcp", "--user", "alice"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None

    def ask(line: str) -> dict | None:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()
        if '"id"' not in line[:40]:
            return None
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "no answer within 60 s"
        return dict(json.loads(proc.stdout.readline()))

    try:
        ask(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        ask(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        deep = "[" * 100_000 + "]" * 100_000
        answer = ask('{"id": 2, "jsonrpc": "2.0", "method": "tools/call", "params": {"name": "memory_add", '
                     '"arguments": {"content": "Alice likes tea", "tags": ' + deep + '}}}')
        assert answer is not None and answer["id"] == 2 and answer["error"]["code"] == -32600
        assert "nested deeper than 64 levels" in answer["error"]["message"]
        listed = ask(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                 "params": {"name": "memory_list", "arguments": {}}}))
        assert listed is not None and listed["result"]["structuredContent"]["count"] == 0  # still serving
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
        assert b"RecursionError" not in proc.stderr.read()


def _four_session_writes(outcomes: list[str]) -> Callable[[ClientSession], Awaitable[None]]:
    async def check(client: ClientSession) -> None:
        for city in ("Lisbon", "Osaka", "Nairobi", "Denver"):
            result = await client.call_tool("memory_add", {"content": f"Alice flew to {city} last spring",
                                                           "session": "s1", "source": "user"})
            outcomes.append("written" if not wire(result)["isError"] else text(result).split(":")[0])
    return check


def test_agent_writes_count_as_automatic_unless_trusted(tmp_path: Path) -> None:
    from memctl.store.directory import init_directory

    limited: list[str] = []
    init_directory(tmp_path / "a")
    session(tmp_path / "a", "--user", "alice", test=_four_session_writes(limited))
    assert limited == ["written", "written", "written", "rate_limited"]

    trusted: list[str] = []
    init_directory(tmp_path / "b")
    session(tmp_path / "b", "--user", "alice", "--trust-source", test=_four_session_writes(trusted))
    assert trusted == ["written"] * 4
