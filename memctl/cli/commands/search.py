"""Asking memory: recall, context (the block agents prepend), gate (would this be written?)."""

from __future__ import annotations

from typing import List, Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output
from memctl.cli.app import Json, Quiet, open_store, run, run_command
from memctl.cli.declared import command
from memctl.cli.inputs import read_text
from memctl.core.requests import ContextRequest, GateRequest, RecallRequest
from memctl.errors import Refused

Query = Annotated[Optional[str], typer.Argument(metavar="QUERY", show_default=False,
                                                help="What to recall (any language); - or none reads stdin.")]


def _recall(values: dict) -> None:
    json_, quiet = values.pop("json_"), values.pop("quiet")
    run_command("recall", values, json_, quiet)


recall = command(RecallRequest, "recall", _recall, "Find the memories that matter for QUERY (keyword + local embeddings).", (
    ("explain", Annotated[bool, typer.Option("--explain", help="Show the component scores.")], False),
    ("all_", Annotated[bool, typer.Option("--all", help="Also show hits below [recall] min_relevance.")], False),
    ("json_", Json, False), ("quiet", Quiet, False)))


def _context(values: dict) -> None:
    json_ = values.pop("json_")
    run_command("context", values, json_)


context = command(ContextRequest, "context", _context,
                  "The block an agent prepends to its prompt: profile + recalled memories, fenced as data.", (
    ("explain", Annotated[bool, typer.Option("--explain", help="Show which rules fired (stderr, or in --json).")],
     False), ("json_", Json, False)))


def _gate(values: dict) -> None:
    json_, pairs = values.pop("json_"), values.pop("field")
    overrides = {name: values.pop(name) for name in ("min_confidence", "min_length", "max_length")}

    def action() -> dict:
        store = open_store()
        given = {k: v for k, v in values.items() if v is not None and k != "text"}
        if pairs:
            from memctl.core.schemas import parse_field_pairs

            given["fields"] = parse_field_pairs(pairs)
        result = store.gate(read_text(values["text"]), **given, overrides=overrides)
        data = result.to_data()
        if not result.verdict.passed:
            codes = ", ".join(f.code for f in result.verdict.failures)
            raise Refused(f"would be refused ({codes}): " + "; ".join(f.message for f in result.verdict.failures),
                          code=result.verdict.failures[0].code, data=data)
        return data

    def human(d: dict) -> None:
        output.message(f"would pass: {d['decision']['action']} ({d['decision']['reason']})")
        if d.get("inferred"):
            fields = ", ".join(f"{k}={v}" for k, v in d["inferred"]["fields"].items())
            output.message(f"would type as {d['inferred']['kind']} ({fields})")

    run("gate", json_, action, human)


def _threshold(kind: type, what: str) -> object:
    return Annotated[Optional[kind], typer.Option(metavar="0..1" if kind is float else "N", help=f"Override {what}.")]


gate = command(GateRequest, "gate", _gate, "Dry-run the gate and the write decision: would TEXT be written, and why "
               "not. Exit 0 pass, 3 refused.", (
    ("field", Annotated[Optional[List[str]], typer.Option("--field", metavar="NAME=VALUE", help=(
        "A typed field, checked against the kind (repeatable)."))], None),
    ("min_confidence", _threshold(float, "the minimum confidence"), None),
    ("min_length", _threshold(int, "the minimum length"), None),
    ("max_length", _threshold(int, "the maximum length"), None), ("json_", Json, False)))


COMMANDS = [("recall", recall), ("context", context), ("gate", gate)]
