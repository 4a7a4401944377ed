"""Absolute dates in text: every written form, the year from context, and numbers that are not dates."""

from __future__ import annotations

from datetime import date

import pytest

from memctl.core.textdates import occurred_of, read_dates, zh_number

TODAY = date(2026, 1, 10)


@pytest.mark.parametrize("text, today, days", [
    ("My US passport expires on 2 April 2026", TODAY, ["2026-04-02"]),
    ("The visa runs out April 2, 2026.", TODAY, ["2026-04-02"]),
    ("Renewal filed 2026-04-02", TODAY, ["2026-04-02"]),
    ("体检 2026/4/2 上午", TODAY, ["2026-04-02"]),
    ("Lease signed 4/2/2026", TODAY, ["2026-04-02"]),
    ("Booked for 23/4/2026", TODAY, ["2026-04-23"]),
    ("2026.4.2开会", TODAY, ["2026-04-02"]),
    ("Invoice dated 12.01.2026", TODAY, ["2026-01-12"]),
    ("我的护照2026年4月2日到期", TODAY, ["2026-04-02"]),
    ("3月10日飞东京", TODAY, ["2026-03-10"]),  # the year from context: the next 10 March
    ("3月10日飞东京", date(2026, 5, 1), ["2027-03-10"]),
    ("十一月三日交报告", TODAY, ["2026-11-03"]),
    ("二十一日", TODAY, []),  # a day alone is not a date
    ("Conference 3-7 February, then home", TODAY, ["2026-02-03", "2026-02-07"]),
    ("We stay from 12 to 19 July 2027", TODAY, ["2027-07-12", "2027-07-19"]),
    ("August 3-5", TODAY, ["2026-08-03", "2026-08-05"]),
    ("She arrives Friday 6 March and leaves on the 9th", TODAY, ["2026-03-06", "2026-03-09"]),
    ("From 2025年12月28日 to 1月4日", date(2025, 12, 1), ["2025-12-28", "2026-01-04"]),
    ("Release 2.0 on March 3, 2026; the patch on March 17", TODAY, ["2026-03-03", "2026-03-17"]),
    ("去年11月5号买的", TODAY, ["2025-11-05"]),
    ("明年2月1日搬家", TODAY, ["2027-02-01"]),
    ("I paid the plumber on 28 December", TODAY, ["2025-12-28"]),  # the past: the last 28 December
    ("The plumber comes on 28 December", TODAY, ["2026-12-28"]),
    ("12月30日已经付了", TODAY, ["2025-12-30"]),
    ("Sept 1st is a holiday; Jan 9th too", TODAY, ["2026-09-01", "2027-01-09"]),
    ("due by 3/20, review by 4/2.", TODAY, ["2026-03-20", "2026-04-02"]),
    ("6/1出发", TODAY, ["2026-06-01"]),
])
def test_reads_absolute_dates(text: str, today: date, days: list[str]) -> None:
    assert [m.day.isoformat() for m in read_dates(text, today)] == days


@pytest.mark.parametrize("text", [
    "Mix 2/3 cup of flour with 1/4 tsp of salt",
    "Upgrade to version 10.12 or macOS 14.5",
    "Invoice INV-2025-014 and order 2025-0311-02",
    "Room 12-04, score 3-1, ratio 16:9, lap 1:02.345",
    "Final score 10/12 after extra time",
    "Phone 555-0199, 138 0013 4567, ISBN 978-7-5442-9114-0",
    "A 2024 Camry, bought in 2023, sold in March",
    "每月15号还款，气温12-18度，血压130/85",
    "The 2024-25 season at 40.7128, -74.0060",
    "you may 2 of them",  # lower-case "may" is the verb
])
def test_numbers_that_are_not_dates(text: str) -> None:
    assert read_dates(text, TODAY) == []


def test_a_year_written_is_kept_and_one_taken_from_context_is_marked() -> None:
    given, inferred = read_dates("Born 4 July 1941; party on 9 March", TODAY)
    assert (given.day, given.year_given) == (date(1941, 7, 4), True)
    assert inferred.year_given is False


def test_occurred_is_the_first_date_or_the_range_it_opens() -> None:
    assert occurred_of(read_dates("Trip 3-7 February to Oslo", TODAY)) == "2026-02-03..2026-02-07"
    assert occurred_of(read_dates("Check-in 2026-02-03, check-out 2026-02-07", TODAY)) == "2026-02-03"
    assert occurred_of(read_dates("from 2026-02-03 to 2026-02-07", TODAY)) == "2026-02-03..2026-02-07"
    assert occurred_of(read_dates("nothing dated", TODAY)) is None


def test_long_text_is_bounded() -> None:
    text = "x" * 30_000 + " 2 April 2026"
    assert read_dates(text, TODAY) == []
    assert zh_number("二十五") == 25 and zh_number("十") == 10 and zh_number("十二") == 12 and zh_number("七") == 7
