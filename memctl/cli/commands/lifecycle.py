"""Lifecycle commands: compact (expire, supersede by key, promote, consolidate, archive) and its undo."""

from __future__ import annotations

from typing import Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output as render
from memctl.cli.app import Json, app, run, store


@app.command()
def compact(
    user: Annotated[Optional[str], typer.Option("--user", "-u", help="Only this user's memories.")] = None,
    project: Annotated[Optional[str], typer.Option("--project", "-p", help="Only this project's memories.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the plan; change nothing.")] = False,
    llm: Annotated[Optional[str], typer.Option(help="Command writing consolidation summaries (stdin -> stdout).")] = None,
    undo: Annotated[bool, typer.Option("--undo", help="Reverse the last applied compaction.")] = False,
    json_: Json = False,
) -> None:
    """Keep memory small and current: every step is journaled and can be undone."""
    from memctl.services.compact import compact as do_compact, undo_last

    if undo:
        run("compact", json_, lambda: undo_last(store()), lambda d: render.message(
            f"undid {d['plan_id']}: {len(d['restored'])} memories put back, {len(d['removed'])} summaries removed"))
        return
    run("compact", json_, lambda: do_compact(store(), user=user, project=project, dry_run=dry_run, llm=llm),
        _render_plan)


def _render_plan(data: dict) -> None:
    actions = data["plan"]["actions"]
    if data.get("resumed"):
        render.message(f"resumed and finished the interrupted compaction {data['resumed']}")
    if not actions:
        render.message("nothing to compact")
        return
    rows = [[a["kind"], ", ".join(a["ids"]), a.get("winner") or a.get("target_scope") or "", a["reason"]]
            for a in actions]
    verb = "would apply" if data["dry_run"] else f"applied {data['plan_id']}"
    render.rows(["action", "memories", "kept / to", "why"], rows, title=f"compact: {verb} ({len(actions)} actions)")
