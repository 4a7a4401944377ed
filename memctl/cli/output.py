"""Output: the versioned JSON envelope, rich tables for a terminal, plain lines for pipes. Nothing else prints.

When stdout is not a terminal (a pipe, a file), human output is plain: tab-separated rows without
box drawing or wrapping, so `memctl list | cut -f1` works. Text that came from a memory is always
stripped of terminal control sequences before it is shown.
"""

from __future__ import annotations

import json
import sys

from memctl.core.envelope import envelope, to_jsonable
from memctl.core.printable import printable

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing takes ~6 ms to import; a command forwarded to a warm server runs without it
    from typing import Any

__all__ = ["envelope", "to_jsonable"]  # re-exported: commands render through this module


def print_json(payload: dict[str, Any]) -> None:
    """One JSON document on stdout."""
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=False) + "\n")


def safe(text: str) -> str:
    """Text with terminal escape and control sequences removed (newlines and tabs kept)."""
    return printable(text)


def is_terminal() -> bool:
    """True when stdout is an interactive terminal (rich tables), False for pipes (plain lines)."""
    return sys.stdout.isatty()


def console(stderr: bool = False) -> Any:  # rich.console.Console (rich imported lazily: faster start-up)
    """A rich console on stdout (or stderr), without markup highlighting."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def warn(message: str) -> None:
    """A warning for people: always stderr, so stdout stays machine-readable."""
    sys.stderr.write(f"memctl: warning: {safe(message)}\n")


def note(message: str) -> None:
    """A remark for people beside the output (how many hits were held back): stderr, like warnings,
    after what stdout holds so far (so a terminal shows it below the table)."""
    sys.stdout.flush()
    sys.stderr.write(f"memctl: {safe(message)}\n")


def error_line(message: str) -> None:
    """An error for people, on stderr."""
    sys.stderr.write(f"memctl: error: {safe(message)}\n")


def short(text: str, width: int = 80) -> str:
    """One line of at most `width` characters on a terminal; the whole text in a pipe or a file, so
    `memctl list | cut -f7` loses nothing (rows() writes its tabs and newlines as spaces)."""
    return clip(text, width) if is_terminal() else safe(text)


def clip(text: str, width: int = 80) -> str:
    """One line of at most `width` characters, wherever it goes: for a message naming what it was
    given (a pasted 100 KB query is named by its start)."""
    line = " ".join(safe(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return safe(json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else str(value))


def key_values(data: dict[str, Any], title: str | None = None) -> None:
    """A two-column table (a box on a terminal, `key<TAB>value` lines otherwise)."""
    if not is_terminal():
        sys.stdout.write("".join(f"{k}\t{_cell(v).replace(chr(10), ' ')}\n" for k, v in data.items()))
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(title) if title else None, show_header=False)
    table.add_column("key", style="bold")
    table.add_column("value")
    for k, v in data.items():
        table.add_row(escape(str(k)), escape(_cell(v)))
    console().print(table)


def rows(columns: list[str], data: list[list[Any]], title: str | None = None) -> None:
    """A table (a box on a terminal, tab-separated lines without header or title otherwise)."""
    if not is_terminal():
        sys.stdout.write("".join("\t".join(_cell(v).replace("\t", " ").replace("\n", " ") for v in row) + "\n"
                                 for row in data))
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(title) if title else None)
    for col in columns:
        table.add_column(col, overflow="fold")
    for row in data:
        table.add_row(*[escape(_cell(v)) for v in row])
    console().print(table)


def message(text: str) -> None:
    """One line for people on stdout (never markup: memory text may contain brackets)."""
    sys.stdout.write(safe(text) + "\n")


def lines(items: list[str]) -> None:
    """Machine lines (JSON Lines), one per item, exactly as given: the caller made them safe to print."""
    sys.stdout.write("".join(f"{item}\n" for item in items))


def ids(data: Any) -> None:
    """`-q`: only the ids of the memories a command returned, one per line."""
    found: list[str] = []
    if isinstance(data, dict):
        for key in ("memories", "hits", "items", "conflicts"):
            found += [str(i.get("id") or i.get("newer")) for i in data.get(key) or [] if i.get("id") or i.get("newer")]
        memory = data.get("memory")
        if isinstance(memory, dict) and memory.get("id"):
            found.append(memory["id"])
    sys.stdout.write("".join(f"{i}\n" for i in found))


def error_details(data: Any) -> None:
    """Details of a failed command for people (stderr): doctor's problems, a refused write's reasons."""
    if not isinstance(data, dict):
        return
    for problem in data.get("problems", []):
        warn(f"{problem['kind']}: {problem['path']}: {problem['detail']}")
    decision = data.get("decision") or {}
    if decision.get("action") == "noop" and decision.get("target"):
        warn(f"already stored as {decision['target']} ({decision.get('reason', 'repeat')})")
