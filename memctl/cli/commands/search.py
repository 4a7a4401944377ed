"""Asking memory: recall, context (the block agents prepend), gate (would this be written?)."""

from __future__ import annotations

import sys
from typing import List, Optional

import typer
from typing_extensions import Annotated

from memctl import clock
from memctl.cli import output
from memctl.cli.app import Json, Project, Projects, Quiet, Session, Text, User, Users, open_store, run
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

    def action() -> dict:
        s = open_store()
        result = s.recall(read_text(query), users=user or [], projects=project or [], session=session,
                          types=type or [], tags=tag or [], status=status,
                          since=clock.parse_timestamp(since) if since else None,
                          until=clock.parse_timestamp(until) if until else None,
                          k=s.config.recall.k if k is None else k, mode=mode or s.config.recall.mode,
                          min_relevance=0.0 if all_ else None)
        return result.to_data(explain)

    run("recall", json_, action, lambda d: _render_hits(d, explain), quiet)


def _render_hits(data: dict, explain: bool) -> None:
    held = data.get("held_back", 0)
    note = (f"{held} {'hit' if held == 1 else 'hits'} held back below relevance {data['min_relevance']:g} "
            "(--all shows them)") if held else ""
    if not data["hits"]:
        output.message(f"no memories found for {data['query']!r} ({data['considered']} considered"
                       + (f"; {note})" if note else ")"))
        return
    cols = ["score", "id", "type", "owner", "content", "relevance"] + (["explain"] if explain else [])
    rows = []
    for h in data["hits"]:
        owner = h.get("project") if h["scope"] == "project" else h.get("user")
        marks = "".join(f"[{m}] " for m in (("linked to " + h["linked_to"]) if h.get("linked_to") else None,
                                             None if h.get("in_force", True) else h.get("state")) if m)
        score = "linked" if h.get("linked_to") else f"{h['score']:.3f}"
        relevance = "" if h.get("relevance") is None else f"{h['relevance']:.2f}"
        row = [score, h["id"], h["type"], owner, marks + output.short(h["content"], 100), relevance]
        if explain:
            row.append(", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in h["explain"].items()))
        rows.append(row)
    output.rows(cols, rows, title=f"recall: {output.short(data['query'], 60)} ({data['mode']})")
    for finding in data.get("findings") or ():  # checks the hits take part in: the linked hits say why
        output.note(f"{finding['severity']}: {finding['message']}")
    if note:
        output.note(note)


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

    def action() -> dict:
        return open_store().context(read_text(query), user=user, project=project, session=session,
                                    budget=budget, format=format)

    def human(d: dict) -> None:
        sys.stdout.write(d["text"] + ("\n" if not d["text"].endswith("\n") else ""))
        if explain:
            for rule in d["explain"] or [{"name": "none", "matched": "", "description": "no rule fired"}]:
                output.warn(f"rule {rule['name']}: {rule['description']} (matched {rule['matched']!r})")
            output.warn(f"{d['tokens']}/{d['budget']} tokens, {len(d['items'])} memories, {d['held_back']} held back below min_relevance")

    run("context", json_, action, human)


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
