"""JSON from untrusted input (import lines, model output, transcripts, requests), with bounded nesting."""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)  # each step eats a run or an escape: no backtracking
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


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
    """The deepest bracket nesting outside strings (brackets in strings don't count): the strings,
    then all but the brackets, are cut out by two linear patterns (an unclosed string runs to the
    end), so only the brackets are walked in Python."""
    data = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    if "[" not in data and "{" not in data:
        return 0
    depth = deepest = 0
    for ch in _NOT_BRACKET.sub("", _STRING.sub("", data)):
        depth += 1 if ch in "[{" else -1
        deepest = max(deepest, depth)
    return deepest
