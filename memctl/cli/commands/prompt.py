"""Prompt-side commands: index (MEMORY.md) and context (the block agents prepend)."""

from __future__ import annotations

from typing import List, Optional

import sys
import typer
from typing_extensions import Annotated

from memctl.cli import output as render
from memctl.cli.app import Json, Session, app, read_text, run, store
from memctl.errors import UsageError


@app.command()
def index(
    user: Annotated[Optional[List[str]], typer.Option("--user", "-u", help="Render users/<U>/MEMORY.md (repeatable).")] = None,
    project: Annotated[Optional[List[str]], typer.Option("--project", "-p", help="Render projects/<P>/MEMORY.md (repeatable).")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Every user and project with active memories.")] = False,
    json_: Json = False,
) -> None:
    """Regenerate MEMORY.md from MEMORY.md.template, within the configured budget."""
    from memctl.services.memory_md import render_indexes

    run("index", json_, lambda: {"indexes": render_indexes(store(), user or [], project or [], all_)},
        lambda d: render.rows(["path", "changed", "listed", "omitted", "lines", "bytes"],
                              [[i["path"], i["changed"], i["listed"], i["omitted"], i["lines"], i["bytes"]]
                               for i in d["indexes"]], title="MEMORY.md"))


@app.command()
def context(
    query: Annotated[str, typer.Argument(help="The agent's current question or task, or - for stdin.")],
    user: Annotated[Optional[str], typer.Option("--user", "-u", help="Whose memory.")] = None,
    project: Annotated[Optional[str], typer.Option("--project", "-p", help="Project scope.")] = None,
    session: Session = None,
    budget: Annotated[int, typer.Option(help="Token budget (approx: ASCII chars/4 + 1 per other char).")] = 800,
    format: Annotated[str, typer.Option("--format", "-f", help="markdown, xml or json.")] = "markdown",
    explain: Annotated[bool, typer.Option(help="Show which rules fired (stderr, or in --json).")] = False,
    json_: Json = False,
) -> None:
    """The block an agent prepends to its prompt: profile + recalled memories, fenced as data."""
    from memctl.services.memory_md import build_context

    def action() -> dict:
        if format not in ("markdown", "xml", "json"):
            raise UsageError(f"unknown format {format!r} (markdown, xml or json)", code="bad_format")
        return build_context(store(), read_text(query), user=user, project=project, session=session,
                             budget=budget, fmt=format)

    def human(d: dict) -> None:
        sys.stdout.write(d["text"] + ("\n" if not d["text"].endswith("\n") else ""))
        if explain:
            for rule in d["explain"] or [{"name": "none", "matched": "", "description": "no rule fired"}]:
                render.warn(f"rule {rule['name']}: {rule['description']} (matched {rule['matched']!r})")
            render.warn(f"{d['tokens']}/{d['budget']} tokens, {len(d['items'])} memories")

    run("context", json_, action, human)
