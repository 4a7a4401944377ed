"""Everyday commands on single memories: add, list, show, edit, forget, restore, history, stats."""

from __future__ import annotations

from typing import List, Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output
from memctl.cli.app import (
    Json,
    MemoryId,
    Project,
    Quiet,
    Session,
    Status,
    Tag,
    Tags,
    Text,
    TypeOpt,
    User,
    open_store,
    run,
    run_command,
)
from memctl.cli.inputs import edit_in_editor, read_text
from memctl.errors import UsageError


def add(
    text: Text = None,
    user: User = None, project: Project = None, session: Session = None,
    type: Annotated[Optional[str], typer.Option("--type", "-t", metavar="TYPE",
                                                help="Memory type (default: fact, else the preset's first type).")] = None,
    subtype: Annotated[Optional[str], typer.Option(metavar="SUBTYPE", help="Finer category.")] = None,
    name: Annotated[Optional[str], typer.Option(metavar="TITLE", help="A short title (the claude layout derives one).")] = None,
    description: Annotated[Optional[str], typer.Option(metavar="TEXT",
                                                       help="A one-line description (the claude layout derives one).")] = None,
    confidence: Annotated[float, typer.Option(metavar="0..1", min=0.0, max=1.0,
                                              help="Below the gate's minimum is refused.")] = 1.0,
    source: Annotated[str, typer.Option(metavar="SOURCE", help="user, ai, auto, import, ...")] = "user",
    tag: Tags = None,
    key: Annotated[Optional[str], typer.Option(metavar="KEY", help="Versioning key, e.g. home.city.")] = None,
    ttl: Annotated[Optional[str], typer.Option(metavar="DURATION", help="Expire after e.g. 7d, 12h.")] = None,
    importance: Annotated[Optional[float], typer.Option(metavar="0..1", min=0.0, max=1.0,
                                                        help="Explicit importance (1 = pinned).")] = None,
    occurred: Annotated[Optional[str], typer.Option(metavar="DATE", help=(
        "When it happens or happened: 2026-03-02, 2026-03 or 2026-03-02..2026-03-09 (default: read from "
        "'tomorrow', 'next week'... in the text)."))] = None,
    state: Annotated[Optional[str], typer.Option(metavar="STATE", help=(
        "active, inactive, planned, done, cancelled ([facts] states); not in force ranks lower."))] = None,
    valid_until: Annotated[Optional[str], typer.Option(metavar="TIME", help="In force until then (ISO 8601).")] = None,
    part_of: Annotated[Optional[str], typer.Option(metavar="ID", help=(
        "Part of that memory (a trip's flight): recalling one brings the others."))] = None,
    visibility: Annotated[Optional[str], typer.Option(metavar="WHO", help=(
        "public, members or owner_only (only its author sees it; default: by its folder)."))] = None,
    kind: Annotated[Optional[str], typer.Option(metavar="KIND", help=(
        "A typed memory of this kind (passport, trip, medication...: `memctl kinds`), with --field values."))] = None,
    field: Annotated[Optional[List[str]], typer.Option("--field", metavar="NAME=VALUE", help=(
        "A typed field, checked against the kind (repeatable): --field expires=2026-04-02."))] = None,
    during: Annotated[Optional[str], typer.Option(metavar="SESSION", help=(
        "The conversation this write comes from, for a long-term memory: `extract` then skips that turn."))] = None,
    redact: Annotated[Optional[bool], typer.Option("--redact/--no-redact", help="Mask secrets instead of refusing.")] = None,
    llm: Annotated[Optional[str], typer.Option(metavar="COMMAND",
                                               help="Command deciding ambiguous cases (reads stdin, writes stdout).")] = None,
    json_: Json = False, quiet: Quiet = False,
) -> None:
    """Remember TEXT: gate, decide (add/update/supersede/noop), write one memory."""
    run_command("add", {"text": text, "user": user, "project": project, "session": session, "type": type,
                        "subtype": subtype, "name": name, "description": description, "confidence": confidence,
                        "source": source, "tag": tag, "key": key, "ttl": ttl, "importance": importance,
                        "occurred": occurred, "state": state, "valid_until": valid_until, "part_of": part_of,
                        "visibility": visibility, "kind": kind, "field": field, "during": during, "redact": redact, "llm": llm}, json_, quiet)


def list_(user: User = None, project: Project = None, type: TypeOpt = None, tag: Tag = None,
          session: Session = None, status: Status = "active",
          sort: Annotated[str, typer.Option(metavar="FIELD",
                                            help="created, updated, type, confidence, importance, id.")] = "created",
          limit: Annotated[int, typer.Option("--limit", "-n", metavar="N", min=0, help="At most this many (0 = all).")] = 0,
          json_: Json = False, quiet: Quiet = False) -> None:
    """List memories, filtered and sorted."""
    run_command("list", {"user": user, "project": project, "type": type, "tag": tag, "session": session,
                         "status": status, "sort": sort, "limit": limit}, json_, quiet)


def show(memory_id: MemoryId, json_: Json = False) -> None:
    """Show one memory, with its importance."""
    run_command("show", {"memory_id": memory_id}, json_)


def edit(memory_id: MemoryId,
         set_: Annotated[Optional[List[str]], typer.Option("--set", metavar="FIELD=VALUE",
                                                           help="YAML value; repeatable.")] = None,
         body: Annotated[Optional[str], typer.Option("--body", metavar="TEXT", help="New body text, or - for stdin.")] = None,
         json_: Json = False) -> None:
    """Edit a memory's fields or body (or open $EDITOR); validated before saving."""

    def action() -> dict:
        s = open_store()
        sets = parse_sets(set_ or [])
        new_body = read_text(body) if body is not None else None
        if not sets and new_body is None:
            new_body = edit_in_editor(s.get(memory_id).body)
        return {"memory": s.edit(memory_id, sets, new_body).to_public()}

    run("edit", json_, action, lambda d: output.message(f"edited {d['memory']['id']} {d['memory']['path']}"))


def parse_sets(items: list[str]) -> dict[str, str]:
    """`--set field=value` options as a mapping."""
    out = {}
    for item in items:
        field, sep, value = item.partition("=")
        if not sep or not field.strip():
            raise UsageError(f"--set needs field=value, got {item!r}", code="bad_set")
        out[field.strip()] = value
    return out


WithParts = Annotated[bool, typer.Option("--with-parts", help="Also the memories that are part of it (part_of).")]


def forget(memory_id: MemoryId,
           reason: Annotated[Optional[str], typer.Option(metavar="TEXT", help="Why (kept in the archived file).")] = None,
           with_parts: WithParts = False, json_: Json = False) -> None:
    """Archive a memory (status forgotten); `restore` brings it back. A whole's parts are offered."""

    def action() -> dict:
        s = open_store()
        done = s.forget_all(memory_id, reason, with_parts)
        left = [m for m in s.parts(done[0].id) if m.status == "active" and not (m.path or "").startswith("archive/")]
        return _moved(done, left)

    run("forget", json_, action, lambda d: _render_moved("forgotten", d, "forget"))


def restore(memory_id: MemoryId, with_parts: WithParts = False, json_: Json = False) -> None:
    """Bring an archived memory back to its active folder. A whole's forgotten parts are offered."""

    def action() -> dict:
        s = open_store()
        done = s.restore_all(memory_id, with_parts)
        left = [m for m in s.parts(done[0].id) if m.status == "forgotten"]
        return _moved(done, left)

    run("restore", json_, action, lambda d: _render_moved("restored", d, "restore"))


def _moved(done: list, left: list) -> dict:
    return {"memory": done[0].to_public(), "parts": [m.to_public() for m in done[1:]],
            "parts_left": [m.to_public() for m in left]}


def _render_moved(verb: str, d: dict, command: str) -> None:
    for m in [d["memory"], *d["parts"]]:
        output.message(f"{verb} {m['id']} -> {m['path']}")
    if d["parts_left"]:
        ids = " ".join(m["id"] for m in d["parts_left"])
        output.message(f"note: {len(d['parts_left'])} part(s) of {d['memory']['id']} left as they are: {ids} "
                       f"(memctl {command} {d['memory']['id']} --with-parts takes them too)")


def history(memory_id: MemoryId, json_: Json = False) -> None:
    """What happened to a memory, from the journal."""

    def action() -> dict:
        return {"id": memory_id, "entries": [e.model_dump(exclude_none=True) for e in open_store().history(memory_id)]}

    run("history", json_, action, lambda d: output.rows(
        ["time", "op", "id", "before", "after", "path"],
        [[e["time"], e["op"], e["id"], e.get("before"), e.get("after"), e.get("path_after") or e.get("path_before")]
         for e in d["entries"]], title=f"history of {d['id']}"))


def stats(user: User = None, project: Project = None, json_: Json = False) -> None:
    """Counts by status, type, scope and owner (of a user's or a project's memories: --user, --project)."""
    run("stats", json_, lambda: open_store().stats(user=user, project=project),
        lambda d: output.key_values(d, title="memctl stats"))


COMMANDS = [("add", add), ("list", list_), ("show", show), ("edit", edit), ("forget", forget),
            ("restore", restore), ("history", history), ("stats", stats)]
