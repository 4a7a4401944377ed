"""The condition language: parse errors with columns, type checks, evaluation (a table)."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from memctl.core.models import Memory
from memctl.core.schemas import parse_schema
from memctl.policy.conditions import Scope, compile_condition, holds, subject
from memctl.policy.expr import ParseError, parse

TRIP = parse_schema("trip", {"fields": {"departs": "date", "stay": "range", "international": "bool",
                                         "cost": "money", "distance": {"type": "quantity", "unit": "km"},
                                         "country": "country", "nights": "number"}})
SCOPE = Scope({"trip": TRIP}, "trip")
T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
MEMORY = Memory(id="0000000a", type="event", user="a", kind="trip", state="planned", created=T0, updated=T0,
                body="a trip", fields={"departs": "2025-03-10", "stay": "2025-03-10..2025-03-20", "international": True,
                                       "cost": "800 EUR", "distance": "9000 km", "country": "JP", "nights": 10})


@pytest.mark.parametrize("condition,expected", [
    ("departs in 2025", True), ("departs in 2024", False), ("departs in 2025-03", True), ("departs not in 2025", False),
    ("stay in 2025-03", True), ("departs within 30 days", True), ("departs within 2 weeks", False),
    ("international = true", True), ("international", True), ("not international", False),
    ("cost > 500 EUR", True), ("cost > 500 USD", False), ("distance >= 9000 km", True),
    ("country = 'jp'", True), ("country in ('US', 'JP')", True), ("nights + 2 = 12", True),
    ("departs - 2025-03-01 = 9 days", True), ("departs + 5 days = 2025-03-15", True),
    ("state = 'planned'", True), ("occurred is not set", True), ("nights is set and (nights < 5 or cost < 900 EUR)", True),
    ("departs >= today", True), ("departs < today - 30 days", False),
])
def test_evaluation(condition, expected):
    node = compile_condition(condition, SCOPE)
    assert holds(node, {"trip": subject(MEMORY, {"trip": TRIP})}, date(2025, 2, 20), "trip") is expected


@pytest.mark.parametrize("condition,message", [
    ("departs <", "expected a value or a field, found the end (column 10)"),
    ("departs in March", "expected a year (2025), a month (2025-03)"),
    ("departs = 2025-02-30", "not a date"),
    ("cost > 5", "cannot compare a money with a number"),
    ("country < 'JP'", "a country is only compared with = or !="),
    ("departs + departs", "cannot add a date to a date"),
    ("departs within 1.5 days", "a whole number of days"),
    ("price > 5 EUR", "trip has no field 'price'"),
    ("hotel.stars > 3", "unknown name 'hotel'"),
    ("len(departs)", "there are no functions"),
    ("trip.departs.year", "only kind.field is allowed"),
    ("_secret = 1", "names never start with _"),
    ("departs ; drop", "unexpected character ';'"),
    ("(" * 40 + "true" + ")" * 40, "nested deeper than 32"),
    ("x" * 1001, "at most 1000 characters"),
    ("", "empty condition"),
])
def test_errors_say_what_and_where(condition, message):
    with pytest.raises(ParseError) as err:
        compile_condition(condition, SCOPE)
    assert message in str(err.value)


def test_missing_fields_never_match():
    bare = Memory(id="0000000b", type="event", user="a", kind="trip", created=T0, updated=T0, body="b")
    env = {"trip": subject(bare, {"trip": TRIP})}
    for condition in ("departs < 2030-01-01", "departs >= 2000-01-01", "cost > 0 EUR", "international = false"):
        assert holds(compile_condition(condition, SCOPE), env, date(2025, 1, 1), "trip") is False


def test_a_hand_edited_value_that_does_not_read_is_left_out():
    broken = MEMORY.model_copy(update={"fields": {"departs": "soonish", "nights": 3}})
    env = {"trip": subject(broken, {"trip": TRIP})}
    assert holds(compile_condition("departs is not set and nights = 3", SCOPE), env, date(2025, 1, 1), "trip")
    assert parse("a.b = 1").column == 5


BIRTHDAY = parse_schema("birthday", {"fields": {"person": "text", "date": {"type": "date", "yearly": True}}})
ANA = Memory(id="0000000b", type="fact", user="a", kind="birthday", created=T0, updated=T0, body="Ana's birthday",
             fields={"person": "Ana", "date": "1990-03-03"})


@pytest.mark.parametrize("condition,today,expected", [
    ("departs within 99999999999 days", date(2025, 2, 20), True),  # past the last date there is: up to it
    ("departs within 9999999999999999999999 weeks", date(2025, 2, 20), True),
    ("departs within 1 days", date(9999, 12, 31), False),
])
def test_within_a_span_past_the_last_date_is_no_error(condition, today, expected):
    node = compile_condition(condition, SCOPE)
    assert holds(node, {"trip": subject(MEMORY, {"trip": TRIP})}, today, "trip") is expected


def test_a_yearly_date_with_no_anniversary_left_in_the_calendar_is_not_upcoming():
    scope = Scope({"birthday": BIRTHDAY}, "birthday")
    env = {"birthday": subject(ANA, {"birthday": BIRTHDAY})}
    assert holds(compile_condition("date within 30 days", scope), env, date(9999, 12, 31), "birthday") is False
    assert holds(compile_condition("date within 30 days", scope), env, date(9999, 2, 20), "birthday") is True
