"""Statements read as attribute and value (policy/triple.py), in English and Chinese."""

from __future__ import annotations

import pytest

from memctl.policy.triple import read_triple
from tests.policy.linear import finishes


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


def test_hostile_runs_are_read_in_linear_time() -> None:
    """Owner words with no copula, blank runs, copulas with no 'my' after them and a line break: the
    possessed and inverted shapes tried each owner word or blank against the rest of the text
    (16,000 characters of 'my ' took seconds, 100,000 far over the bound)."""
    assert finishes(
        "from memctl.policy import triple\n"
        "for text in ('my ' * 40000, 'Her ' * 30000, 'x' + ' ' * 120000 + 'y', 'my x' + ' is' * 40000 + '\\ny',\n"
        "             'x' + ' is my a' * 15000 + '\\ny'):\n"
        "    for pattern in (triple._POSSESSED, triple._INVERTED):\n"
        "        pattern.match(text)\n"
        "    assert triple.read_triple(text + ' is done').attribute\n")


def test_a_long_statement_is_read_in_its_opening() -> None:
    text = "My favourite walk is the coast path " + "and then the long way back " * 60
    triple = read_triple(text)
    assert triple.attribute == "My favourite walk" and len(triple.value) < 1000 and triple.value.startswith("the coast")
