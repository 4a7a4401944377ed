"""Search commands: recall, reindex, gate."""

from __future__ import annotations

from typing import List, Optional

import typer
from typing_extensions import Annotated

from memctl import clock
from memctl.cli import output as render
from memctl.cli.app import Json, Project, Session, Text, User, app, read_text, run, store
from memctl.errors import Refused

Users = Annotated[Optional[List[str]], typer.Option("--user", "-u", help="User scope (repeatable).")]
Projects = Annotated[Optional[List[str]], typer.Option("--project", "-p", help="Project scope (repeatable).")]


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="What to recall (any language), or - for stdin.")],
    user: Users = None, project: Projects = None, session: Session = None,
    type: Annotated[Optional[List[str]], typer.Option("--type", "-t", help="Only these types (repeatable).")] = None,
    tag: Annotated[Optional[List[str]], typer.Option("--tag", help="Only memories with one of these tags.")] = None,
    since: Annotated[Optional[str], typer.Option(help="Created at or after (ISO date/time).")] = None,
    until: Annotated[Optional[str], typer.Option(help="Created at or before (ISO date/time).")] = None,
    status: Annotated[str, typer.Option(help="active (default), superseded, merged, forgotten, expired, all.")] = "active",
    k: Annotated[Optional[int], typer.Option("-k", help="How many hits (default from memctl.toml: 5).")] = None,
    mode: Annotated[Optional[str], typer.Option(help="hybrid, keyword or semantic.")] = None,
    explain: Annotated[bool, typer.Option(help="Show the component scores.")] = False,
    json_: Json = False,
) -> None:
    """Find the memories that matter for QUERY (keyword + local embeddings)."""

    def action() -> dict:
        s = store()
        result = s.recall(read_text(query), users=user or [], projects=project or [], session=session,
                          types=type or [], tags=tag or [], status=status,
                          since=clock.parse_timestamp(since) if since else None,
                          until=clock.parse_timestamp(until) if until else None,
                          k=s.config.recall.k if k is None else k, mode=_mode(mode or s.config.recall.mode))
        return result.to_data(explain)

    run("recall", json_, action, lambda d: _render_hits(d, explain))


def _mode(value: str) -> str:
    from memctl.errors import UsageError

    if value not in ("hybrid", "keyword", "semantic"):
        raise UsageError(f"unknown mode {value!r} (hybrid, keyword or semantic)", code="bad_mode")
    return value


def _render_hits(data: dict, explain: bool) -> None:
    if not data["hits"]:
        render.message(f"no memories found for {data['query']!r} ({data['considered']} considered)")
        return
    cols = ["score", "id", "type", "owner", "content"] + (["explain"] if explain else [])
    rows = []
    for h in data["hits"]:
        owner = h.get("project") if h["scope"] == "project" else h.get("user")
        row = [f"{h['score']:.3f}", h["id"], h["type"], owner, render.short(h["content"], 100)]
        if explain:
            row.append(", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                                 for k, v in h["explain"].items()))
        rows.append(row)
    render.rows(cols, rows, title=f"recall: {data['query']} ({data['mode']})")


@app.command()
def reindex(json_: Json = False,
            keyword_only: Annotated[bool, typer.Option("--keyword-only", help="Skip the vectors.")] = False) -> None:
    """Rebuild every cache (catalog, keyword index, vectors) from the files."""
    from memctl.services.maintenance import reindex as do_reindex

    run("reindex", json_, lambda: do_reindex(store(), vectors=not keyword_only, progress=not json_),
        lambda d: render.message(f"reindexed {d['memories']} memories ({d['embedded']} embedded) in {d['seconds']:.1f} s"))


@app.command()
def doctor(fix: Annotated[bool, typer.Option("--fix", help="Remove leftover temp files of interrupted writes.")] = False,
           json_: Json = False) -> None:
    """Check the directory: broken or misplaced files, duplicate ids, leftovers. Exit 1 if anything is wrong."""
    from memctl.errors import MemctlError
    from memctl.services.maintenance import doctor as check

    def action() -> dict:
        report = check(store(), fix=fix)
        if report["problems"]:
            raise MemctlError(f"{len(report['problems'])} problem(s) found", code="problems", data=report)
        return report

    def human(d: dict) -> None:
        render.message(f"{d['memories']} memories, no problems" + (f" (removed {len(d['removed'])} temp files)" if d["removed"] else ""))

    run("doctor", json_, action, human)


@app.command()
def gate(
    text: Text, user: User = None, project: Project = None, session: Session = None,
    type: Annotated[str, typer.Option("--type", "-t", help="Memory type.")] = "fact",
    confidence: Annotated[float, typer.Option(help="0..1.")] = 1.0,
    source: Annotated[str, typer.Option(help="user, ai, auto, import, ...")] = "user",
    key: Annotated[Optional[str], typer.Option(help="Versioning key.")] = None,
    redact: Annotated[Optional[bool], typer.Option("--redact/--no-redact", help="Mask secrets instead of refusing.")] = None,
    min_confidence: Annotated[Optional[float], typer.Option(help="Override the minimum confidence.")] = None,
    min_length: Annotated[Optional[int], typer.Option(help="Override the minimum length.")] = None,
    max_length: Annotated[Optional[int], typer.Option(help="Override the maximum length.")] = None,
    json_: Json = False,
) -> None:
    """Dry-run the gate and the write decision: would TEXT be written, and why not. Exit 0 pass, 3 refused."""

    def action() -> dict:
        overrides = {"min_confidence": min_confidence, "min_length": min_length, "max_length": max_length}
        result = store().add(read_text(text), type=type, user=user, project=project, session=session,
                             confidence=confidence, source=source, key=key, redact=redact, dry_run=True,
                             overrides=overrides)
        data = result.to_data()
        if not result.verdict.passed:
            codes = ", ".join(f.code for f in result.verdict.failures)
            raise Refused(f"would be refused ({codes}): " + "; ".join(f.message for f in result.verdict.failures),
                          code=result.verdict.failures[0].code, data=data)
        return data

    run("gate", json_, action, lambda d: render.message(
        f"would pass: {d['decision']['action']} ({d['decision']['reason']})"))
