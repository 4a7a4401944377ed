"""Untrusted JSON with bounded nesting (memctl.core.jsonsafe): the depth is counted outside strings,
in time linear in the text, and a text nested too deep is a ValueError, never a RecursionError."""

from __future__ import annotations

import random
import time

import pytest

from memctl.core.jsonsafe import MAX_DEPTH, _depth, loads, too_deep


def walked(data: str) -> int:
    """The depth as a character-by-character walk counts it (what _depth must agree with)."""
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


def test_brackets_in_strings_and_escaped_quotes_do_not_count() -> None:
    assert _depth('{"a": "[[[{{{", "b": "\\"[[", "c": [1]}') == 2
    assert _depth('"unclosed [[[[') == 0 and _depth(b'[["\\\\"], []]') == 2 and _depth("plain") == 0


def test_the_depth_agrees_with_a_walk_of_every_character() -> None:
    rng = random.Random(7)
    for _ in range(20_000):
        text = "".join(rng.choice('[]{}"\\ a,:1é') for _ in range(rng.randint(0, 24)))
        assert _depth(text) == walked(text) and _depth(text.encode()) == walked(text)


def test_too_deep_is_a_value_error() -> None:
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(ValueError, match="nested deeper"):
        loads("[" * 20_000 + "]" * 20_000)
    assert too_deep('{"a": ' * 65 + "1" + "}" * 65)


@pytest.mark.parametrize("unit", ['"\\', '\\"', '"', "[", "{\"a\":", '"\\\\', "é"])
def test_hostile_text_is_counted_in_linear_time(unit: str) -> None:
    text = unit * 200_000
    start = time.perf_counter()
    _depth(text)
    assert time.perf_counter() - start < 2.0
