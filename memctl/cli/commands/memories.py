"""Everyday commands on single memories: add, list, show, edit, forget, restore, history, stats."""

from __future__ import annotations

from typing import List, Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output
from memctl.cli.app import (
    Json,
    Quiet,
    open_store,
    run,
    run_command,
)
from memctl.cli.declared import command
from memctl.cli.inputs import edit_in_editor, read_text
from memctl.core.byid import EditRequest, ForgetRequest, HistoryRequest, RestoreRequest, ShowRequest
from memctl.core.requests import AddRequest, ListRequest, StatsRequest
from memctl.errors import UsageError


def _add(values: dict) -> None:
    json_, quiet = values.pop("json_"), values.pop("quiet")
    run_command("add", values, json_, quiet)


add = command(AddRequest, "add", _add, "Remember TEXT: gate, decide (add/update/supersede/noop), write one memory.", (
    ("field", Annotated[Optional[List[str]], typer.Option("--field", metavar="NAME=VALUE", help=(
        "A typed field, checked against the kind (repeatable): --field expires=2026-04-02."))], None),
    ("json_", Json, False), ("quiet", Quiet, False)))


def _list(values: dict) -> None:
    json_, quiet = values.pop("json_"), values.pop("quiet")
    run_command("list", values, json_, quiet)


list_ = command(ListRequest, "list", _list, "List memories, filtered and sorted.",
                (("json_", Json, False), ("quiet", Quiet, False)))


def _show(values: dict) -> None:
    run_command("show", values, values.pop("json_"))


show = command(ShowRequest, "show", _show, "Show one memory, with its importance.", (("json_", Json, False),))


def _edit(values: dict) -> None:
    json_, set_ = values.pop("json_"), values.pop("set_")

    def action() -> dict:
        s = open_store()
        given = {k: v for k, v in values.items() if v is not None}
        if given.get("body") is not None:
            given["body"] = read_text(given["body"])
        sets = parse_sets(set_ or [])
        if not sets and set(given) <= {"memory_id"}:  # the id alone: the memory in $EDITOR
            given["body"] = edit_in_editor(s.get(values["memory_id"]).body)
        return {"memory": s.edit(**given, sets=sets or None).to_public()}

    run("edit", json_, action, lambda d: output.message(f"edited {d['memory']['id']} {d['memory']['path']}"))


edit = command(EditRequest, "edit", _edit, "Edit a memory's fields or body (or open $EDITOR); validated before saving.", (
    ("set_", Annotated[Optional[List[str]], typer.Option("--set", metavar="FIELD=VALUE", help=(
        "Any other field, its value YAML (repeatable; empty clears it): --set state=done."))], None),
    ("json_", Json, False)))


def parse_sets(items: list[str]) -> dict[str, str]:
    """`--set field=value` options as a mapping."""
    out = {}
    for item in items:
        field, sep, value = item.partition("=")
        if not sep or not field.strip():
            raise UsageError(f"--set needs field=value, got {item!r}", code="bad_set")
        out[field.strip()] = value
    return out


def _forget(values: dict) -> None:
    json_ = values.pop("json_")

    def action() -> dict:
        s = open_store()
        done = s.forget_all(**values)
        left = [m for m in s.parts(done[0].id) if m.status == "active" and not (m.path or "").startswith("archive/")]
        return _moved(done, left)

    run("forget", json_, action, lambda d: _render_moved("forgotten", d, "forget"))


forget = command(ForgetRequest, "forget", _forget, "Archive a memory (status forgotten); `restore` brings it back. "
                 "A whole's parts are offered.", (("json_", Json, False),))


def _restore(values: dict) -> None:
    json_ = values.pop("json_")

    def action() -> dict:
        s = open_store()
        done = s.restore_all(**values)
        left = [m for m in s.parts(done[0].id) if m.status == "forgotten"]
        return _moved(done, left)

    run("restore", json_, action, lambda d: _render_moved("restored", d, "restore"))


restore = command(RestoreRequest, "restore", _restore, "Bring an archived memory back to its active folder. "
                  "A whole's forgotten parts are offered.", (("json_", Json, False),))


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


def _history(values: dict) -> None:
    json_ = values.pop("json_")

    def action() -> dict:
        entries = open_store().history(**values)
        return {"id": values["memory_id"], "entries": [e.model_dump(exclude_none=True) for e in entries]}

    run("history", json_, action, lambda d: output.rows(
        ["time", "op", "id", "before", "after", "path", "by / changed"],
        [[e["time"], e["op"], e["id"], e.get("before"), e.get("after"), e.get("path_after") or e.get("path_before"),
          _commit_note(e)] for e in d["entries"]], title=f"history of {d['id']}"))


def _commit_note(entry: dict) -> str:
    """For a git commit: its author, short hash and the fields it changed."""
    if entry["op"] != "commit":
        return ""
    detail = entry.get("detail", {})
    return f"{detail.get('author')} ({detail.get('commit', '')[:7]}): {', '.join(detail.get('fields', []))}"


history = command(HistoryRequest, "history", _history, "What happened to a memory: the local journal and every commit git holds of its file.",
                  (("json_", Json, False),))


def _stats(values: dict) -> None:
    json_ = values.pop("json_")
    run("stats", json_, lambda: open_store().stats(**values), lambda d: output.key_values(d, title="memctl stats"))


stats = command(StatsRequest, "stats", _stats, "Counts by status, type, scope and owner (of a user's or a project's "
                "memories: --user, --project).", (("json_", Json, False),))


COMMANDS = [("add", add), ("list", list_), ("show", show), ("edit", edit), ("forget", forget),
            ("restore", restore), ("history", history), ("stats", stats)]
