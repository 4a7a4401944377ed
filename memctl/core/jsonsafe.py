"""JSON from untrusted input (import lines, model output, transcripts, requests), with bounded nesting."""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64


def loads(text: str | bytes) -> Any:
    """json.loads, but nesting deeper than MAX_DEPTH is a ValueError (Python's decoder would
    otherwise recurse until a RecursionError, or far enough to exhaust memory)."""
    if _depth(text) > MAX_DEPTH:
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
    return json.loads(text)


def too_deep(text: str | bytes) -> bool:
    """Whether JSON text nests deeper than MAX_DEPTH (what `loads` refuses), for a caller that
    hands the text to another parser (a protocol SDK, a web framework)."""
    return _depth(text) > MAX_DEPTH


def _depth(text: str | bytes) -> int:
    """The deepest bracket nesting outside strings (a linear scan; brackets in strings don't count)."""
    data = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    if "[" not in data and "{" not in data:
        return 0
    depth = deepest = 0
    in_string = escaped = False
    for ch in data:
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest
