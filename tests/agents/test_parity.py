"""One parity test per capability: the library's request, the CLI's options, the MCP schema and the
OpenAPI operation name the same fields (the seeds' names count as aliases of the declared ones),
and the result models describe every field the data holds (unknown fields forbidden)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, NamedTuple

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
from memctl.core.byid import EditRequest, ForgetRequest, HistoryRequest, RestoreRequest, ShowRequest
from memctl.core.declare import aliases, fields_for
from memctl.core.requests import (
    AddRequest,
    CheckRequest,
    ContextRequest,
    GateRequest,
    ListRequest,
    QueryRequest,
    RecallRequest,
    StatsRequest,
    StructureRequest,
)

CLI = typer.main.get_command(full_app())
CLI_ONLY = {"json_", "quiet", "explain", "all_", "field", "set_", "min_confidence", "min_length", "max_length"}
ID_PATH = "/api/memory/{user}/{memory_id}"


class Capability(NamedTuple):
    """Where one capability is offered: its request, the facade methods taking it, the CLI command,
    the MCP tool and the REST operation (None: the request offers that surface no field), and the
    names a REST route gives itself (its path's, a PUT's owner names kept as they are)."""

    model: type[BaseModel]
    methods: tuple[str, ...]
    command: str | None = None
    tool: str | None = None
    rest: tuple[str, str] | None = None
    by_route: frozenset[str] = frozenset()
    served: bool = True  # False: no server offers it, whatever its fields say (gate: add's fields, dry run)


DECLARED: dict[str, Capability] = {
    "recall": Capability(RecallRequest, ("recall",), "recall", "memory_search", ("/api/memory/{user}/search", "get"),
                         frozenset({"users"})),
    "add": Capability(AddRequest, ("add",), "add", "memory_add", ("/api/memory/{user}", "post")),
    "gate": Capability(GateRequest, ("gate",), "gate", served=False),
    "list": Capability(ListRequest, ("list",), "list", "memory_list", ("/api/memory/{user}", "get"),
                       frozenset({"user"})),
    "context": Capability(ContextRequest, ("context",), "context", "memory_context", ("/api/context", "get")),
    "show": Capability(ShowRequest, ("show", "get"), "show", "memory_show", (ID_PATH, "get"), frozenset({"memory_id"})),
    "edit": Capability(EditRequest, ("edit",), "edit", "memory_update", (ID_PATH, "put"),
                       frozenset({"memory_id", "user", "project", "session"})),
    "forget": Capability(ForgetRequest, ("forget", "forget_all"), "forget", "memory_forget", (ID_PATH, "delete"),
                         frozenset({"memory_id"})),
    "restore": Capability(RestoreRequest, ("restore", "restore_all"), "restore"),
    "history": Capability(HistoryRequest, ("history",), "history"),
    "query": Capability(QueryRequest, ("query",), "query", "memory_query", ("/api/memory/{user}/query", "post"),
                        frozenset({"user"})),
    "check": Capability(CheckRequest, ("check",), "check"),
    "stats": Capability(StatsRequest, ("stats",), "stats"),
    "structure": Capability(StructureRequest, ("structure",), "structure"),
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
    c = DECLARED[capability]
    library = set(c.model.model_fields)
    for method in c.methods:
        signature = set(inspect.signature(getattr(MemoryStore, method)).parameters) - {"self"}
        assert signature == library, f"the facade's {method} signature is the request"
        assert getattr(MemoryStore, method).request is c.model, f"{method} is declared by {c.model.__name__}"
    cli = {p.name for p in CLI.commands[c.command].params} - (CLI_ONLY - library) if c.command else set()  # type: ignore[attr-defined]
    assert cli == set(fields_for(c.model, "cli")), f"CLI {c.command} vs {c.model.__name__}"
    if not c.served:
        return
    mcp = _canonical(c.model, set(TOOLS[c.tool].input_schema(Config())["properties"])) - {"scope"} if c.tool else set()
    assert mcp == set(fields_for(c.model, "mcp")), f"MCP {c.tool} vs {c.model.__name__}"
    if c.tool:
        assert TOOLS[c.tool].request is c.model, f"{c.tool}'s arguments derive from {c.model.__name__}"
    rest = _canonical(c.model, _rest_fields(_openapi(), *c.rest)) if c.rest else set()
    offered = set(fields_for(c.model, "rest"))
    assert rest | (c.by_route & library) >= offered, f"REST {c.rest} lacks {offered - rest - c.by_route}"
    assert rest <= library | c.by_route, f"REST {c.rest} offers {rest - library - c.by_route}, undeclared"


def test_every_facade_method_taking_arguments_is_declared_or_keyword_checked() -> None:
    """No public method of a store takes **kwargs but add_raw (any of a memory's own fields, checked)."""
    loose = [name for name, member in vars(MemoryStore).items() if not name.startswith("_") and callable(member)
             and any(p.kind is p.VAR_KEYWORD for p in inspect.signature(member).parameters.values())]
    assert loose == ["add_raw"]


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
    typed = store.add("My US passport expires on 2 April 2036", user="bob")
    assert schemas.AddOut.model_validate(typed.to_data()).inferred is not None
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
