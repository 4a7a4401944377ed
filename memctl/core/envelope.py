"""The output contract: every answer (CLI --json, HTTP) is one versioned JSON envelope.

No pydantic import here: a CLI call forwarded to a warm server prints envelopes without loading it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing takes ~6 ms to import; a command forwarded to a warm server runs without it
    from typing import Any, Iterable


ENVELOPE_VERSION = 1


def to_jsonable(value: Any) -> Any:
    """Models and containers to plain JSON values (memories as their public view, times as text)."""
    if hasattr(value, "model_dump"):  # a pydantic model, recognised without importing pydantic
        return to_jsonable(value.to_public() if hasattr(value, "to_public") else value.model_dump(mode="json"))
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "isoformat"):
        from memctl.clock import format_timestamp

        return format_timestamp(value)
    return value


def envelope(command: str, ok: bool, data: Any = None, errors: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    """`{"version", "command", "ok", "data", "errors": [{"code", "message"}]}`."""
    return {"version": ENVELOPE_VERSION, "command": command, "ok": ok,
            "data": to_jsonable(data) if data is not None else None, "errors": list(errors)}
