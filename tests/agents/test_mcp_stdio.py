"""memctl mcp on raw piped stdin (a shell-scripted agent) and the prompts through the SDK's client."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession

from memctl.api import MemoryStore
from tests.agents.test_mcp import session
from tests.helpers import use_hashing_embedder


def initialize(revision: str, request_id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": {
        "protocolVersion": revision, "capabilities": {}, "clientInfo": {"name": "sh", "version": "1"}}}


def call(request_id: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}


def piped(root: Path, *lines: Any) -> list[Any]:
    """Pipe the lines (objects as JSON, text as it is) into `memctl mcp` at once, as printf would,
    and read every answer until it exits."""
    use_hashing_embedder(root)
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    done = subprocess.run([sys.executable, "-m", "memctl", "-d", str(root), "mcp", "--user", "alice"],
                          input=text.encode(), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def by_id(answers: list[Any]) -> dict[Any, Any]:
    return {a["id"]: a for a in answers if isinstance(a, dict)}


def test_every_request_read_before_eof_is_answered(memdir: Path) -> None:
    answers = piped(memdir, initialize("2025-11-25"),
                    call(2, "memory_add", {"content": "Alice prefers window seats on flights", "confidence": 0.9}),
                    call(3, "memory_list", {}))
    assert sorted(by_id(answers)) == [1, 2, 3]
    assert "prompts" in by_id(answers)[1]["result"]["capabilities"]  # advertised, and served (below)
    assert by_id(answers)[2]["result"]["structuredContent"]["written"] is True
    assert MemoryStore(memdir).list(user="alice")[0].content == "Alice prefers window seats on flights"


def test_bad_lines_get_the_spec_errors_and_the_server_keeps_serving(memdir: Path) -> None:
    answers = piped(memdir, initialize("2025-11-25"), "{not json", '"a string"', {"jsonrpc": "2.0", "id": 5},
                    {"jsonrpc": "1.0", "id": 6, "method": "ping"}, {"jsonrpc": "2.0", "id": True, "method": "ping"},
                    {"jsonrpc": "2.0", "id": 8, "method": "ping"})
    errors = [(a["id"], a["error"]["code"]) for a in answers if "error" in a]
    assert errors == [(None, -32700), (None, -32600), (5, -32600), (6, -32600), (None, -32600)]
    assert by_id(answers)[8]["result"] == {}  # still serving after them


def test_a_batch_is_answered_as_one_array_under_2025_03_26(memdir: Path) -> None:
    answers = piped(memdir, initialize("2025-03-26"),
                    [call("a", "memory_list", {}), {"jsonrpc": "2.0", "method": "notifications/initialized"},
                     {"jsonrpc": "2.0", "id": "b", "method": "ping"}, {"jsonrpc": "2.0", "id": "c"}],
                    [{"jsonrpc": "2.0", "method": "notifications/initialized"}], [], [1])
    assert answers[0]["id"] == 1 and answers[0]["result"]["protocolVersion"] == "2025-03-26"
    arrays = sorted((a for a in answers if isinstance(a, list)), key=len)  # answers come as they are ready
    assert len(answers) == 4 and len(arrays) == 2  # a batch of notifications gets no answer
    assert arrays[0] == [{"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message":
                                                                  "invalid request: a message must be a JSON object"}}]
    assert sorted(a["id"] for a in arrays[1]) == ["a", "b", "c"]
    assert by_id(arrays[1])["a"]["result"]["structuredContent"]["count"] == 0
    assert by_id(arrays[1])["c"]["error"]["code"] == -32600
    assert by_id(answers)[None]["error"] == {"code": -32600, "message": "invalid request: an empty batch"}


def test_a_batch_is_invalid_where_the_revision_has_none(memdir: Path) -> None:
    answers = piped(memdir, initialize("2025-06-18"), [{"jsonrpc": "2.0", "id": 2, "method": "ping"}])
    assert answers[1]["id"] is None and answers[1]["error"]["code"] == -32600
    assert "2025-06-18" in answers[1]["error"]["message"]


def test_the_recall_and_remember_prompts(memdir: Path) -> None:
    MemoryStore(memdir).add_raw("Alice prefers window seats on flights", type="preference", user="alice")

    async def check(client: ClientSession) -> None:
        listed = {p.name: p for p in (await client.list_prompts()).prompts}
        assert list(listed) == ["recall", "remember"]
        assert [(a.name, a.required) for a in listed["recall"].arguments] == [("query", True), ("user", False),
                                                                               ("project", False)]
        recalled = await client.get_prompt("recall", {"query": "which seat on a flight"})
        assert "window seats" in recalled.messages[0].content.text
        remember = await client.get_prompt("remember", {"text": "I am vegetarian"})
        assert "memory_add" in remember.messages[0].content.text and "I am vegetarian" in remember.messages[0].content.text
        assert len(MemoryStore(memdir).list(user="alice")) == 1  # getting a prompt writes nothing
        for name, arguments in (("recall", {}), ("teleport", {"query": "x"})):
            try:
                await client.get_prompt(name, arguments)
            except Exception as exc:
                assert "required" in str(exc) or "unknown prompt" in str(exc)
            else:
                raise AssertionError(f"{name} {arguments} was accepted")

    session(memdir, "--user", "alice", test=check)
