"""The occurred field: a day, a month, a year or a range, in one canonical form."""

from __future__ import annotations

from datetime import date

import pytest

from memctl.core.dates import normalise_occurred, occurred_bounds
from memctl.core.models import Memory
from memctl.errors import UsageError


@pytest.mark.parametrize("value,canonical", [
    ("2026-03-02", "2026-03-02"), (date(2026, 3, 2), "2026-03-02"), ("2026-03", "2026-03-01..2026-03-31"),
    ("2024-02", "2024-02-01..2024-02-29"), ("2026", "2026-01-01..2026-12-31"),
    ("2026-03-02..2026-03-09", "2026-03-02..2026-03-09"), ("2026-03-02..2026-03-02", "2026-03-02"),
    ("2026-03-02T10:00:00Z", "2026-03-02"),
])
def test_canonical_forms(value, canonical):
    assert normalise_occurred(value) == canonical


@pytest.mark.parametrize("value", ["2026-13-01", "March 2", "2026-03-09..2026-03-02", "", "2026-03-02..x"])
def test_bad_dates_are_usage_errors(value):
    with pytest.raises(UsageError):
        normalise_occurred(value)


def test_bounds_cover_whole_days():
    assert occurred_bounds("2026-03-02..2026-03-09") == ("2026-03-02T00:00:00Z", "2026-03-09T23:59:59Z")


def test_a_memory_validates_its_new_fields():
    base = {"id": "abcdef12", "type": "event", "user": "u", "created": "2026-01-01T00:00:00Z",
            "updated": "2026-01-01T00:00:00Z", "body": "trip"}
    m = Memory.model_validate({**base, "occurred": "2026-03", "state": "planned", "part_of": "0123abcd",
                               "valid_until": "2026-04-01"})
    assert m.frontmatter()["occurred"] == "2026-03-01..2026-03-31"
    assert m.frontmatter()["valid_until"] == "2026-04-01T00:00:00Z"
    for bad in ({"occurred": "soon"}, {"part_of": "../x"}, {"state": "a\nb"}):
        with pytest.raises(ValueError):
            Memory.model_validate({**base, **bad})


@pytest.mark.parametrize("value", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:00:00-05:00"])
def test_a_time_outside_the_years_in_utc_is_a_usage_error(value):
    """`--now` or `--since` of such a time is one line (OverflowError, a traceback, before)."""
    from memctl.clock import parse_timestamp

    with pytest.raises(UsageError):
        parse_timestamp(value)


def test_a_ttl_past_the_year_9999_is_a_usage_error():
    from datetime import datetime, timezone

    from memctl.clock import after

    with pytest.raises(UsageError):
        after(datetime(9990, 1, 1, tzinfo=timezone.utc), "36500d")
    assert after(datetime(2026, 1, 1, tzinfo=timezone.utc), "1d").day == 2
