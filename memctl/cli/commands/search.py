"""Asking memory: recall, context (the block agents prepend), gate (would this be written?)."""

from __future__ import annotations

from typing import List, Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output
from memctl.cli.app import Json, Project, Projects, Quiet, Session, Text, User, Users, open_store, run, run_command
from memctl.cli.inputs import read_text
from memctl.errors import Refused

Query = Annotated[Optional[str], typer.Argument(metavar="QUERY", show_default=False,
                                                help="What to recall (any language); - or none reads stdin.")]


def recall(
    query: Query = None,
    user: Users = None, project: Projects = None, session: Session = None,
    type: Annotated[Optional[List[str]], typer.Option("--type", "-t", metavar="TYPE", help="Only these types (repeatable).")] = None,
    tag: Annotated[Optional[List[str]], typer.Option("--tag", metavar="TAG", help="Only memories with one of these tags.")] = None,
    since: Annotated[Optional[str], typer.Option(metavar="TIME", help="Occurred (else created) at or after (ISO date/time).")] = None,
    until: Annotated[Optional[str], typer.Option(metavar="TIME", help="Occurred (else created) at or before (ISO date/time).")] = None,
    status: Annotated[str, typer.Option(metavar="STATUS",
                                        help="active (default), history, superseded, merged, forgotten, expired, all.")] = "active",
    k: Annotated[Optional[int], typer.Option("-k", metavar="N", min=1, help="How many hits (default from memctl.toml: 5).")] = None,
    mode: Annotated[Optional[str], typer.Option(metavar="MODE", help="hybrid, keyword or semantic.")] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show the component scores.")] = False,
    all_: Annotated[bool, typer.Option("--all", help="Also show hits below [recall] min_relevance.")] = False,
    json_: Json = False, quiet: Quiet = False,
) -> None:
    """Find the memories that matter for QUERY (keyword + local embeddings)."""
    run_command("recall", {"query": query, "user": user, "project": project, "session": session, "type": type,
                           "tag": tag, "since": since, "until": until, "status": status, "k": k, "mode": mode,
                           "explain": explain, "all_": all_}, json_, quiet)


def context(
    query: Query = None,
    user: User = None, project: Project = None, session: Session = None,
    budget: Annotated[int, typer.Option(metavar="TOKENS", min=1,
                                        help="Token budget (approx: ASCII chars/4 + 1 per other char).")] = 800,
    format: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="markdown, xml or json.")] = "markdown",
    explain: Annotated[bool, typer.Option("--explain", help="Show which rules fired (stderr, or in --json).")] = False,
    json_: Json = False,
) -> None:
    """The block an agent prepends to its prompt: profile + recalled memories, fenced as data."""
    run_command("context", {"query": query, "user": user, "project": project, "session": session,
                            "budget": budget, "format": format, "explain": explain}, json_)


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

    def human(d: dict) -> None:
        output.message(f"would pass: {d['decision']['action']} ({d['decision']['reason']})")
        if d.get("inferred"):
            fields = ", ".join(f"{k}={v}" for k, v in d["inferred"]["fields"].items())
            output.message(f"would type as {d['inferred']['kind']} ({fields})")

    run("gate", json_, action, human)


COMMANDS = [("recall", recall), ("context", context), ("gate", gate)]
