"""MCP over streamable HTTP at /mcp on a real `memctl serve`, driven by the official SDK's client:
every tool listed and called, and the REST rules for tokens, actors, Host and Origin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from memctl.agents.tools import TOOLS
from memctl.api import MemoryStore
from tests.helpers import ServeProcess, http

TOKEN = "a-long-enough-test-token-42"


def over_http(url: str, check: Callable[[ClientSession], Awaitable[None]], headers: dict[str, str] | None = None) -> None:
    async def main() -> None:
        with anyio.fail_after(90):
            async with httpx2.AsyncClient(headers=headers or {}, timeout=60) as client, \
                    streamable_http_client(f"{url}/mcp", http_client=client) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                await check(session)

    anyio.run(main)


def data(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    return dict(result.structured_content)


def test_every_tool_over_streamable_http(memdir: Path) -> None:
    async def check(client: ClientSession) -> None:
        assert [t.name for t in (await client.list_tools()).tools] == list(TOOLS)
        added = data(await client.call_tool("memory_add", {"text": "Alice's trip to Lisbon departs 2026-03-10",
                                                           "kind": "trip", "confidence": 0.9, "fields": [
                                                               {"name": "departs", "value": "2026-03-10"}]}))
        memory_id = added["memory"]["id"]
        assert added["written"] and added["memory"]["user"] == "alice" and added["memory"]["source"] == "ai"
        assert data(await client.call_tool("memory_search", {"query": "Lisbon trip"}))["hits"][0]["id"] == memory_id
        assert "Lisbon" in data(await client.call_tool("memory_context", {"query": "Lisbon trip"}))["text"]
        assert data(await client.call_tool("memory_update", {"id": memory_id, "tags": ["travel"]}))["memory"]["tags"] \
            == ["travel"]
        assert data(await client.call_tool("memory_list", {}))["count"] == 1
        assert data(await client.call_tool("memory_query", {"op": "count", "kind": "trip"}))["value"] == 1
        assert data(await client.call_tool("memory_forget", {"id": memory_id}))["memory"]["status"] == "forgotten"
        assert [p.name for p in (await client.list_prompts()).prompts] == ["recall", "remember"]
        assert [str(r.uri) for r in (await client.list_resources()).resources] == []

    with ServeProcess(memdir, "--user", "alice") as server:
        over_http(server.url, check)
    assert MemoryStore(memdir).list(user="alice") == []  # forgotten: in the archive


def test_the_rest_rules_hold_for_mcp(memdir: Path) -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with ServeProcess(memdir, env={"MEMCTL_TOKENS": f"alice={TOKEN},bob=another-long-test-token-77"}) as server:
        status, _, body = http(server.url, "POST", "/mcp", ping, headers=accept)
        assert status == 401 and body["errors"][0]["code"] == "unauthorized"
        bearer = {**accept, "Authorization": f"Bearer {TOKEN}"}
        assert http(server.url, "POST", "/mcp", ping, headers={**bearer, "Origin": "https://evil.example"})[0] == 403
        assert http(server.url, "POST", "/mcp", ping, headers={**bearer, "Host": "evil.example"})[0] == 403

        async def as_alice(client: ClientSession) -> None:  # the token's person is the actor
            added = data(await client.call_tool("memory_add", {"text": "Alice keeps her diary in a blue notebook",
                                                               "user": "alice", "visibility": "owner_only"}))
            assert added["memory"]["author"] == "alice"

        async def as_bob(client: ClientSession) -> None:  # owner_only: bob never sees alice's memory
            assert data(await client.call_tool("memory_list", {"user": "alice"}))["count"] == 0

        over_http(server.url, as_alice, {"Authorization": f"Bearer {TOKEN}"})
        over_http(server.url, as_bob, {"Authorization": "Bearer another-long-test-token-77"})
