"""Relative dates in text are read against the day the memory was written."""

from __future__ import annotations

from datetime import date

import pytest

from memctl.policy.when import relative_dates, resolve_occurred

TUESDAY = date(2026, 12, 1)


@pytest.mark.parametrize("text,occurred", [
    ("Dentist tomorrow at 10", "2026-12-02"),
    ("we met yesterday", "2026-11-30"),
    ("the day after tomorrow we fly", "2026-12-03"),
    ("Hank moved to Shanghai last month", "2026-11-01..2026-11-30"),
    ("trip next week", "2026-12-07..2026-12-13"),
    ("release this year", "2026-01-01..2026-12-31"),
    ("review next friday", "2026-12-11"),
    ("call back in 3 days", "2026-12-04"),
    ("visited two weeks ago", "2026-11-17"),
    ("renew in a month", "2027-01-01"),
    ("我明天去北京", "2026-12-02"),
    ("下个月搬家", "2027-01-01..2027-01-31"),
    ("下周三开会", "2026-12-09"),
    ("去年结婚", "2025-01-01..2025-12-31"),
    ("上周去了上海", "2026-11-23..2026-11-29"),
])
def test_phrases_resolve(text, occurred):
    assert resolve_occurred(text, TUESDAY)[0] == occurred


def test_a_bare_weekday_is_reported_unresolved():
    occurred, readings = resolve_occurred("Gina asked about rain on Monday", TUESDAY)
    assert occurred is None and [(r.phrase, r.occurred) for r in readings] == [("on Monday", None)]


def test_text_without_relative_dates_reads_nothing():
    assert relative_dates("Kim likes jazz; the flight is on 2026-03-02", TUESDAY) == []


def test_month_arithmetic_clamps_the_day():
    assert resolve_occurred("in a month", date(2026, 1, 31))[0] == "2026-02-28"


@pytest.mark.parametrize("text,dates", [
    ("My Visa expires 04/27.", [("04/27", "--04-27")]),  # a leading zero: no fraction is written so
    ("the flight departs on 04/18 at 7:05 am", [("04/18", "--04-18")]),
    ("Her birthday is 3/4.", [("3/4", "--03-04")]),
    ("Atlas goes live 3/15.", [("3/15", "--03-15")]),
    ("the deadline 6/30, then review", [("6/30", "--06-30")]),
    ("contract runs through 6/30/25", [("6/30/25", "2025-06-30")]),
    ("booked for 23/4/2026", [("23/4/2026", "2026-04-23")]),  # 23 is no month: day first
    ("due 30.06.2025", [("30.06.2025", "2025-06-30")]),  # dotted: day first
    ("the card is valid until 12/2026", [("12/2026", "2026-12")]),
    ("PTO runs 12/20 to 1/7", [("12/20", "--12-20"), ("1/7", "--01-07")]),
    ("4/5 入住", [("4/5", "--04-05")]),
    ("会议定在6/30 14:00", [("6/30", "--06-30")]),  # after 在: a day, whatever follows
])
def test_dates_written_in_digits_are_one_date_each(text: str, dates: list[tuple[str, str]]) -> None:
    from memctl.policy.when import absolute_dates

    assert absolute_dates(text) == dates


@pytest.mark.parametrize("text", ["add 3/4 cup of sugar", "final score 10/12", "open 24/7", "python 3.12.1",
                                  "a 1/2 tsp of salt", "Nadia passed 08/10 tests", "he scored 07/09 points"])
def test_fractions_scores_and_versions_are_no_dates(text: str) -> None:
    from memctl.policy.when import absolute_dates

    assert absolute_dates(text) == []


@pytest.mark.parametrize("text", ["due 31.02.2025", "due 4/31", "on 2025-02-29", "on 2月30日"])
def test_numbers_that_are_no_calendar_day_are_no_date(text: str) -> None:
    from memctl.policy.when import absolute_dates

    assert absolute_dates(text) == []
    assert absolute_dates(text.replace("31.02", "28.02").replace("4/31", "4/30").replace("2025-02-29", "2024-02-29")
                          .replace("2月30日", "2月28日"))  # the days that are
