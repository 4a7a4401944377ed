"""Every frontmatter value is bounded before it is converted (issue 21): a number's text, a text's
length, a list's items, a mapping's keys, the nesting; a file beyond them is InvalidMemory, one line."""

from __future__ import annotations

import pytest

from memctl.core.fileformat import MAX_DEPTH, MAX_ITEMS, MAX_NUMBER_CHARS, MAX_STRING_CHARS, load_fields, parse_memory
from memctl.errors import InvalidMemory

HEAD = "---\nid: 1234abcd\ntype: fact\nuser: alice\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n"


def memory(extra: str) -> str:
    return HEAD + extra + "\n---\nAlice likes tea.\n"


@pytest.mark.parametrize(("extra", "problem"), [
    ("importance: " + "9" * 5000, "a number of 5000 characters"),  # int() itself refuses over 4,300 digits
    ("confidence: 0." + "9" * 200, "a number of 202 characters"),
    ("odd: -" + "1" * 4301, "a number of 4302 characters"),
    ("fields: {amount: " + "1" * 500 + "}", "a number of 500 characters"),
    ("odd: !!int '" + "7" * 200 + "'", "a number of 200 characters"),  # an explicit tag, quoted digits
    ("description: " + "x" * (MAX_STRING_CHARS + 1), f"a text of {MAX_STRING_CHARS + 1} characters"),
    ("tags: [" + ", ".join(["t"] * (MAX_ITEMS + 1)) + "]", f"a list of {MAX_ITEMS + 1} items"),
    ("odd: {" + ", ".join(f"k{i}: 1" for i in range(MAX_ITEMS + 1)) + "}", f"a mapping of {MAX_ITEMS + 1} items"),
    ("x: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested deeper"),
])
def test_a_value_over_the_limits_is_refused_in_one_line(extra: str, problem: str) -> None:
    with pytest.raises(InvalidMemory) as refused:
        parse_memory(memory(extra), "users/alice/x.md")
    message = str(refused.value)
    assert message.startswith("users/alice/x.md: ") and problem in message and "\n" not in message, message
    if "nested" not in problem:
        assert "frontmatter value over the limits at line 7" in message
    with pytest.raises(InvalidMemory):
        load_fields(memory(extra).split("---\n")[1], "users/alice/x.md")  # the Claude Code layout's reader


@pytest.mark.parametrize("extra", ["importance: 0.5", "odd: " + "9" * MAX_NUMBER_CHARS, "fields: {amount: 1234567.89}",
                                   "description: " + "x" * MAX_STRING_CHARS,
                                   "tags: [" + ", ".join(["t"] * MAX_ITEMS) + "]"])
def test_values_within_the_limits_are_read(extra: str) -> None:
    assert parse_memory(memory(extra), "x.md").body == "Alice likes tea."


def test_a_huge_number_in_memctl_toml_or_a_kind_file_is_one_line() -> None:
    from memctl.config import parse_config
    from memctl.errors import ConfigError
    from memctl.store.kinds import parse_tables

    with pytest.raises(ConfigError, match=r"memctl\.toml: not valid TOML"):
        parse_config("[gate]\nmax_length = " + "9" * 5000 + "\n")
    declared, errors = parse_tables("[trip]\nsize = " + "9" * 5000 + "\n", "schemas/trip.toml")
    assert declared == [] and len(errors) == 1 and errors[0].startswith("schemas/trip.toml:1: not valid TOML")
