"""Issue 25's acceptance, shown again after the filters became generic: the `sources` recall filter
is one field in core/requests.py, the facade's parameter and the regenerated option table, and it
works in the library (both backends), the CLI (in-process and forwarded), MCP and REST."""

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
from tests.helpers import ServeProcess, cli_json, http, http_server

SAID = "Alice said she keeps bees on the roof"
GUESSED = "Alice may keep bees at her allotment"


def _fill(store: MemoryStore) -> None:
    store.add_raw(SAID, type="fact", user="alice", source="user")
    store.add_raw(GUESSED, type="fact", user="alice", source="ai")


def _contents(data: dict) -> list[str]:
    return sorted(h["content"] for h in data["hits"])


@pytest.mark.parametrize("backend", ["files", "postgres"], indirect=True)
def test_the_library_filters_by_source(store: MemoryStore) -> None:
    _fill(store)
    both = store.recall("keep bees", users=["alice"], mode="keyword", min_relevance=0.0)
    assert sorted(h.content for h in both.hits) == [GUESSED, SAID]
    said = store.recall("keep bees", users=["alice"], sources=["user"], mode="keyword", min_relevance=0.0)
    assert [h.content for h in said.hits] == [SAID]
    either = store.recall("keep bees", users=["alice"], sources=["ai", "user"], mode="keyword", min_relevance=0.0)
    assert len(either.hits) == 2


def test_the_cli_filters_by_source(memdir: Path) -> None:
    _fill(MemoryStore(memdir))
    code, env = cli_json(memdir, "recall", "keep bees", "-u", "alice", "--source", "ai", "--all")
    assert code == 0 and _contents(env["data"]) == [GUESSED]


def test_the_forwarded_cli_filters_by_source(memdir: Path) -> None:
    _fill(MemoryStore(memdir))
    with ServeProcess(memdir):
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "memctl", "-d", str(memdir), "recall",
                               "keep bees", "-u", "alice", "--source", "user", "--all", "--json"],
                              capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert _contents(json.loads(done.stdout)["data"]) == [SAID]
    assert b"memctl.api" not in done.stderr  # answered by the server


def test_mcp_filters_by_source(memdir: Path) -> None:
    store = MemoryStore(memdir)
    _fill(store)
    tools = MemoryTools(lambda: store, Caller(defaults=Defaults("alice")))
    schema = next(t for t in tools.list_tools() if t.name == "memory_search").input_schema
    assert schema["properties"]["sources"]["type"] == "array"
    for arguments in ({"sources": ["ai"]}, {"source": "ai"}):
        result = tools.call("memory_search", {"query": "keep bees", "min_relevance": 0, **arguments})
        assert not result.is_error, result.content
        assert _contents(result.structured_content) == [GUESSED]


def test_rest_filters_by_source_and_documents_it(memdir: Path) -> None:
    store = MemoryStore(memdir)
    _fill(store)
    with http_server(create_app(store, Access())) as url:
        for query in ("sources=user", "source=user"):
            status, _, env = http(url, "GET", f"/api/memory/alice/search?q=keep+bees&min_relevance=0&{query}")
            assert status == 200 and _contents(env["data"]) == [SAID], env
        _, _, spec = http(url, "GET", "/openapi.json")
    parameters = spec["paths"]["/api/memory/{user}/search"]["get"]["parameters"]
    assert "sources" in {p["name"] for p in parameters}
