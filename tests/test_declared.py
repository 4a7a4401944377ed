"""A capability declared once reaches every surface: the `subtypes` recall filter, added to
core/requests.py, the facade's signature and the generated option table only, works in the library
(both backends), the CLI (in-process and forwarded to a warm server), MCP and REST."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memctl.agents.guard import Access
from memctl.agents.http import create_app
from memctl.agents.mcp import MemoryTools
from memctl.agents.tools import Caller, Defaults
from memctl.api import MemoryStore
from memctl.errors import UsageError
from tests.helpers import ServeProcess, cli_json, http, http_server

LIKE = "Alice likes playing chess in the park"
DISLIKE = "Alice dislikes playing chess online"


def _fill(store: MemoryStore) -> None:
    store.add_raw(LIKE, type="preference", subtype="like", user="alice")
    store.add_raw(DISLIKE, type="preference", subtype="dislike", user="alice")


def _contents(data: dict) -> list[str]:
    return sorted(h["content"] for h in data["hits"])


@pytest.mark.parametrize("backend", ["files", "postgres"], indirect=True)
def test_the_library_filters_by_subtype(store: MemoryStore) -> None:
    _fill(store)
    both = store.recall("playing chess", users=["alice"], mode="keyword", min_relevance=0.0)
    assert sorted(h.content for h in both.hits) == [DISLIKE, LIKE]
    liked = store.recall("playing chess", users=["alice"], subtypes=["like"], mode="keyword", min_relevance=0.0)
    assert [h.content for h in liked.hits] == [LIKE]
    with pytest.raises(UsageError) as info:
        store.recall("chess", subtype=["like"])  # type: ignore[call-arg]
    assert info.value.code == "unknown_argument" and "did you mean 'subtypes'" in info.value.message


def test_the_cli_filters_by_subtype(memdir: Path) -> None:
    _fill(MemoryStore(memdir))
    code, env = cli_json(memdir, "recall", "playing chess", "-u", "alice", "--subtype", "dislike", "--all")
    assert code == 0 and _contents(env["data"]) == [DISLIKE]


def test_the_forwarded_cli_filters_by_subtype(memdir: Path) -> None:
    _fill(MemoryStore(memdir))
    with ServeProcess(memdir):
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "memctl", "-d", str(memdir), "recall",
                               "playing chess", "-u", "alice", "--subtype", "like", "--all", "--json"],
                              capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert _contents(json.loads(done.stdout)["data"]) == [LIKE]
    assert b"memctl.api" not in done.stderr  # answered by the server: the fast path read the generated table


def test_mcp_filters_by_subtype_under_its_name_and_the_seeds(memdir: Path) -> None:
    store = MemoryStore(memdir)
    _fill(store)
    tools = MemoryTools(lambda: store, Caller(defaults=Defaults("alice")))
    schema = next(t for t in tools.list_tools() if t.name == "memory_search").input_schema
    assert schema["properties"]["subtypes"]["type"] == "array"
    for arguments in ({"subtypes": ["like"]}, {"subtype": "like"}, {"subType": "like"}):
        result = tools.call("memory_search", {"query": "playing chess", "min_relevance": 0, **arguments})
        assert not result.is_error, result.content
        assert _contents(result.structured_content) == [LIKE]


def test_rest_filters_by_subtype_and_documents_it(memdir: Path) -> None:
    store = MemoryStore(memdir)
    _fill(store)
    with http_server(create_app(store, Access())) as url:
        for query in ("subtypes=dislike", "subtype=dislike", "subType=dislike"):
            status, _, env = http(url, "GET", f"/api/memory/alice/search?q=playing+chess&min_relevance=0&{query}")
            assert status == 200 and _contents(env["data"]) == [DISLIKE], env
        status, _, env = http(url, "GET", "/api/memory/alice/search?q=chess&sub_kind=like")
        assert status == 400 and env["errors"][0]["code"] == "unknown_argument"  # refused, never ignored
        _, _, spec = http(url, "GET", "/openapi.json")
    parameters = spec["paths"]["/api/memory/{user}/search"]["get"]["parameters"]
    assert "subtypes" in {p["name"] for p in parameters}


def test_an_unknown_keyword_is_refused_by_every_facade_method_that_declares_its_request(store: MemoryStore) -> None:
    for call in (lambda: store.add("Alice likes travelling by train", user="alice", tag=["travel"]),
                 lambda: store.gate("Alice likes travelling by train", user="alice", tag=["travel"]),
                 lambda: store.add_raw("Alice likes travelling by train", user="alice", type="fact", tag=["x"]),
                 lambda: store.recall("train", tag=["travel"])):
        with pytest.raises(UsageError) as info:
            call()  # type: ignore[call-arg]
        assert info.value.code == "unknown_argument" and "'tag'" in info.value.message
    assert "did you mean 'tags'" in info.value.message
    assert store.list() == []  # nothing was written with the misspelt field dropped
    with pytest.raises(UsageError, match="positional"):
        store.recall("train", ["alice"])  # type: ignore[misc]


def test_every_other_facade_method_refuses_an_unknown_keyword_too(store: MemoryStore) -> None:
    for call in (lambda: store.list(tag_name="x"), lambda: store.forget("abcd1234", why="x"),
                 lambda: store.context("q", users=["alice"]), lambda: store.stats(verbose=True)):
        with pytest.raises(UsageError) as info:
            call()  # type: ignore[call-arg]
        assert info.value.code == "unknown_argument"


def test_rest_takes_the_seed_004_shapes(memdir: Path) -> None:
    store = MemoryStore(memdir)
    store.add_raw("Alice is called Ally by her friends", type="fact", user="alice")
    with http_server(create_app(store, Access())) as url:
        seed = {"category": "preference", "subType": "like", "content": "Likes programming", "user": "alice"}
        status, _, env = http(url, "POST", "/api/memory/alice", seed)
        assert status == 201 and env["data"]["memory"]["type"] == "preference", env
        assert env["data"]["memory"]["subtype"] == "like"
        camel = {"content": "Alice's passport is valid until 2031", "validUntil": "2031-01-01", "type": "fact"}
        assert http(url, "POST", "/api/memory/alice", camel)[0] == 201
        status, _, env = http(url, "GET", "/api/memory/alice?category=preference")
        assert status == 200 and [m["type"] for m in env["data"]["memories"]] == ["preference"]
        status, _, env = http(url, "GET", "/api/memory/alice?subType=like&status=active")
        assert status == 200 and env["data"]["count"] == 1
        status, _, env = http(url, "GET", "/api/memory/alice?colour=red")
        assert status == 400 and "colour" in env["errors"][0]["message"]  # never ignored


def test_openapi_types_every_answer_and_every_documented_status(memdir: Path) -> None:
    with http_server(create_app(MemoryStore(memdir), Access())) as url:
        _, _, spec = http(url, "GET", "/openapi.json")
    paths = spec["paths"]
    add = paths["/api/memory/{user}"]["post"]["responses"]
    assert {"200", "201", "400", "401", "403", "413", "422"} <= set(add)
    assert "noop" in add["200"]["description"] and "sensitive" in add["422"]["description"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            for status, answer in operation["responses"].items():
                schema = answer["content"]["application/json"]["schema"]
                assert schema.get("$ref", "").startswith("#/components/schemas/Envelope"), (path, method, status)
    assert "HTTPValidationError" not in json.dumps(spec)  # its 422 is never answered: bad requests are 400
    assert {"404"} <= set(paths["/api/memory/{user}/{memory_id}"]["get"]["responses"])
