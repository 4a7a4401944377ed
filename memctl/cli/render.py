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
    """recall: a table of hits (score, id, type, owner, content), with `--explain` the components."""
    explain = args.get("explain", False)
    if not data["hits"]:
        output.message(f"no memories found for {data['query']!r} ({data['considered']} considered)")
        return
    cols = ["score", "id", "type", "owner", "content"] + (["explain"] if explain else [])
    rows = []
    for h in data["hits"]:
        owner = h.get("project") if h["scope"] == "project" else h.get("user")
        row = [f"{h['score']:.3f}", h["id"], h["type"], owner, output.short(h["content"], 100)]
        if explain:
            row.append(", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in h["explain"].items()))
        rows.append(row)
    output.rows(cols, rows, title=f"recall: {output.short(data['query'], 60)} ({data['mode']})")


def context_block(data: dict[str, Any], args: dict[str, Any]) -> None:
    """context: the block on stdout; with `--explain`, the rules that fired on stderr."""
    sys.stdout.write(data["text"] + ("\n" if not data["text"].endswith("\n") else ""))
    if args.get("explain"):
        for rule in data["explain"] or [{"name": "none", "matched": "", "description": "no rule fired"}]:
            output.warn(f"rule {rule['name']}: {rule['description']} (matched {rule['matched']!r})")
        output.warn(f"{data['tokens']}/{data['budget']} tokens, {len(data['items'])} memories")


def write(data: dict[str, Any], args: dict[str, Any] | None = None) -> None:
    """add: one line, what the decision was and the memory written."""
    decision = data.get("decision", {})
    memory = data.get("memory") or {}
    output.message(f"{decision.get('action', 'add')}: {memory.get('id')} {memory.get('path')}"
                   + (f" ({decision.get('reason')})" if decision.get("reason") else ""))


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
