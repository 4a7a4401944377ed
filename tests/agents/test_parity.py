"""One parity test per capability: the library's request, the CLI's options, the MCP schema and the
OpenAPI operation name the same fields (the seeds' names count as aliases of the declared ones),
and the result models describe every field the data holds (unknown fields forbidden)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
import typer
from pydantic import BaseModel

from memctl.agents import schemas
from memctl.agents.guard import Access
from memctl.agents.http import create_app
from memctl.agents.tools import TOOLS
from memctl.api import MemoryStore
from memctl.cli.main import full_app
from memctl.config import Config
from memctl.core.declare import aliases, fields_for
from memctl.core.requests import AddRequest, ContextRequest, ListRequest, RecallRequest

CLI = typer.main.get_command(full_app())
CLI_ONLY = {"json_", "quiet", "explain", "all_", "field"}  # how the CLI prints, or spells a field its own way

# capability -> (request model, CLI command, MCP tool, REST operation, what the REST path itself names)
DECLARED: dict[str, tuple[type[BaseModel], str, str, tuple[str, str], set[str]]] = {
    "recall": (RecallRequest, "recall", "memory_search", ("/api/memory/{user}/search", "get"), {"users"}),
    "add": (AddRequest, "add", "memory_add", ("/api/memory/{user}", "post"), set()),
    "list": (ListRequest, "list", "memory_list", ("/api/memory/{user}", "get"), {"user"}),
    "context": (ContextRequest, "context", "memory_context", ("/api/context", "get"), set()),
}


def _openapi() -> dict[str, Any]:
    return create_app(MemoryStore.__new__(MemoryStore), Access()).openapi()


def _rest_fields(spec: dict[str, Any], path: str, method: str) -> set[str]:
    operation = spec["paths"][path][method]
    names = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if body:
        ref = body["$ref"].rsplit("/", 1)[-1]
        names |= set(spec["components"]["schemas"][ref]["properties"])
    return names


def _canonical(model: type[BaseModel], names: set[str]) -> set[str]:
    known = aliases(model)
    return {known.get(name, name) for name in names}


@pytest.mark.parametrize("capability", sorted(DECLARED))
def test_every_surface_offers_the_declared_fields(capability: str) -> None:
    model, command, tool, (path, method), by_path = DECLARED[capability]
    library = set(model.model_fields)
    signature = set(inspect.signature(getattr(MemoryStore, capability)).parameters) - {"self"}
    assert signature == library, "the facade's keyword-only signature is the request"
    cli = {p.name for p in CLI.commands[command].params} - CLI_ONLY  # type: ignore[attr-defined]
    assert cli == set(fields_for(model, "cli")), f"CLI {command} vs {model.__name__}"
    mcp = _canonical(model, set(TOOLS[tool].input_schema(Config())["properties"])) - {"scope"}
    assert mcp == set(fields_for(model, "mcp")), f"MCP {tool} vs {model.__name__}"
    rest = _canonical(model, _rest_fields(_openapi(), path, method)) | by_path
    assert rest >= set(fields_for(model, "rest")) and rest <= library | by_path, f"REST {method} {path}"


# The capabilities whose request is the facade's signature (one declaration) and whose MCP tool
# and REST operation take it: (facade method, MCP tool, REST path, method, surface names -> library names).
SIGNED = {
    "forget": ("memory_forget", "/api/memory/{user}/{memory_id}", "delete", {"id": "memory_id"}),
}


@pytest.mark.parametrize("capability", sorted(SIGNED))
def test_signature_capabilities_agree_across_surfaces(capability: str) -> None:
    tool, path, method, renamed = SIGNED[capability]
    library = set(inspect.signature(getattr(MemoryStore, capability)).parameters) - {"self"}
    mcp = {renamed.get(n, n) for n in TOOLS[tool].input_schema(Config())["properties"]}
    operation = _openapi()["paths"][path][method]
    rest = {renamed.get(p["name"], p["name"]) for p in operation.get("parameters", []) if p["name"] != "user"
            or p["in"] == "query"}
    assert mcp == library and rest == library, (capability, library, mcp, rest)


def _fill(store: MemoryStore) -> str:
    store.add_raw("Alice prefers window seats on flights", type="preference", user="alice", tags=["travel"])
    return store.add_raw("Alice's passport expires 2031-04-02", type="fact", user="alice", kind="passport",
                         fields={"expires": "2031-04-02", "country": "NZ"}).id


def test_result_models_hold_every_field_of_the_data(store: MemoryStore) -> None:
    from memctl.agents.commands import normalise, run

    memory_id = _fill(store)
    recall = store.recall("window seat", users=["alice"], min_relevance=0.0)
    schemas.SearchOut.model_validate(recall.to_data(explain=True))
    schemas.SearchOut.model_validate(recall.to_data())
    added = store.add("Alice drinks oat milk flat whites", user="alice", type="preference")
    schemas.AddOut.model_validate(added.to_data())
    schemas.ListOut.model_validate(run(store, "list", normalise("list", {"sort": "importance"})))
    schemas.MemoryOut.model_validate({"memory": store.show(memory_id)})
    schemas.ContextOut.model_validate(store.context("book a flight", user="alice"))
    schemas.QueryOut.model_validate(store.query("count", "passport", user="alice").to_data())
    schemas.TreeOut.model_validate({"user": "alice", "count": 1, "types": {
        t: {s: [m.to_public() for m in ms] for s, ms in subs.items()} for t, subs in store.tree(user="alice").items()}})


def test_a_field_the_data_gains_and_the_model_lacks_fails() -> None:
    with pytest.raises(ValueError):
        schemas.SearchOut.model_validate({"query": "q", "mode": "hybrid", "considered": 0, "hits": [], "novel": 1})


def test_the_rest_surface_is_the_declared_one_for_a_project_too(memdir: Path) -> None:
    spec = _openapi()
    project = _canonical(RecallRequest, _rest_fields(spec, "/api/project/{project}/memory/search", "get"))
    assert project | {"projects"} == set(fields_for(RecallRequest, "rest"))
