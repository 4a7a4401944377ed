"""Statements read as attribute and value (policy/triple.py), in English and Chinese."""

from __future__ import annotations

import pytest

from memctl.policy.triple import read_triple


@pytest.mark.parametrize("text, owner, attribute, value", [
    ("Max's license plate is 7XYZ123", "max", "my license plate", "7XYZ123"),
    ("Dr. Huang is my dentist", None, "my dentist", "Dr. Huang"),
    ("I drive a Honda Civic", None, "I drive", "a Honda Civic"),
    ("I'm allergic to penicillin", None, "I am allergic to", "penicillin"),
    ("Offsite location: Nashville", None, "Offsite location", "Nashville"),
    ("我的车位是B1-032", None, "我的车位是", "B1-032"),
    ("宇航开小鹏P7", None, "宇航开小鹏P7", "宇航开小鹏P7"),
])
def test_a_statement_reads_as_attribute_and_value(text: str, owner: str | None, attribute: str, value: str) -> None:
    triple = read_triple(text, owner)
    assert (triple.attribute, triple.value) == (attribute, value)


def test_a_time_is_not_read_as_a_colon() -> None:
    assert read_triple("Bob's standup is at 9:30").value == "at 9:30"
