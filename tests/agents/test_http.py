"""memctl serve's REST API: every route on real uvicorn (a free loopback port), hit with http.client."""

from __future__ import annotations

import json
import os
import re
import socket
import threading
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit

import pytest

from memctl.agents.guard import Access, check_bind_host, is_loopback
from memctl.agents.http import create_app
from memctl.agents.tools import Defaults
from memctl.api import MemoryStore
from memctl.errors import MemctlError, UsageError
from tests.helpers import http, http_server

ENVELOPE_KEYS = {"version", "command", "ok", "data", "errors"}
CARD = "My card number is 4111 1111 1111 1111"
TOKEN = "s3cret-token-for-tests-0123"


@pytest.fixture
def served(store: MemoryStore) -> Iterator[tuple[str, MemoryStore]]:
    with http_server(create_app(store, Access(defaults=Defaults(user="alice")))) as url:
        yield url, store


@pytest.fixture
def url(served: tuple[str, MemoryStore]) -> str:
    return served[0]


def ok(answer: tuple[int, dict, Any], status: int = 200) -> dict:
    code, _, env = answer
    assert code == status and set(env) == ENVELOPE_KEYS and env["ok"] is True, env
    return dict(env["data"])


def failed(answer: tuple[int, dict, Any], status: int, code: str) -> dict:
    got, _, env = answer
    assert got == status and set(env) == ENVELOPE_KEYS and env["ok"] is False, env
    assert env["errors"][0]["code"] == code, env
    return dict(env)


def add(url: str, owner: str, content: str, **fields: Any) -> tuple[int, dict, Any]:
    return http(url, "POST", owner, {"content": content, **fields})


# -- the memory routes -------------------------------------------------------------------------

@pytest.mark.parametrize("owner, kind", [("/api/memory/alice", "user"), ("/api/project/shop/memory", "project")])
def test_add_list_search_tree_get_put_delete(url: str, owner: str, kind: str) -> None:
    written = ok(add(url, owner, "The checkout runs on Go and Postgres", type="context", subtype="stack",
                     tags="infra"), 201)
    assert written["written"] and written["decision"]["action"] == "add"
    memory = written["memory"]
    assert memory[kind] == urlsplit(url + owner).path.split("/")[3] and memory["tags"] == ["infra"]
    memory_id = memory["id"]
    noop = ok(add(url, owner, "The checkout runs on Go and Postgres", type="context"), 200)
    assert noop["written"] is False and noop["decision"] == {**noop["decision"], "action": "noop", "target": memory_id}

    assert [m["id"] for m in ok(http(url, "GET", owner))["memories"]] == [memory_id]
    assert ok(http(url, "GET", f"{owner}?type=context&subtype=stack&tag=infra&limit=5&offset=0"))["count"] == 1
    assert ok(http(url, "GET", f"{owner}?subtype=other"))["count"] == 0
    assert ok(http(url, "GET", f"{owner}?offset=1"))["count"] == 0
    found = ok(http(url, "GET", f"{owner}/search?q=checkout+Postgres&k=3&type=context"))
    assert [h["id"] for h in found["hits"]] == [memory_id], found
    tree = ok(http(url, "GET", f"{owner}/tree"))
    assert tree["count"] == 1 and [m["id"] for m in tree["types"]["context"]["stack"]] == [memory_id]

    shown = ok(http(url, "GET", f"{owner}/{memory_id[:6]}"))["memory"]
    assert shown["id"] == memory_id and "importance_score" in shown
    changed = ok(http(url, "PUT", f"{owner}/{memory_id}", {"content": "The checkout runs on Go and MySQL",
                                                           "tags": ["infra", "db"], "confidence": 0.9}))["memory"]
    assert changed["content"].endswith("MySQL") and changed["tags"] == ["infra", "db"] and changed["confidence"] == 0.9
    gone = ok(http(url, "DELETE", f"{owner}/{memory_id}?reason=obsolete"))["memory"]
    assert gone["status"] == "forgotten" and gone["path"].startswith("archive/")
    assert ok(http(url, "GET", owner))["count"] == 0
    assert ok(http(url, "GET", f"{owner}?state=forgotten"))["count"] == 1


@pytest.mark.parametrize("body, status, code", [
    ({"content": CARD}, 422, "sensitive"),
    ({"content": "Alice likes green tea", "confidence": 0.2}, 422, "low_confidence"),
    ({"content": "Alice likes green tea", "type": "gossip"}, 400, "invalid_arguments"),
    ({"content": "   "}, 400, "invalid_arguments"),
    ({"content": "Alice likes green tea", "colour": "red"}, 400, "invalid_arguments"),
    ({"content": "Alice likes green tea", "user": "bob"}, 400, "owner_mismatch"),
    ({"content": "Alice likes green tea", "project": "shop"}, 400, "owner_mismatch"),
    ({"content": "Alice likes green tea", "session": "../up"}, 400, "invalid_arguments"),
    ([1, 2], 400, "invalid_arguments"),
    (b"{not json", 400, "invalid_arguments"),
])
def test_add_refusals_and_bad_bodies(url: str, body: Any, status: int, code: str) -> None:
    env = failed(http(url, "POST", "/api/memory/alice", body), status, code)
    if status == 422:
        assert env["data"]["verdict"]["passed"] is False and env["data"]["written"] is False
    assert ok(http(url, "GET", "/api/memory/alice"))["count"] == 0


@pytest.mark.parametrize("method, path, body, status, code", [
    ("GET", "/api/memory/a%20b", None, 400, "invalid_arguments"),
    ("GET", "/api/memory/alice?limit=many", None, 400, "invalid_arguments"),
    ("GET", "/api/memory/alice?limit=-1", None, 400, "invalid_arguments"),
    ("GET", "/api/memory/alice?state=lost", None, 400, "invalid_arguments"),
    ("GET", "/api/memory/alice?type=banana", None, 400, "invalid_arguments"),
    ("GET", "/api/memory/alice/search", None, 400, "invalid_arguments"),
    ("GET", "/api/memory/alice/search?q=x&k=0", None, 400, "invalid_arguments"),
    ("GET", "/api/memory/alice/ZZZZ", None, 400, "invalid_id"),
    ("GET", "/api/memory/../abcdef12", None, 400, "bad_name"),
    ("DELETE", "/api/memory/..%2F/abcdef12", None, 404, "not_found"),
    ("GET", "/api/memory/%2e%2e/tree", None, 400, "bad_name"),
    ("GET", "/api/memory/alice/abcdef12", None, 404, "not_found"),
    ("PUT", "/api/memory/alice/abcdef12", {"key": "x"}, 404, "not_found"),
    ("DELETE", "/api/memory/alice/abcdef12", None, 404, "not_found"),
    ("GET", "/api/context?q=hi&user=../x", None, 400, "invalid_arguments"),
    ("GET", "/api/context?user=alice", None, 400, "invalid_arguments"),
    ("GET", "/api/context?q=hi&format=pdf", None, 400, "invalid_arguments"),
    ("GET", "/nowhere", None, 404, "not_found"),
    ("GET", "/api/memory", None, 404, "not_found"),
])
def test_bad_requests_get_the_envelope(url: str, method: str, path: str, body: Any, status: int, code: str) -> None:
    failed(http(url, method, path, body), status, code)


def test_ids_are_not_a_key_to_other_owners_memories(url: str) -> None:
    memory_id = ok(add(url, "/api/memory/alice", "Alice keeps her passport in the desk"), 201)["memory"]["id"]
    for method, body in (("GET", None), ("PUT", {"content": "Bob owns it now"}), ("DELETE", None)):
        failed(http(url, method, f"/api/memory/bob/{memory_id}", body), 404, "not_found")
        failed(http(url, method, f"/api/project/shop/memory/{memory_id}", body), 404, "not_found")
    assert ok(http(url, "GET", f"/api/memory/alice/{memory_id}"))["memory"]["content"].endswith("desk")


def test_put_checks_what_it_changes(url: str) -> None:
    memory_id = ok(add(url, "/api/memory/alice", "Alice pays with her work card"), 201)["memory"]["id"]
    failed(http(url, "PUT", f"/api/memory/alice/{memory_id}", {"content": CARD}), 422, "sensitive")
    failed(http(url, "PUT", f"/api/memory/alice/{memory_id}", {"user": "bob"}), 400, "immutable_field")
    failed(http(url, "PUT", f"/api/memory/alice/{memory_id}", {}), 400, "nothing_to_change")
    assert ok(http(url, "PUT", f"/api/memory/alice/{memory_id}", {"user": "alice", "key": "pay.card"}))["memory"][
        "key"] == "pay.card"


def test_context_health_and_the_schema(served: tuple[str, MemoryStore]) -> None:
    url, store = served
    ok(add(url, "/api/memory/alice", "Alice prefers window seats on flights", type="preference"), 201)
    block = ok(http(url, "GET", "/api/context?q=book+me+a+flight&budget=300"))  # the server's --user: alice
    assert "window seats" in block["text"] and block["tokens"] <= 300
    assert ok(http(url, "GET", "/api/context?q=book+me+a+flight&format=xml"))["format"] == "xml"
    health = ok(http(url, "GET", "/api/health"))
    assert health["status"] == "ok" and health["root"] == str(store.root)
    code, _headers, spec = http(url, "GET", "/openapi.json")
    assert code == 200 and {"/api/memory/{user}", "/api/memory/{user}/{memory_id}", "/api/memory/{user}/search",
                            "/api/memory/{user}/tree", "/api/project/{project}/memory", "/api/context",
                            "/api/health"} <= set(spec["paths"])
    assert set(spec["paths"]["/api/memory/{user}/{memory_id}"]) == {"get", "put", "delete"}
    conn_status, conn_headers, _ = _raw_get(url, "/docs")
    assert conn_status == 200 and conn_headers["content-type"].startswith("text/html")


def _raw_get(url: str, path: str) -> tuple[int, dict, bytes]:
    from http.client import HTTPConnection

    parts = urlsplit(url)
    conn = HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.request("GET", path)
    resp = conn.getresponse()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()


def test_a_file_edited_on_disk_is_seen_by_the_next_search(served: tuple[str, MemoryStore]) -> None:
    url, store = served
    memory = ok(add(url, "/api/memory/alice", "Alice lives in Lisbon"), 201)["memory"]
    path = store.root / memory["path"]
    edited = path.read_text(encoding="utf-8").replace("Alice lives in Lisbon", "Alice moved to Reykjavik")
    tmp = path.with_name(".edit.tmp")  # saved the way sed -i and most editors do: a new file renamed over
    tmp.write_text(edited, encoding="utf-8")
    os.replace(tmp, path)
    hits = ok(http(url, "GET", "/api/memory/alice/search?q=Reykjavik&mode=keyword"))["hits"]
    assert [h["content"] for h in hits] == ["Alice moved to Reykjavik"]
    (path.parent / "by-hand-0badcafe.md").write_text(
        "---\nid: 0badcafe\ntype: fact\nuser: alice\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n"
        "---\nAlice learned to sail in Reykjavik\n", encoding="utf-8")
    hits = ok(http(url, "GET", "/api/memory/alice/search?q=sail&mode=keyword"))["hits"]
    assert [h["id"] for h in hits] == ["0badcafe"]


def test_a_warm_server_sees_an_in_place_edit_by_the_next_search(store: MemoryStore) -> None:
    """A warmed store follows the kernel's change notices: a file rewritten in place (same inode, its
    folder's mtime unchanged) is searched as it is now, with no wait for a rescan."""
    store.warm_up()
    with http_server(create_app(store, Access(defaults=Defaults(user="alice")))) as url:
        memory = ok(add(url, "/api/memory/alice", "Alice lives in Lisbon"), 201)["memory"]
        assert ok(http(url, "GET", "/api/memory/alice/search?q=Lisbon&mode=keyword"))["hits"]
        path = store.root / memory["path"]
        with open(path, "r+", encoding="utf-8") as handle:
            text = handle.read()
            handle.seek(0)
            handle.write(text.replace("Alice lives in Lisbon", "Alice lives in Bergen"))
        hits = ok(http(url, "GET", "/api/memory/alice/search?q=Bergen&mode=keyword"))["hits"]
        assert [h["content"] for h in hits] == ["Alice lives in Bergen"]
        path.unlink()
        assert ok(http(url, "GET", "/api/memory/alice/search?q=Bergen&mode=keyword"))["hits"] == []


def test_visibility_is_set_by_post_and_put_and_checked(served: tuple[str, MemoryStore]) -> None:
    url, store = served
    memory = ok(add(url, "/api/memory/alice", "Alice keeps her diary in a blue notebook", visibility="owner_only"),
                201)["memory"]
    assert memory["visibility"] == "owner_only" and store.get(memory["id"]).visibility == "owner_only"
    failed(add(url, "/api/memory/alice", "Alice likes plums a lot", visibility="everyone"), 400, "invalid_arguments")
    changed = ok(http(url, "PUT", f"/api/memory/alice/{memory['id']}", {"visibility": "members"}))["memory"]
    assert changed["visibility"] == "members"
    failed(http(url, "PUT", f"/api/memory/alice/{memory['id']}", {"visibility": "nobody"}), 400, "invalid_arguments")
    assert store.get(memory["id"]).visibility == "members"
    assert [m["content"] for m in ok(http(url, "GET", "/api/memory/alice"))["memories"]] == [memory["content"]]


# -- the HTTP edges ---------------------------------------------------------------------------------

def test_chunked_bodies_are_read_whole(url: str) -> None:
    body = {"content": "Alice rides a blue bicycle to work every day", "type": "habit"}
    assert ok(http(url, "POST", "/api/memory/alice", body, chunked=True), 201)["memory"]["type"] == "habit"


def test_a_chunked_body_leaves_nothing_behind_on_a_kept_alive_connection(url: str) -> None:
    """Two requests back to back on one connection: the first chunked. The second must be answered
    as itself (the old server took the first one's chunks for the next request)."""
    host, port = urlsplit(url).hostname, urlsplit(url).port
    payload = b'{"content": "Alice collects vintage maps of Porto", "type": "fact"}'
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(payload[i:i + 10]), payload[i:i + 10]) for i in range(0, len(payload), 10))
    first = (f"POST /api/memory/alice HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
             "Transfer-Encoding: chunked\r\n\r\n").encode() + chunked + b"0\r\n\r\n"
    second = f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(first + second)
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    statuses = re.findall(rb"HTTP/1\.1 (\d{3}) ", raw)
    assert statuses == [b"201", b"200"] and b'"command":"health"' in raw


@pytest.mark.parametrize("chunked", [False, True])
def test_bodies_over_the_limit_are_refused(url: str, chunked: bool) -> None:
    """A declared length over the limit is refused before any of the body is read; a chunked body as
    soon as what arrived passes it. (The client stops sending at the limit: a server that answers
    early closes the connection, and writing on would only race that.)"""
    port = urlsplit(url).port
    head = f"POST /api/memory/alice HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
    if chunked:
        piece = b"x" * 65536
        request = (head + "Transfer-Encoding: chunked\r\n\r\n").encode() + b"%x\r\n%s\r\n" % (len(piece), piece) * 17
    else:
        request = (head + f"Content-Length: {2 << 20}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    assert raw.startswith(b"HTTP/1.1 413 ") and b"connection: close" in raw.lower()
    assert b'"code":"too_large"' in raw
    assert ok(http(url, "GET", "/api/memory/alice"))["count"] == 0


def test_head_is_get_without_a_body(url: str) -> None:
    ok(add(url, "/api/memory/alice", "Alice drinks oat milk flat whites"), 201)
    get_status, get_headers, _ = _raw_get(url, "/api/memory/alice")
    from http.client import HTTPConnection

    parts = urlsplit(url)
    conn = HTTPConnection(parts.hostname, parts.port, timeout=30)
    for path, status in (("/api/memory/alice", 200), ("/nowhere", 404)):
        conn.request("HEAD", path)
        resp = conn.getresponse()
        assert resp.status == status and resp.read() == b"" and resp.getheader("content-type") == "application/json"
    conn.request("HEAD", "/api/memory/alice")
    resp = conn.getresponse()
    resp.read()
    assert resp.getheader("content-length") == get_headers["content-length"] and get_status == 200


@pytest.mark.parametrize("path, allow", [
    ("/api/memory/alice", "GET, HEAD, OPTIONS, POST"),
    ("/api/memory/alice/abcdef12", "DELETE, GET, HEAD, OPTIONS, PUT"),
    ("/api/health", "GET, HEAD, OPTIONS"),
])
def test_options_and_other_methods_say_what_is_allowed(url: str, path: str, allow: str) -> None:
    code, headers, env = http(url, "OPTIONS", path)
    assert code == 200 and headers["allow"] == allow and env["data"]["allow"] == allow.split(", ")
    for method in ("PATCH", "BREW", "POST" if "health" in path else "TRACE"):
        code, headers, env = http(url, method, path)
        assert code == 405 and headers["allow"] == allow and set(env) == ENVELOPE_KEYS
        assert env["errors"][0]["code"] == "method_not_allowed" and method in env["errors"][0]["message"]
    failed(http(url, "OPTIONS", "/nowhere"), 404, "not_found")


# -- who may call ---------------------------------------------------------------------------------

@pytest.mark.parametrize("headers", [{"Host": "evil.example:8765"}, {"Origin": "http://evil.example"},
                                     {"Origin": "null"}])
def test_other_sites_are_forbidden_on_loopback(url: str, headers: dict) -> None:
    """DNS rebinding (a foreign Host) and cross-site requests (a foreign Origin) never reach the store."""
    failed(http(url, "POST", "/api/memory/alice", {"content": "Alice was hacked today"}, headers), 403, "forbidden")
    assert ok(http(url, "GET", "/api/memory/alice"))["count"] == 0
    assert ok(http(url, "GET", "/api/health", headers={"Origin": "http://localhost:3000"}))["status"] == "ok"


@pytest.mark.parametrize("loopback_only", [True, False])
def test_a_token_is_required_when_set(store: MemoryStore, loopback_only: bool) -> None:
    with http_server(create_app(store, Access(token=TOKEN, loopback_only=loopback_only))) as url:
        for headers in ({}, {"Authorization": "Bearer wrong-token"}, {"Authorization": TOKEN},
                        {"Authorization": f"Basic {TOKEN}"}):
            code, got, env = http(url, "GET", "/api/memory/alice", headers=headers)
            assert code == 401 and got["www-authenticate"] == "Bearer" and env["errors"][0]["code"] == "unauthorized"
        failed(http(url, "POST", "/api/memory/alice", {"content": "Alice likes tea"}), 401, "unauthorized")
        good = {"Authorization": f"Bearer {TOKEN}"}
        ok(http(url, "POST", "/api/memory/alice", {"content": "Alice likes green tea"}, good), 201)
        assert ok(http(url, "GET", "/api/memory/alice", headers=good))["count"] == 1
        foreign = {**good, "Host": "memory.example.com"}  # the token is the guard off loopback, not the Host
        assert http(url, "GET", "/api/health", headers=foreign)[0] == (403 if loopback_only else 200)


def test_concurrent_adds_are_all_written(store: MemoryStore) -> None:
    facts = [f"Alice visited city number {n} in {2000 + n}" for n in range(12)]
    results: list[int] = []
    # source user from a server that trusts its clients (--trust-source): automatic writes with no
    # session are limited per owner (10), these are the user's own
    with http_server(create_app(store, Access(defaults=Defaults(user="alice"), trust_source=True))) as url:
        _add_all(url, facts, results)
    assert results == [201] * len(facts)
    assert len(store.list(user="alice", limit=0)) == len(facts)


def _add_all(url: str, facts: list[str], results: list[int]) -> None:
    threads = [threading.Thread(target=lambda f=f: results.append(add(url, "/api/memory/alice", f, type="event",
                                                                      source="user")[0]))
               for f in facts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


@pytest.mark.parametrize("trusted", [False, True])
def test_a_client_claiming_source_user_is_rate_limited_unless_the_server_trusts_it(store: MemoryStore,
                                                                                   trusted: bool) -> None:
    """The source a client may claim is the server's call (--trust-source): five adds in one session
    that say `"source": "user"` are automatic writes (ai) of an untrusted client, so the fourth is refused."""
    with http_server(create_app(store, Access(defaults=Defaults(user="alice"), trust_source=trusted))) as url:
        answers = [add(url, "/api/memory/alice", f"Alice booked hotel number {n} for the trip", type="event",
                       source="user", session="trip")[0] for n in range(5)]
    stored = store.list(user="alice", session="trip", limit=0)
    if trusted:
        assert answers == [201] * 5 and {m.source for m in stored} == {"user"}
    else:
        assert answers == [201, 201, 201, 422, 422] and {m.source for m in stored} == {"ai"}


def test_the_cli_endpoint_answers_like_the_command(served: tuple[str, MemoryStore]) -> None:
    from memctl.agents import commands

    url, store = served
    ok(add(url, "/api/memory/alice", "Alice prefers window seats on flights"), 201)
    forwarded = ok(http(url, "POST", "/api/cli/recall", {"query": "window seat", "users": ["alice"]}))
    assert forwarded == commands.run(store, "recall", commands.normalise("recall", {"query": "window seat",
                                                                                    "users": ["alice"]}))
    broken = store.root / "users" / "alice" / "broken-1234abcd.md"
    broken.write_text("---\nid: [unclosed\n---\nbody\n", encoding="utf-8")
    code, headers, _env = http(url, "POST", "/api/cli/list", {"user": "alice"})
    assert code == 200 and "broken" in headers["memctl-warnings"]
    failed(http(url, "POST", "/api/cli/recall", {"query": "x", "k": "five"}), 400, "bad_argument")
    failed(http(url, "POST", "/api/cli/show", {"memory_id": "abcdef12"}), 404, "not_found")
    marker = store.root.parent / "llm-ran"
    failed(http(url, "POST", "/api/cli/add", {"text": "Alice likes tea", "user": "alice",
                                              "llm": f"touch {marker}"}), 400, "no_remote_llm")
    assert not marker.exists()
    assert http(url, "POST", "/api/cli/compact", {})[2]["command"] == "cli"


# -- the bind policy -------------------------------------------------------------------------------

@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.9.9.9", True), ("::1", True), ("[::1]", True), ("localhost", True),
    ("LOCALHOST", True), ("0.0.0.0", False), ("::", False), ("192.168.1.5", False), ("", False),
    ("example.com", False), ("localhost.evil.example", False),
])
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.parametrize("host, token, code", [
    ("0.0.0.0", None, "remote_refused"), ("10.0.0.2", "", "remote_refused"), ("::", "short", "weak_token"),
])
def test_a_remote_host_needs_a_good_token(host: str, token: str | None, code: str) -> None:
    with pytest.raises(UsageError) as info:
        check_bind_host(host, token)
    assert info.value.code == code and "MEMCTL_TOKEN" in info.value.message
    check_bind_host(host, TOKEN)
    check_bind_host("127.0.0.1", None)


# -- roles: the actor a request runs as (issue 11 through the server) -------------------------------

MEMBERS = """
[projects.shop.members]
olga = "owner"
eddy = "editor"
erin = "editor"
vera = "viewer"
"""
TOKENS = {name: f"{name}-token-0123456789abcdef" for name in ("olga", "eddy", "erin", "vera")}


@pytest.fixture
def team_url(memdir: Path) -> Iterator[str]:
    from memctl.agents.guard import parse_tokens

    (memdir / "memctl.toml").write_text((memdir / "memctl.toml").read_text() + MEMBERS)
    tokens = parse_tokens(",".join(f"{name}={token}" for name, token in TOKENS.items()))
    with http_server(create_app(MemoryStore(memdir), Access(tokens=tokens))) as url:
        yield url


def as_person(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[name]}"}


def test_an_editor_is_refused_another_authors_memory(team_url: str) -> None:
    shop = "/api/project/shop/memory"
    theirs = ok(http(team_url, "POST", shop, {"content": "The shop ships on Tuesdays", "type": "decision",
                                              "source": "user"}, as_person("erin")), 201)["memory"]
    assert theirs["author"] == "erin"
    for method, body in (("PUT", {"content": "The shop ships on Fridays"}), ("DELETE", None)):
        status, _, env = http(team_url, method, f"{shop}/{theirs['id']}", body, as_person("eddy"))
        assert status == 403 and env["ok"] is False and env["errors"][0]["code"] == "forbidden", env
    mine = ok(http(team_url, "POST", shop, {"content": "The shop's logo is teal", "type": "fact",
                                            "source": "user"}, as_person("eddy")), 201)["memory"]
    assert ok(http(team_url, "PUT", f"{shop}/{mine['id']}", {"tags": ["brand"]}, as_person("eddy")))["memory"]["tags"]


def test_an_owner_only_memory_is_hidden_from_another_members_search(memdir: Path, team_url: str) -> None:
    secret = MemoryStore(memdir, actor="olga").add("Olga plans to reorganise the shop team in May", type="decision",
                                                   project="shop", visibility="owner_only").memory
    query = "/api/project/shop/memory/search?q=reorganise+the+shop+team"
    assert [h["id"] for h in ok(http(team_url, "GET", query, headers=as_person("olga")))["hits"]] == [secret.id]
    for other in ("eddy", "vera"):
        assert secret.id not in [h["id"] for h in ok(http(team_url, "GET", query, headers=as_person(other)))["hits"]]
        status, _, env = http(team_url, "GET", f"/api/project/shop/memory/{secret.id}", headers=as_person(other))
        assert status == 404 and env["errors"][0]["code"] == "not_found"


def test_a_viewer_is_refused_an_add_and_a_bad_token_is_401(memdir: Path, team_url: str) -> None:
    status, _, env = http(team_url, "POST", "/api/project/shop/memory", {"content": "The shop opens at nine",
                                                                         "type": "fact"}, as_person("vera"))
    assert status == 403 and env["errors"][0]["code"] == "forbidden"
    status, headers, env = http(team_url, "GET", "/api/health", headers={"Authorization": "Bearer not-a-token"})
    assert status == 401 and env["errors"][0]["code"] == "unauthorized" and headers["www-authenticate"] == "Bearer"
    assert not list((memdir / "projects").rglob("*.md"))


def test_the_token_list_is_checked() -> None:
    from memctl.agents.guard import parse_tokens

    assert parse_tokens("ann=aaaaaaaaaaaaaaaa, bob=bbbbbbbbbbbbbbbb") == (("aaaaaaaaaaaaaaaa", "ann"),
                                                                          ("bbbbbbbbbbbbbbbb", "bob"))
    for bad, code in (("ann", "bad_tokens"), ("ann=short", "weak_token"),
                      ("ann=aaaaaaaaaaaaaaaa,bob=aaaaaaaaaaaaaaaa", "bad_tokens"), ("../x=aaaaaaaaaaaaaaaa", None)):
        with pytest.raises(MemctlError) as caught:
            parse_tokens(bad)
        assert code is None or caught.value.code == code


def test_a_forwarded_command_runs_as_the_clis_actor_or_not_at_all(memdir: Path, team_url: str) -> None:
    shop = "/api/project/shop/memory"
    ok(http(team_url, "POST", shop, {"content": "The shop ships on Tuesdays", "type": "decision", "source": "user"},
            as_person("erin")), 201)
    args = {"query": "ships Tuesdays", "projects": ["shop"]}
    status, _, env = http(team_url, "POST", "/api/cli/recall", args, {**as_person("vera"), "Memctl-Actor": '"vera"'})
    assert status == 200 and env["data"]["hits"]
    status, _, env = http(team_url, "POST", "/api/cli/recall", args, {**as_person("vera"), "Memctl-Actor": '"olga"'})
    assert status == 409 and env["errors"][0]["code"] == "other_actor"  # the CLI then runs in-process
    status, _, env = http(team_url, "POST", "/api/cli/recall", args, as_person("vera"))
    assert status == 409  # no actor on the CLI's side: not answered as vera either


# -- hostile input ------------------------------------------------------------------------------

def test_an_empty_user_never_searches_everyones_memories(served: tuple[str, MemoryStore]) -> None:
    url, store = served
    store.add_raw("Bob keeps his diary in a blue notebook", type="fact", user="bob")
    status, _, env = http(url, "GET", "/api/context?q=diary+notebook&user=")
    assert status == 400 and env["errors"][0]["code"] == "invalid_arguments" and "user" in env["errors"][0]["message"]
    assert "blue notebook" not in json.dumps(env)
    status, _, env = http(url, "GET", "/api/memory/alice/search?q=diary+notebook&user=")  # the path's user only
    assert status == 400 and "blue notebook" not in json.dumps(env)


def test_an_empty_user_in_a_body_is_refused(url: str) -> None:
    status, _, env = http(url, "POST", "/api/cli/recall", {"query": "diary", "users": [""]})
    assert status == 400 and env["ok"] is False


def test_a_deeply_nested_body_is_a_clean_400_and_the_server_stays_up(url: str) -> None:
    deep = b'{"content": "Alice likes tea", "tags": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    for path in ("/api/memory/alice", "/api/cli/add"):
        status, _, env = http(url, "POST", path, deep)
        assert status == 400 and env["ok"] is False and "nested deeper" in env["errors"][0]["message"], env
    assert ok(http(url, "GET", "/api/health"))["status"] == "ok"
    assert ok(http(url, "GET", "/api/memory/alice"))["count"] == 0


def test_an_add_takes_dates_states_and_typed_fields_then_a_query_counts_them(url: str) -> None:
    for day in ("2025-02-01", "2025-06-01", "2026-01-01"):
        written = ok(add(url, "/api/memory/alice", f"Alice's trip departing {day}", kind="trip",
                         fields={"departs": day}, occurred=day, state="done", name=f"Trip {day}"), 201)["memory"]
        assert (written["kind"], written["occurred"], written["state"], written["name"]) == ("trip", day, "done",
                                                                                            f"Trip {day}")
    answer = ok(http(url, "POST", "/api/memory/alice/query", {"op": "count", "kind": "trip",
                                                              "where": ["departs in 2025"]}))
    assert answer["value"] == 2 and len(answer["memories"]) == 2
    status, _, env = http(url, "POST", "/api/memory/alice/query", {"op": "count", "kind": "trip", "where": ["departs <"]})
    assert status == 400 and "expected a value or a field" in env["errors"][0]["message"]
    assert ok(http(url, "POST", "/api/memory/bob/query", {"op": "count", "kind": "trip"}))["value"] == 0
