"""Typed field values read from YAML-friendly text, compared exactly, written back canonically."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from memctl.core.schemas import parse_field_pairs, parse_schema, validate_fields
from memctl.core.typed import DateRange, Money, Quantity, canonical, coerce, infer
from memctl.errors import InvalidMemory, UsageError


@pytest.mark.parametrize("raw,kind,unit,expected", [
    ("2026-04-02", "date", None, date(2026, 4, 2)),
    (date(2026, 4, 2), "date", None, date(2026, 4, 2)),
    ("2026-03-10..2026-03-20", "range", None, DateRange(date(2026, 3, 10), date(2026, 3, 20))),
    ("2026-03", "range", None, DateRange(date(2026, 3, 1), date(2026, 3, 31))),
    ("120.50 EUR", "money", None, Money(Decimal("120.50"), "EUR")),
    ("EUR 120.50", "money", None, Money(Decimal("120.50"), "EUR")),
    ({"amount": 120.5, "currency": "eur"}, "money", None, Money(Decimal("120.5"), "EUR")),
    ("12", "money", "USD", Money(Decimal("12"), "USD")),
    ("30 km", "quantity", None, Quantity(Decimal("30"), "km")),
    (500, "quantity", "mg", Quantity(Decimal("500"), "mg")),
    ("jp", "country", None, "JP"),
    ("UK", "country", None, "GB"),
    ("yes", "bool", None, True),
    (False, "bool", None, False),
    ("  Tokyo ", "text", None, "Tokyo"),
    ("3.5", "number", None, Decimal("3.5")),
])
def test_values_read_as_their_type(raw, kind, unit, expected):
    assert coerce(raw, kind, unit) == expected


@pytest.mark.parametrize("raw,kind,unit,message", [
    ("2026-02-30", "date", None, "not a date"),
    ("next week", "date", None, "not a date"),
    ("120.50", "money", None, "currency code"),
    ("120 EUR", "money", "USD", "expected an amount in USD"),
    ("30 mi", "quantity", "km", "expected an amount in km"),
    ("Atlantis", "country", None, "not a country code"),
    ("maybe", "bool", None, "not true or false"),
    ("x" * 201, "text", None, "not a short text"),
    ("a\nb", "text", None, "not a short text"),
    ("NaN", "number", None, "not a number"),
    ("1e400", "number", None, "not a number"),
])
def test_values_that_do_not_read_say_why(raw, kind, unit, message):
    with pytest.raises(ValueError, match=message):
        coerce(raw, kind, unit)


def test_inferred_types_and_canonical_forms():
    assert infer("2026-04-02") == date(2026, 4, 2)
    assert infer("30 mph") == Quantity(Decimal("30"), "mph")  # lower-case units are not currencies
    assert infer("9.99 EUR") == Money(Decimal("9.99"), "EUR")
    assert infer("hello there") == "hello there"
    assert [canonical(v) for v in (date(2026, 4, 2), Money(Decimal("120.50"), "EUR"), Decimal("3"), True,
                                   DateRange(date(2026, 3, 1), date(2026, 3, 9)))] == \
        ["2026-04-02", "120.50 EUR", 3, True, "2026-03-01..2026-03-09"]


def test_fields_validated_against_a_schema_in_canonical_order():
    schemas = {"passport": parse_schema("passport", {"fields": {"country": {"type": "country", "required": True},
                                                                 "expires": "date"}})}
    assert validate_fields(schemas, "passport", {"expires": "2026-04-02", "country": "us"}) == \
        {"country": "US", "expires": "2026-04-02"}
    with pytest.raises(InvalidMemory, match="passport needs the field 'country'"):
        validate_fields(schemas, "passport", {"expires": "2026-04-02"})
    assert parse_field_pairs(["a=1", "b = x=y"]) == {"a": "1", "b": "x=y"}
    with pytest.raises(UsageError):
        parse_field_pairs(["novalue"])


@pytest.mark.parametrize("raw,message", [
    ({"fields": {"In": "date"}}, "invalid field name 'In'"),
    ({"fields": {"within": "date"}}, "invalid field name 'within'"),
    ({"fields": {"a": "date"}, "identity": ["b"]}, "identity names fields the kind does not have"),
    ({"fields": {"a": "date"}, "colour": "red"}, "colour: Extra inputs"),
])
def test_bad_schemas(raw, message):
    with pytest.raises(ValueError, match=message):
        parse_schema("k", raw)


def test_a_kind_lists_the_words_that_name_it_per_language_within_bounds() -> None:
    from memctl.core.schemas import MAX_WORDS, parse_schema

    schema = parse_schema("boat", {"fields": {"name": "text"}, "words": {"en": [" boat ", "sailboat"], "zh": ["船"]}})
    assert schema.words == {"en": ["boat", "sailboat"], "zh": ["船"]}
    for words, problem in (({"english": ["boat"]}, "language code"), ({"en": ["x"] * (MAX_WORDS + 1)}, "at most"),
                           ({"en": ["two\nlines"]}, "one line"), ({"en": ["x" * 41]}, "one line")):
        with pytest.raises(ValueError, match=problem):
            parse_schema("boat", {"fields": {"name": "text"}, "words": words})
