"""A write's read-back (fileformat.parse_rendered, libyaml) says what parse_memory says of the same
text, for any memory: the same Memory, or the same one-line refusal."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memctl.core.fileformat import (
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_STRING_CHARS,
    parse_memory,
    parse_rendered,
    serialise_memory,
)
from memctl.core.models import Memory
from memctl.errors import InvalidMemory

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200)
VALUES = st.recursive(st.one_of(st.text(max_size=30), st.integers(-10**6, 10**6), st.booleans(), st.none()),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                      max_leaves=8)


def _memory(body: str = "Alice likes tea.", **fields: Any) -> Memory:
    return Memory(id="3f9a1c2e", type="fact", user="alice", created=WHEN, updated=WHEN, body=body, **fields)


def _same(memory: Memory, path: str = "users/alice/x.md") -> None:
    text = serialise_memory(memory)
    try:
        expected: Memory | str = parse_memory(text, path)
    except InvalidMemory as exc:
        expected = exc.message
    try:
        got: Memory | str = parse_rendered(text, memory, path)
    except InvalidMemory as exc:
        got = exc.message
    if isinstance(expected, Memory) and isinstance(got, Memory):
        assert got.model_dump() == expected.model_dump()
    else:
        assert got == expected


@settings(max_examples=200, deadline=None)
@given(body=TEXT, extra=st.dictionaries(st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
                                         .filter(lambda k: k not in Memory.model_fields), VALUES, max_size=3),
       tags=st.lists(st.text(max_size=12), max_size=3))
def test_any_memory_reads_back_as_parse_memory_reads_it(body: str, extra: dict, tags: list) -> None:
    try:
        memory = _memory(body, extra=extra, tags=tags)
    except ValueError:
        return
    _same(memory)


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


SHARED = ["a", "b"]


@pytest.mark.parametrize("fields", [
    {"tags": [f"t{i}" for i in range(MAX_ITEMS + 1)]},
    {"description": "x" * (MAX_STRING_CHARS + 1)},
    {"extra": {"deep": _deep(MAX_DEPTH + 1)}},
    {"extra": {"deep": _deep(MAX_DEPTH - 2)}},
    {"extra": {"one": SHARED, "two": SHARED}},  # one list twice: the dumper writes an anchor and an alias
    {"extra": {"big": 10**150}},
    {"body": "a\n<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n"},
    {"body": "a\n---\nb: c\n---\n"},
    {"extra": {"odd": "line\u2028break\x85 and \ufeff"}},
])
def test_a_memory_over_the_limits_is_refused_as_parse_memory_refuses_it(fields: dict) -> None:
    _same(_memory(**fields))


def test_a_plain_memory_is_read_back_by_libyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast reading is the one taken for a memory within the limits (parse_memory is not asked)."""
    from memctl.core import fileformat

    if not fileformat._LIBYAML:
        pytest.skip("PyYAML without libyaml: parse_memory reads every text back")
    memory = _memory(tags=["a", "b"], conflicts_with=["0123abcd", "4567cdef"], extra={"note": {"k": [1, 2]}})
    expected = parse_memory(serialise_memory(memory))
    monkeypatch.setattr(fileformat, "parse_memory", lambda *a, **k: pytest.fail("parse_memory was asked"))
    assert parse_rendered(serialise_memory(memory), memory).model_dump() == expected.model_dump()
