"""Output: the versioned JSON envelope, and rich rendering for people. Nothing else prints."""

from __future__ import annotations

import json
import sys
from typing import Any, Iterable

from pydantic import BaseModel

ENVELOPE_VERSION = 1


def to_jsonable(value: Any) -> Any:
    """Models and containers to plain JSON values."""
    if isinstance(value, BaseModel):
        return to_jsonable(value.to_public() if hasattr(value, "to_public") else value.model_dump(mode="json"))
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "isoformat"):
        from memctl.clock import format_timestamp

        return format_timestamp(value)
    return value


def envelope(command: str, ok: bool, data: Any = None, errors: Iterable[dict] = ()) -> dict:
    """The one JSON shape every command prints with --json."""
    return {"version": ENVELOPE_VERSION, "command": command, "ok": ok,
            "data": to_jsonable(data) if data is not None else None, "errors": list(errors)}


def print_json(payload: dict) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=False) + "\n")


def console(stderr: bool = False):  # -> rich.console.Console (rich imported lazily: faster start-up)
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def warn(message: str) -> None:
    """A warning for people: always stderr, so stdout stays machine-readable."""
    sys.stderr.write(f"memctl: warning: {message}\n")


def error_line(message: str) -> None:
    sys.stderr.write(f"memctl: error: {message}\n")


def short(text: str, width: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def key_values(data: dict, title: str | None = None) -> None:
    from rich.table import Table

    table = Table(title=title, show_header=False)
    table.add_column("key", style="bold")
    table.add_column("value")
    for k, v in data.items():
        table.add_row(str(k), _escape(json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else str(v)))
    console().print(table)


def rows(columns: list[str], data: list[list[Any]], title: str | None = None) -> None:
    from rich.table import Table

    table = Table(title=title)
    for col in columns:
        table.add_column(col, overflow="fold")
    for row in data:
        table.add_row(*[_escape(str(v)) if v is not None else "" for v in row])
    console().print(table)


def message(text: str) -> None:
    console().print(text)


def error_details(data: Any) -> None:
    """Details of a failed command for people (stderr): doctor's problems, a refused write's reasons."""
    if not isinstance(data, dict):
        return
    for problem in data.get("problems", []):
        warn(f"{problem['kind']}: {problem['path']}: {problem['detail']}")
    decision = data.get("decision") or {}
    if decision.get("action") == "noop" and decision.get("target"):
        warn(f"already stored as {decision['target']} ({decision.get('reason', 'repeat')})")
