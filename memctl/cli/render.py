"""How the commands a warm server can answer (recall, context, add, list, show) print their data.

One renderer per command, shared by the in-process path and the forwarded one, so their output is
the same bytes. Also the one way any command reports its result or its error. Lean at import time
(no typer, no rich until a table is printed on a terminal): the forwarded path imports it.
"""

from __future__ import annotations

import sys

from memctl.cli import output

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing takes ~6 ms to import; a command forwarded to a warm server runs without it
    from typing import Any, Callable


def hits(data: dict[str, Any], args: dict[str, Any]) -> None:
    """recall: a table of hits (score, id, type, owner, content, relevance; with `--explain` the
    components), linked and not-in-force hits marked, then the findings and the held-back note."""
    explain = args.get("explain", False)
    held = data.get("held_back", 0)
    note = (f"{held} {'hit' if held == 1 else 'hits'} held back below relevance {data['min_relevance']:g} "
            "(--all shows them)") if held else ""
    if not data["hits"]:
        output.note(f"no memories found for {output.clip(data['query'], 200)!r} ({data['considered']} considered"  # stderr: stdout
                    + (f"; {note})" if note else ")"))  # stays the hits alone, none here
        return
    dated = bool(data.get("order"))  # the query asked when: each hit's day, in that order
    cols = ["score", "id", "type", "owner", *(["date"] if dated else []), "content", "relevance"] + (["explain"] if explain else [])
    rows = [_hit_row(h, explain, dated) for h in data["hits"]]
    output.rows(cols, rows, title=f"recall: {output.short(data['query'], 60)} ({data['mode']})")
    for finding in data.get("findings") or ():  # checks the hits take part in: the linked hits say why
        output.note(f"{finding['severity']}: {finding['message']}")
    if note:
        output.note(note)


def _hit_row(h: dict[str, Any], explain: bool, dated: bool = False) -> list[Any]:
    owner = h.get("project") if h["scope"] == "project" else h.get("user")
    marks = "".join(f"[{m}] " for m in (("linked to " + h["linked_to"]) if h.get("linked_to") else None,
                                         "constraint" if h.get("constraint") else None,
                                         None if h.get("in_force", True) else h.get("state")) if m)
    score = "linked" if h.get("linked_to") or h.get("constraint") else f"{h['score']:.3f}"
    relevance = "" if h.get("relevance") is None else f"{h['relevance']:.2f}"
    row = [score, h["id"], h["type"], owner, *([h.get("date") or ""] if dated else []),
           marks + output.short(h["content"], 100), relevance]
    if explain:
        why = [f"rides along: {h['constraint']}"] if h.get("constraint") else []
        row.append(", ".join([*why, *(_component(k, v) for k, v in h["explain"].items())]))
    return row


def _component(name: str, value: Any) -> str:
    """One component as --explain shows it: "cos=0.812", or the everyday topic that lifted the hit
    ("topic: pets")."""
    if name.startswith("topic:"):
        return f"topic: {name.partition(':')[2]}"
    return f"{name}={value:.3g}" if isinstance(value, float) else f"{name}={value}"


def context_block(data: dict[str, Any], args: dict[str, Any]) -> None:
    """context: the block on stdout; with `--explain`, the rules that fired on stderr."""
    text = output.safe(data["text"])  # the block holds stored text: no escape reaches the terminal
    sys.stdout.write(text + ("\n" if not text.endswith("\n") else ""))
    if args.get("explain"):
        for rule in data["explain"] or [{"name": "none", "matched": "", "description": "no rule fired"}]:
            output.warn(f"rule {rule['name']}: {rule['description']} (matched {rule['matched']!r})")
        for along in data.get("constraints") or ():
            output.warn(f"constraint {along['id']} rides along: {along['why']}")
        output.warn(f"{data['tokens']}/{data['budget']} tokens, {len(data['items'])} memories, "
                    f"{data['held_back']} held back below min_relevance")


def write(data: dict[str, Any], args: dict[str, Any] | None = None) -> None:
    """add: one line, what the decision was and the memory written."""
    decision = data.get("decision", {})
    memory = data.get("memory") or {}
    output.message(f"{decision.get('action', 'add')}: {memory.get('id')} {memory.get('path')}"
                   + (f" ({decision.get('reason')})" if decision.get("reason") else ""))
    for note in data.get("notes") or ():
        output.message(f"note: {note}")


def memories(data: dict[str, Any], args: dict[str, Any] | None = None) -> None:
    """list: a table of memories (importance too when sorted by it)."""
    with_imp = any("importance_score" in m for m in data["memories"])
    columns = ["id", "type", "owner", "conf", *(["importance"] if with_imp else []), "created", "content"]
    rows = [[m["id"], m["type"], m.get("project") if m["scope"] == "project" else m.get("user"), m["confidence"],
             *([m["importance_score"]] if with_imp else []), m["created"][:10], output.short(m["content"], 90)]
            for m in data["memories"]]
    output.rows(columns, rows, title=f"{data['count']} memories")


def memory(data: dict[str, Any], args: dict[str, Any] | None = None) -> None:
    """show: the memory's fields, one per row."""
    output.key_values(data["memory"], title=data["memory"]["id"])


HUMAN: dict[str, Callable[[dict[str, Any], dict[str, Any]], None]] = {
    "recall": hits, "context": context_block, "add": write, "list": memories, "show": memory}


def result(command: str, as_json: bool, data: Any, human: Callable[[Any], None], quiet: bool = False) -> None:
    """A command's result in the output contract: the envelope, the ids (`-q`), or the human view."""
    if as_json:
        output.print_json(output.envelope(command, True, data))
    elif quiet:
        output.ids(data)
    else:
        human(data)


def error(command: str, as_json: bool, code: str, message: str, data: Any = None) -> None:
    """A command's error in the output contract: the envelope, or details and one line on stderr."""
    if as_json:
        output.print_json(output.envelope(command, False, data, [{"code": code, "message": message}]))
    else:
        output.error_details(data)
        output.error_line(message)


def warnings(messages: list[str]) -> None:
    """Warnings gathered while the command ran, on stderr."""
    for message in messages:
        output.warn(message)
