"""Typed facts: query (exact answers over fields), check (warnings before anyone asks), kinds,
structure (type the plain statements already stored)."""

from __future__ import annotations

import typer

from memctl.cli import output
from memctl.cli.app import Json, open_store, run
from memctl.cli.declared import command
from memctl.core.requests import CheckRequest, QueryRequest, StructureRequest


def _query(values: dict) -> None:
    json_ = values.pop("json_")
    run("query", json_, lambda: open_store().query(**{k: v for k, v in values.items() if v is not None}).to_data(),
        _render_query)


query = command(QueryRequest, "query", _query, "Answer exactly over typed fields: how many, how much, the latest, "
                "the earliest, which.", (("json_", Json, False),))


def _render_query(d: dict) -> None:
    what = f"{d['op']} {d['kind']}" + (f".{d['field']}" if d.get("field") else "")
    if d["op"] in ("count", "sum", "latest", "earliest"):
        output.message(f"{what}: {_shown(d['value'])}" + ("" if d["op"] == "count" else f" ({d['count']} matched)"))
    if d["op"] != "count":
        rows = [[m["id"], m.get("user") or m.get("project"), ", ".join(f"{k}={_shown(v)}" for k, v in m["fields"].items()),
                 output.short(m["content"], 70)] for m in d["memories"]]
        output.rows(["id", "owner", "fields", "content"], rows, title=f"{what}: {len(rows)} memories")


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return ", ".join(str(v) for v in value.values())
    return "none" if value is None else str(value)


def _check(values: dict) -> None:
    json_ = values.pop("json_")
    outcome: dict = {}

    def action() -> dict:
        outcome.update(open_store().check(**values).to_data())
        return outcome

    run("check", json_, action, _render_check)
    if outcome.get("problems"):
        raise typer.Exit(2)
    if outcome.get("findings"):
        raise typer.Exit(1)


check = command(CheckRequest, "check", _check, "Run every check over the typed memories: exit 0 no findings, "
                "1 some, 2 a rule file has errors.", (("json_", Json, False),))


def _render_check(d: dict) -> None:
    for problem in d["problems"]:
        output.warn(problem)
    for f in d["findings"]:
        soon = "" if f.get("days") is None else f" [{f['due']}, {f['days']:+d} days]"
        output.message(f"{f['severity']}: {f['message']}{soon} ({f['rule']}: {', '.join(f['memories'])})")


def kinds(json_: Json = False) -> None:
    """The kinds typed memories may have (shipped, schemas/*.toml, [schemas]) and their fields."""

    def action() -> dict:
        return open_store().kinds()

    def human(d: dict) -> None:
        for problem in d["problems"]:
            output.warn(problem)
        rows = [[name, k.get("type") or "", ", ".join(f"{f}{'*' if s['required'] else ''}:{s['type']}"
                                                      for f, s in k["fields"].items())]
                for name, k in d["kinds"].items()]
        output.rows(["kind", "type", "fields (* required)"], rows, title=f"{len(rows)} kinds")

    run("kinds", json_, action, human)


def _structure(values: dict) -> None:
    json_ = values.pop("json_")
    run("structure", json_, lambda: open_store().structure(**values).to_data(), _render_structure)


structure = command(StructureRequest, "structure", _structure, (
    "Type the memories already stored: a plain statement that is a passport, a trip, a medication... gets its "
    "kind and fields (the LLM command when one is set, offline rules otherwise)."), (("json_", Json, False),))


def _render_structure(d: dict) -> None:
    for problem in d["problems"]:
        output.warn(problem)
    rows = [[item["id"], item["proposal"]["kind"], ", ".join(f"{k}={_shown(v)}" for k, v in item["proposal"]["fields"].items()),
             output.short(item["content"], 60)] for item in d["typed"]]
    verb = "would type" if d["dry_run"] else "typed"
    output.rows(["id", "kind", "fields", "content"], rows,
                title=f"{verb} {len(rows)} of {d['read']} untyped memories ({d['by']})")


COMMANDS = [("query", query), ("check", check), ("kinds", kinds), ("structure", structure)]
