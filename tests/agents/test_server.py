"""memctl serve: the bind policy, and a live server on 127.0.0.1 (port 0) hit with urllib."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from memctl.agents.http import MemoryHTTPServer, check_bind_host, is_loopback, make_server
from memctl.agents.mcp import Defaults
from memctl.api import MemoryStore
from memctl.errors import UsageError

ENVELOPE_KEYS = {"version", "command", "ok", "data", "errors"}


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.9.9.9", True), ("::1", True), ("[::1]", True), ("localhost", True),
    ("LOCALHOST", True), ("0.0.0.0", False), ("::", False), ("192.168.1.5", False), ("", False),
    ("example.com", False), ("localhost.evil.example", False),
])
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.parametrize("host", ["0.0.0.0", "10.0.0.2", "::", "myhost.lan"])
def test_non_loopback_hosts_need_allow_remote(host: str) -> None:
    with pytest.raises(UsageError) as info:
        check_bind_host(host, allow_remote=False)
    assert info.value.code == "remote_refused" and "--allow-remote" in info.value.message
    assert "anyone who can reach" in check_bind_host(host, allow_remote=True)


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost"])
def test_loopback_hosts_bind_without_a_warning(host: str) -> None:
    assert check_bind_host(host, allow_remote=False) is None


def test_cli_refuses_a_remote_host_before_binding(memdir: Path) -> None:
    from tests.helpers import cli

    result = cli(memdir, "serve", "--host", "0.0.0.0", "--port", "1")
    assert result.exit_code == 2 and "--allow-remote" in result.stderr


# -- a live server ---------------------------------------------------------------------------

@pytest.fixture
def server(memdir: Path) -> Iterator[MemoryHTTPServer]:
    store = MemoryStore(memdir)
    store.warm_up()
    srv = make_server(store, "127.0.0.1", 0, defaults=Defaults(project=None), log_requests=False)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=10)


def request(server: MemoryHTTPServer, method: str, path: str, body: Any = None,
            headers: dict | None = None) -> tuple[int, dict]:
    """Send one request to the live server; (status, parsed envelope) for success and errors alike."""
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{server.server_address[1]}{path}", data=data,
                                 method=method, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def add(server: MemoryHTTPServer, content: str, **fields: Any) -> tuple[int, dict]:
    return request(server, "POST", "/add", {"content": content, "user": "alice", **fields})


def test_health(server: MemoryHTTPServer) -> None:
    status, env = request(server, "GET", "/health")
    assert status == 200 and set(env) == ENVELOPE_KEYS
    assert env["ok"] is True and env["command"] == "health" and env["data"]["status"] == "ok"
    assert server.url.startswith("http://127.0.0.1:")


def test_add_recall_context_list(server: MemoryHTTPServer) -> None:
    status, env = add(server, "Alice prefers window seats on flights", type="preference")
    assert status == 200 and env["command"] == "add" and env["data"]["written"] is True
    memory_id = env["data"]["memory"]["id"]

    status, env = request(server, "POST", "/recall", {"query": "seat preference", "user": "alice", "k": 3})
    assert status == 200 and env["command"] == "recall" and env["data"]["hits"][0]["id"] == memory_id

    status, env = request(server, "POST", "/context", {"query": "book me a flight", "user": "alice"})
    assert status == 200 and env["command"] == "context" and "window seats" in env["data"]["text"]

    status, env = request(server, "GET", "/memories?user=alice&limit=10")
    assert status == 200 and env["command"] == "list"
    assert [m["id"] for m in env["data"]["memories"]] == [memory_id]
    assert request(server, "GET", "/memories?user=bob")[1]["data"]["count"] == 0


def test_query_over_http(server: MemoryHTTPServer) -> None:
    for day in ("2025-02-01", "2025-06-01", "2026-01-01"):
        server.store.add_raw(f"Trip departing {day}", user="alice", kind="trip", fields={"departs": day})
    status, env = request(server, "POST", "/query", {"op": "count", "kind": "trip", "where": ["departs in 2025"],
                                                     "user": "alice"})
    assert status == 200 and env["command"] == "query" and env["data"]["value"] == 2
    status, env = request(server, "POST", "/query", {"op": "count", "kind": "trip", "where": ["departs <"]})
    assert status == 400 and "expected a value or a field" in env["errors"][0]["message"]


@pytest.mark.parametrize("method, path, body, status, code", [
    ("POST", "/add", {"content": "My card number is 4111 1111 1111 1111", "user": "alice"}, 422, "sensitive"),
    ("POST", "/add", {"content": "Alice likes tea", "user": "alice", "confidence": 0.2}, 422, "low_confidence"),
    ("POST", "/add", {"content": "Alice likes tea"}, 400, "no_owner"),
    ("POST", "/add", {"content": "Alice likes tea", "user": "alice", "type": "gossip"}, 400, "unknown_type"),
    ("POST", "/recall", b"{not json", 400, "bad_json"),
    ("POST", "/recall", b"[1, 2]", 400, "bad_json"),
    ("POST", "/recall", b"", 400, "bad_json"),
    ("POST", "/recall", {"query": "x", "k": "five"}, 400, "invalid_arguments"),
    ("POST", "/recall", {"query": "x", "colour": "red"}, 400, "invalid_arguments"),
    ("POST", "/context", {"query": "x", "budget": 0}, 400, "invalid_arguments"),
    ("GET", "/memories?limit=many", None, 400, "invalid_arguments"),
    ("GET", "/nowhere", None, 404, "not_found"),
    ("POST", "/memories/abcd", {}, 404, "not_found"),
    ("GET", "/recall", None, 405, "method_not_allowed"),
    ("POST", "/health", {}, 405, "method_not_allowed"),
])
def test_errors_map_to_statuses(server: MemoryHTTPServer, method: str, path: str, body: Any, status: int,
                                code: str) -> None:
    got, env = request(server, method, path, body)
    assert got == status, env
    assert env["ok"] is False and env["errors"][0]["code"] == code and set(env) == ENVELOPE_KEYS


def test_a_refusal_carries_the_verdict(server: MemoryHTTPServer) -> None:
    status, env = add(server, "My card number is 4111 1111 1111 1111")
    assert status == 422 and env["data"]["verdict"]["passed"] is False and env["data"]["written"] is False


@pytest.mark.parametrize("headers", [{"Host": "evil.example:8765"}, {"Origin": "http://evil.example"}])
def test_other_sites_are_forbidden(server: MemoryHTTPServer, headers: dict) -> None:
    """DNS rebinding (a foreign Host) and cross-site requests (a foreign Origin) never reach the store."""
    status, env = request(server, "POST", "/add", {"content": "Alice was hacked today", "user": "alice"}, headers)
    assert status == 403 and env["errors"][0]["code"] == "forbidden"
    assert request(server, "GET", "/memories")[1]["data"]["count"] == 0
    assert request(server, "GET", "/health", headers={"Origin": "http://localhost:3000"})[0] == 200


def test_concurrent_adds_are_all_written(server: MemoryHTTPServer) -> None:
    facts = [f"Alice visited city number {n} in {2000 + n}" for n in range(8)]
    results: list[int] = []
    threads = [threading.Thread(target=lambda f=f: results.append(add(server, f, type="event")[0])) for f in facts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert results == [200] * len(facts)
    assert request(server, "GET", "/memories?user=alice&limit=0")[1]["data"]["count"] == len(facts)
