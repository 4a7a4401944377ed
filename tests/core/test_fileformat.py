"""The file format: parsing, validation errors, canonical and byte-stable serialisation."""

from __future__ import annotations

import pytest

from memctl.core.fileformat import parse_memory, serialise_memory
from memctl.errors import InvalidMemory

CANONICAL = """---
id: 3f9a1c2e
type: preference
scope: user
user: alice
confidence: 0.9
source: user
status: active
created: 2026-11-30T08:00:00Z
updated: 2026-11-30T08:00:00Z
tags: [travel, 旅行]
key: travel.seat
favourite_colour: teal
reviewed_on: 2026-01-01
nested:
  a: [1, 2]
---
Alice prefers window seats on flights.
"""


def test_round_trip_is_byte_identical() -> None:
    memory = parse_memory(CANONICAL)
    assert serialise_memory(memory) == CANONICAL
    assert serialise_memory(parse_memory(serialise_memory(memory))) == CANONICAL


def test_unknown_keys_are_kept_verbatim_in_order() -> None:
    memory = parse_memory(CANONICAL)
    assert list(memory.extra) == ["favourite_colour", "reviewed_on", "nested"]
    assert memory.extra["reviewed_on"] == "2026-01-01"  # dates stay text, never reformatted
    assert memory.extra["nested"] == {"a": [1, 2]}


def test_known_fields_are_typed() -> None:
    memory = parse_memory(CANONICAL)
    assert memory.confidence == 0.9 and memory.tags == ["travel", "旅行"]
    assert memory.created.isoformat() == "2026-11-30T08:00:00+00:00"
    assert memory.owner == "users/alice"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("no frontmatter here\n", "no YAML frontmatter"),
        ("---\nid: [unclosed\n---\nbody\n", "malformed YAML"),
        ("---\n- a\n- b\n---\nbody\n", "not a mapping"),
        ("---\ntype: fact\nscope: user\nuser: a\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nx\n", "missing required field 'id'"),
        ("---\nid: 3f9a1c2e\nscope: user\nuser: a\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nx\n", "missing required field 'type'"),
        ("---\nid: 3f9a1c2e\ntype: fact\nscope: user\nuser: a\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\n\n", "no content"),
        ("---\nid: ../etc\ntype: fact\nscope: user\nuser: a\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nx\n", "invalid id"),
        ("---\nid: 3f9a1c2e\ntype: fact\nscope: user\nuser: ../root\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nx\n", "invalid user name"),
        ("---\nid: 3f9a1c2e\ntype: fact\nscope: user\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nx\n", "needs a user"),
        ("---\nid: 3f9a1c2e\ntype: fact\nscope: user\nuser: a\nconfidence: 7\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nx\n", "confidence"),
        ("---\nid: 3f9a1c2e\ntype: fact\nscope: user\nuser: a\ncreated: yesterday\nupdated: 2026-01-01T00:00:00Z\n---\nx\n", "created"),
        # a time whose UTC falls before year 1 or after 9999 (OverflowError, a traceback, before)
        ("---\nid: 3f9a1c2e\ntype: fact\nscope: user\nuser: a\ncreated: 0001-01-01T00:00:00+05:00\nupdated: 2026-01-01T00:00:00Z\n---\nx\n", "created"),
        ("---\nid: 3f9a1c2e\ntype: fact\nscope: user\nuser: a\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\nexpires: 9999-12-31T23:00:00-05:00\n---\nx\n", "expires"),
    ],
)
def test_invalid_files_give_one_line_errors(text: str, needle: str) -> None:
    with pytest.raises(InvalidMemory) as info:
        parse_memory(text, "users/a/x.md")
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_a_year_before_1000_round_trips() -> None:
    """A year of fewer than four digits is written with four ('0001-01-01'), as it was read: written
    as '1-01-01' it did not read back, and compact, dedupe and every add then failed on it."""
    text = CANONICAL.replace("updated: 2026-11-30T08:00:00Z\n", "updated: 2026-11-30T08:00:00Z\nexpires: 0001-01-01\n")
    memory = parse_memory(text)
    written = serialise_memory(memory)
    assert "expires: 0001-01-01T00:00:00Z" in written
    assert parse_memory(written) == memory


def test_chinese_content_round_trips() -> None:
    text = CANONICAL.replace("Alice prefers window seats on flights.", "喜欢喝绿茶，不加糖。")
    assert serialise_memory(parse_memory(text)) == text
