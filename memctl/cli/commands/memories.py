"""Everyday commands: init, add, list, show, edit, forget, restore, history, stats."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import List, Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output as render
from memctl.cli.app import Json, MemoryId, Project, Session, Status, Tag, Tags, Text, TypeOpt, User, app, read_text, run, store
from memctl.errors import UsageError


@app.command()
def init(directory: Annotated[Path, typer.Argument(help="Where to create it (default: here).")] = Path("."),
         json_: Json = False) -> None:
    """Create a memory directory: memctl.toml, MEMORY.md.template, .gitignore, folders."""
    from memctl.api import init_directory

    def action() -> dict:
        return {"root": str(directory.resolve()), "created": init_directory(directory)}

    run("init", json_, action, lambda d: render.message(
        f"initialised {d['root']}" + (f" (created {', '.join(d['created'])})" if d["created"] else " (nothing to do)")))


@app.command()
def add(
    text: Text,
    user: User = None, project: Project = None, session: Session = None,
    type: Annotated[str, typer.Option("--type", "-t", help="Memory type.")] = "fact",
    subtype: Annotated[Optional[str], typer.Option(help="Finer category.")] = None,
    confidence: Annotated[float, typer.Option(help="0..1; below the gate's minimum is refused.")] = 1.0,
    source: Annotated[str, typer.Option(help="user, ai, auto, import, ...")] = "user",
    tag: Tags = None,
    key: Annotated[Optional[str], typer.Option(help="Versioning key, e.g. home.city.")] = None,
    ttl: Annotated[Optional[str], typer.Option(help="Expire after e.g. 7d, 12h.")] = None,
    importance: Annotated[Optional[float], typer.Option(help="Explicit importance 0..1 (1 = pinned).")] = None,
    redact: Annotated[Optional[bool], typer.Option("--redact/--no-redact", help="Mask secrets instead of refusing.")] = None,
    llm: Annotated[Optional[str], typer.Option(help="Command deciding ambiguous cases (reads stdin, writes stdout).")] = None,
    json_: Json = False,
) -> None:
    """Remember TEXT: gate, decide (add/update/supersede/noop), write one memory."""

    def action() -> dict:
        from memctl.services.write import add_memory

        return add_memory(store(), read_text(text), type=type, user=user, project=project, session=session,
                          subtype=subtype, confidence=confidence, source=source, tags=tag or [], key=key,
                          ttl=ttl, importance=importance, redact=redact, llm=llm).to_data()

    run("add", json_, action, render_write)


def render_write(data: dict) -> None:
    decision = data.get("decision", {})
    memory = data.get("memory") or {}
    render.message(f"{decision.get('action', 'add')}: {memory.get('id')} {memory.get('path')}"
                   + (f" ({decision.get('reason')})" if decision.get("reason") else ""))


@app.command("list")
def list_(user: User = None, project: Project = None, type: TypeOpt = None, tag: Tag = None,
          session: Session = None, status: Status = "active",
          sort: Annotated[str, typer.Option(help="created, updated, type, confidence, importance, id.")] = "created",
          limit: Annotated[int, typer.Option("--limit", "-n", help="At most this many (0 = all).")] = 0,
          json_: Json = False) -> None:
    """List memories, filtered and sorted."""

    def action() -> dict:
        s = store()
        memories = s.list(user=user, project=project, type=type, status=status, tag=tag, session=session, sort=sort)
        memories = memories[:limit] if limit else memories
        scores = s.importance_scores(memories) if sort == "importance" else None
        return {"count": len(memories), "memories": [_public(m, scores) for m in memories]}

    run("list", json_, action, _render_list)


def _render_list(d: dict) -> None:
    with_imp = any("importance_score" in m for m in d["memories"])
    columns = ["id", "type", "owner", "conf", *(["importance"] if with_imp else []), "created", "content"]
    rows = [[m["id"], m["type"], m.get("project") if m["scope"] == "project" else m.get("user"), m["confidence"],
             *([m["importance_score"]] if with_imp else []), m["created"][:10], render.short(m["content"], 90)]
            for m in d["memories"]]
    render.rows(columns, rows, title=f"{d['count']} memories")


def _public(memory, scores: dict | None = None) -> dict:
    data = memory.to_public()
    if scores is not None:
        data["importance_score"] = round(scores.get(memory.id, 0.0), 4)
    return data


@app.command()
def show(memory_id: MemoryId, json_: Json = False) -> None:
    """Show one memory, with its importance."""

    def action() -> dict:
        s = store()
        memory = s.get(memory_id)
        data = memory.to_public()
        data["importance_score"] = round(s.importance_scores([memory]).get(memory.id, 0.0), 4)
        return {"memory": data}

    run("show", json_, action, lambda d: render.key_values(d["memory"], title=d["memory"]["id"]))


@app.command()
def edit(memory_id: MemoryId,
         set_: Annotated[Optional[List[str]], typer.Option("--set", help="field=value (YAML value; repeatable).")] = None,
         body: Annotated[Optional[str], typer.Option("--body", help="New body text, or - for stdin.")] = None,
         json_: Json = False) -> None:
    """Edit a memory's fields or body (or open $EDITOR); validated before saving."""

    def action() -> dict:
        s = store()
        sets = _parse_sets(set_ or [])
        new_body = read_text(body) if body is not None else None
        if not sets and new_body is None:
            new_body = _edit_in_editor(s.get(memory_id).body)
        return {"memory": s.edit(memory_id, sets, new_body).to_public()}

    run("edit", json_, action, lambda d: render.message(f"edited {d['memory']['id']} {d['memory']['path']}"))


def _parse_sets(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        field, sep, value = item.partition("=")
        if not sep or not field.strip():
            raise UsageError(f"--set needs field=value, got {item!r}", code="bad_set")
        out[field.strip()] = value
    return out


def _edit_in_editor(body: str) -> str:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise UsageError("nothing to change: give --set or --body, or set $EDITOR", code="no_edit")
    with tempfile.NamedTemporaryFile("w+", suffix=".md", delete=False, encoding="utf-8") as handle:
        handle.write(body + "\n")
    try:
        import shlex

        if subprocess.call([*shlex.split(editor), handle.name]) != 0:
            raise UsageError("the editor exited with an error; nothing changed", code="editor_failed")
        return Path(handle.name).read_text(encoding="utf-8")
    finally:
        os.unlink(handle.name)


@app.command()
def forget(memory_id: MemoryId,
           reason: Annotated[Optional[str], typer.Option(help="Why (kept in the archived file).")] = None,
           json_: Json = False) -> None:
    """Archive a memory (status forgotten); `restore` brings it back."""
    run("forget", json_, lambda: {"memory": store().forget(memory_id, reason).to_public()},
        lambda d: render.message(f"forgotten {d['memory']['id']} -> {d['memory']['path']}"))


@app.command()
def restore(memory_id: MemoryId, json_: Json = False) -> None:
    """Bring an archived memory back to its active folder."""
    run("restore", json_, lambda: {"memory": store().restore(memory_id).to_public()},
        lambda d: render.message(f"restored {d['memory']['id']} -> {d['memory']['path']}"))


@app.command()
def history(memory_id: MemoryId, json_: Json = False) -> None:
    """What happened to a memory, from the journal."""

    def action() -> dict:
        return {"id": memory_id, "entries": [e.model_dump(exclude_none=True) for e in store().history(memory_id)]}

    run("history", json_, action, lambda d: render.rows(
        ["time", "op", "id", "before", "after", "path"],
        [[e["time"], e["op"], e["id"], e.get("before"), e.get("after"), e.get("path_after") or e.get("path_before")]
         for e in d["entries"]], title=f"history of {d['id']}"))


@app.command()
def stats(json_: Json = False) -> None:
    """Counts by status, type, scope and owner."""
    run("stats", json_, lambda: store().stats(), lambda d: render.key_values(d, title="memctl stats"))
