"""memctl mcp: the agent tools, the JSON-RPC dispatch in-process, and one real stdio session."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from memctl.agents.mcp import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, McpServer
from memctl.agents.tools import TOOLS, Defaults, InvalidArguments, call_tool, check_arguments, fill_defaults
from memctl.api import MemoryStore
from tests.helpers import use_hashing_embedder

CARD = "My card number is 4111 1111 1111 1111"


def rpc(msg_id: int | None, method: str, params: dict | None = None) -> dict:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if msg_id is not None:
        message["id"] = msg_id
    if params is not None:
        message["params"] = params
    return message


def call(msg_id: int, name: str, **arguments: Any) -> dict:
    return rpc(msg_id, "tools/call", {"name": name, "arguments": arguments})


def payload(reply: dict) -> Any:
    """The JSON data inside a successful tool result."""
    result = reply["result"]
    assert result["isError"] is False, result
    return json.loads(result["content"][0]["text"])


@pytest.fixture
def server(memdir: Path) -> McpServer:
    return McpServer(lambda: MemoryStore(memdir), Defaults(user="alice"))


# -- arguments ------------------------------------------------------------------------

@pytest.mark.parametrize("tool, arguments, problem", [
    ("memory_recall", {}, "query is required"),
    ("memory_recall", {"query": "x", "k": "5"}, "k must be an integer"),
    ("memory_recall", {"query": "x", "k": True}, "k must be an integer"),
    ("memory_recall", {"query": "x", "k": 0}, "k must be between"),
    ("memory_recall", {"query": "x", "mode": "fuzzy"}, "mode must be one of"),
    ("memory_recall", {"query": "   "}, "query must not be empty"),
    ("memory_recall", {"query": "x", "colour": "red"}, "unknown argument 'colour'"),
    ("memory_add", {"content": "x", "tags": ["a", 1]}, "tags must be a list of strings"),
    ("memory_add", {"content": "x", "confidence": 1.5}, "confidence must be between"),
    ("memory_forget", {"reason": "wrong"}, "id is required"),
    ("memory_list", [], "arguments must be a JSON object"),
])
def test_bad_arguments_are_refused_with_the_reason(tool: str, arguments: Any, problem: str) -> None:
    with pytest.raises(InvalidArguments, match=problem):
        check_arguments(TOOLS[tool], arguments)


@pytest.mark.parametrize("tool, arguments, expected", [
    ("memory_recall", {"query": "x", "k": 3, "mode": "keyword"}, {"query": "x", "k": 3, "mode": "keyword"}),
    ("memory_add", {"content": "x", "confidence": 1, "tags": ["a"]}, {"content": "x", "confidence": 1, "tags": ["a"]}),
    ("memory_list", None, {}),
    ("memory_list", {"user": None, "limit": 2}, {"limit": 2}),  # nulls count as omitted
])
def test_good_arguments_pass(tool: str, arguments: Any, expected: dict) -> None:
    assert check_arguments(TOOLS[tool], arguments) == expected


@pytest.mark.parametrize("tool, args, defaults, expected", [
    ("memory_recall", {"query": "q"}, Defaults("alice", "shop"), {"query": "q", "user": "alice", "project": "shop"}),
    ("memory_recall", {"query": "q", "user": "bob"}, Defaults("alice"), {"query": "q", "user": "bob", "project": None}),
    ("memory_add", {"content": "c"}, Defaults("alice", "shop"), {"content": "c", "user": "alice"}),
    ("memory_add", {"content": "c"}, Defaults(None, "shop"), {"content": "c", "project": "shop"}),
    ("memory_add", {"content": "c", "project": "web"}, Defaults("alice"), {"content": "c", "project": "web"}),
    ("memory_list", {}, Defaults(), {}),
    ("memory_forget", {"id": "abcd"}, Defaults("alice", "shop"), {"id": "abcd"}),
])
def test_server_defaults_fill_what_the_call_omits(tool: str, args: dict, defaults: Defaults, expected: dict) -> None:
    assert fill_defaults(TOOLS[tool], args, defaults) == expected


# -- the tools over a store ----------------------------------------------------------------

def test_tools_return_the_cli_data_shapes(store: MemoryStore) -> None:
    added = call_tool(store, "memory_add", {"content": "Alice prefers window seats on flights",
                                            "type": "preference", "user": "alice"})
    assert added["written"] and added["memory"]["source"] == "ai" and added["decision"]["action"] == "add"
    memory_id = added["memory"]["id"]
    hits = call_tool(store, "memory_recall", {"query": "window seat", "user": "alice"})["hits"]
    assert [h["id"] for h in hits] == [memory_id] and set(hits[0]) >= {"id", "path", "type", "scope", "content", "score"}
    listed = call_tool(store, "memory_list", {"user": "alice"})
    assert listed["count"] == 1 and listed["memories"][0]["id"] == memory_id
    gone = call_tool(store, "memory_forget", {"id": memory_id, "reason": "user asked"})
    assert gone["memory"]["status"] == "forgotten"
    assert call_tool(store, "memory_list", {"user": "alice"})["count"] == 0


def test_list_is_newest_first_and_limited(store: MemoryStore) -> None:
    from memctl import clock

    for day, text in enumerate(["Alice lives in Lisbon now", "Alice works as a nurse", "Alice plays the cello"], 1):
        clock.set_now(clock.parse_timestamp(f"2026-01-0{day}T00:00:00Z"))
        store.add_raw(text, type="fact", user="alice")
    listed = call_tool(store, "memory_list", {"user": "alice", "limit": 2})
    assert [m["content"] for m in listed["memories"]] == ["Alice plays the cello", "Alice works as a nurse"]


# -- JSON-RPC dispatch in-process -------------------------------------------------------------

@pytest.mark.parametrize("asked, answered", [
    ("2024-11-05", "2024-11-05"), ("2025-03-26", "2025-03-26"), ("2025-06-18", "2025-06-18"),
    ("1999-01-01", "2025-06-18"), (None, "2025-06-18"),
])
def test_initialize_answers_the_clients_version_if_supported(server: McpServer, asked: str | None, answered: str) -> None:
    reply = server.handle(rpc(1, "initialize", {"protocolVersion": asked, "capabilities": {}}))
    result = reply["result"]
    assert result["protocolVersion"] == answered
    assert result["serverInfo"]["name"] == "memctl" and result["capabilities"] == {"tools": {}}


@pytest.mark.parametrize("line, code", [
    (b"{not json", PARSE_ERROR),
    (b"\xff\xfe", PARSE_ERROR),
    (b'{"id": 1, "method": "ping"}', INVALID_REQUEST),  # no jsonrpc member
    (b"[]", INVALID_REQUEST),
    (b"42", INVALID_REQUEST),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "resources/list"}', METHOD_NOT_FOUND),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "nope"}}', INVALID_PARAMS),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_recall", "arguments": {}}}', INVALID_PARAMS),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]}', INVALID_PARAMS),
])
def test_protocol_errors(server: McpServer, line: bytes, code: int) -> None:
    assert json.loads(server.handle_line(line))["error"]["code"] == code


@pytest.mark.parametrize("line", [
    b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
    b'{"jsonrpc": "2.0", "method": "no/such/notification"}',  # a notification never gets a reply, even an error
    b'{"jsonrpc": "2.0", "id": 7, "result": {}}',  # a response to nothing we sent
    b"   \n",
])
def test_no_reply_is_due(server: McpServer, line: bytes) -> None:
    assert server.handle_line(line) is None


def test_ping_and_batch(server: McpServer) -> None:
    assert server.handle(rpc(3, "ping")) == {"jsonrpc": "2.0", "id": 3, "result": {}}
    replies = json.loads(server.handle_line(json.dumps([rpc(1, "ping"), rpc(None, "notifications/initialized"),
                                                        rpc(2, "tools/list")])))
    assert [r["id"] for r in replies] == [1, 2]


def test_a_missing_directory_is_a_tool_error_not_a_crash(tmp_path: Path) -> None:
    from memctl.errors import NoDirectory

    def opener() -> MemoryStore:
        raise NoDirectory("no memory directory here (run memctl init)")

    reply = McpServer(opener).handle(call(1, "memory_list"))
    assert reply["result"]["isError"] is True
    assert reply["result"]["content"][0]["text"].startswith("no_directory: ")


def test_an_unexpected_exception_is_an_internal_error_reply(server: McpServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MemoryStore, "list", lambda *a, **k: 1 / 0)
    reply = server.handle(call(1, "memory_list"))
    assert reply["error"]["code"] == -32603 and "division" in reply["error"]["message"]
    assert server.handle(rpc(2, "ping"))["result"] == {}


def test_the_default_user_owns_an_add(server: McpServer) -> None:
    data = payload(server.handle(call(1, "memory_add", content="Alice is allergic to peanuts")))
    assert data["memory"]["user"] == "alice" and data["memory"]["scope"] == "user"


# -- one real stdio session -------------------------------------------------------------------

class Session:
    """`python -m memctl -d DIR mcp` with line-at-a-time request/response and a read timeout."""

    def __init__(self, root: Path, *extra: str) -> None:
        use_hashing_embedder(root)
        env = dict(os.environ)
        self.proc = subprocess.Popen([sys.executable, "-m", "memctl", "-d", str(root), "mcp", *extra],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()

    def _pump(self) -> None:
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.put(line)

    def send(self, message: dict | bytes) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def ask(self, message: dict | bytes) -> dict:
        self.send(message)
        return json.loads(self.lines.get(timeout=30))

    def close(self) -> tuple[int, bytes]:
        self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        self.pump.join(timeout=10)
        return code, self.proc.stderr.read()


def test_stdio_session_end_to_end(memdir: Path) -> None:
    s = Session(memdir, "--user", "alice")
    try:
        init = s.ask(rpc(1, "initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                                           "clientInfo": {"name": "pytest", "version": "0"}}))
        assert init["id"] == 1 and init["result"]["protocolVersion"] == "2024-11-05"
        s.send(rpc(None, "notifications/initialized"))
        tools = s.ask(rpc(2, "tools/list"))["result"]["tools"]
        assert [t["name"] for t in tools] == ["memory_recall", "memory_add", "memory_context", "memory_forget", "memory_list",
                                             "memory_query"]
        for tool in tools:
            assert tool["description"] and tool["inputSchema"]["type"] == "object"
        schemas = {t["name"]: t["inputSchema"] for t in tools}
        assert schemas["memory_recall"]["required"] == ["query"] and schemas["memory_add"]["required"] == ["content"]
        assert schemas["memory_forget"]["required"] == ["id"]

        added = payload(s.ask(call(3, "memory_add", content="Alice prefers window seats on flights", type="preference")))
        assert added["written"] is True and added["memory"]["user"] == "alice"
        hits = payload(s.ask(call(4, "memory_recall", query="which seat does Alice like")))["hits"]
        assert hits[0]["id"] == added["memory"]["id"]
        block = payload(s.ask(call(5, "memory_context", query="book a flight for me", budget=400)))
        assert "window seats" in block["text"] and block["tokens"] <= 400

        refused = s.ask(call(6, "memory_add", content=CARD))["result"]
        assert refused["isError"] is True and refused["content"][0]["text"].startswith("sensitive: ")
        unknown_tool = s.ask(call(7, "memory_teleport"))
        assert unknown_tool["error"]["code"] == INVALID_PARAMS
        assert s.ask(rpc(8, "resources/list"))["error"]["code"] == METHOD_NOT_FOUND
        assert s.ask(b"{this is not json")["error"]["code"] == PARSE_ERROR
        assert s.ask(rpc(9, "ping")) == {"jsonrpc": "2.0", "id": 9, "result": {}}  # still serving
    finally:
        code, stderr = s.close()
    assert code == 0, stderr.decode(errors="replace")
    assert s.lines.empty()  # nothing on stdout but the replies read above
