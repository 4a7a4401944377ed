"""Asking memory: recall, context (the block agents prepend), gate (would this be written?)."""

from __future__ import annotations

from typing import Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output
from memctl.cli.app import Json, Project, Quiet, Session, Text, User, open_store, run, run_command
from memctl.cli.declared import command
from memctl.cli.inputs import read_text
from memctl.core.requests import ContextRequest, RecallRequest
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


def gate(
    text: Text = None, user: User = None, project: Project = None, session: Session = None,
    type: Annotated[Optional[str], typer.Option("--type", "-t", metavar="TYPE", help="Memory type.")] = None,
    confidence: Annotated[float, typer.Option(metavar="0..1", min=0.0, max=1.0, help="How sure.")] = 1.0,
    source: Annotated[str, typer.Option(metavar="SOURCE", help="user, ai, auto, import, ...")] = "user",
    key: Annotated[Optional[str], typer.Option(metavar="KEY", help="Versioning key.")] = None,
    redact: Annotated[Optional[bool], typer.Option("--redact/--no-redact", help="Mask secrets instead of refusing.")] = None,
    min_confidence: Annotated[Optional[float], typer.Option(metavar="0..1", help="Override the minimum confidence.")] = None,
    min_length: Annotated[Optional[int], typer.Option(metavar="N", help="Override the minimum length.")] = None,
    max_length: Annotated[Optional[int], typer.Option(metavar="N", help="Override the maximum length.")] = None,
    json_: Json = False,
) -> None:
    """Dry-run the gate and the write decision: would TEXT be written, and why not. Exit 0 pass, 3 refused."""

    def action() -> dict:
        store = open_store()
        overrides = {"min_confidence": min_confidence, "min_length": min_length, "max_length": max_length}
        result = store.gate(read_text(text), type=type or store.config.default_type, user=user, project=project,
                            session=session, confidence=confidence, source=source, key=key, redact=redact,
                            overrides=overrides)
        data = result.to_data()
        if not result.verdict.passed:
            codes = ", ".join(f.code for f in result.verdict.failures)
            raise Refused(f"would be refused ({codes}): " + "; ".join(f.message for f in result.verdict.failures),
                          code=result.verdict.failures[0].code, data=data)
        return data

    run("gate", json_, action, lambda d: output.message(f"would pass: {d['decision']['action']} ({d['decision']['reason']})"))


COMMANDS = [("recall", recall), ("context", context), ("gate", gate)]
