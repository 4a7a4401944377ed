"""Calendar dates of events: the `occurred` field (a day or a range of days) and its bounds."""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

from memctl.errors import UsageError

RANGE_SEP = ".."
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_MONTH = re.compile(r"(\d{4})-(\d{2})")
_YEAR = re.compile(r"\d{4}")


def _day(text: str, end: bool) -> date:
    """One bound: YYYY-MM-DD, a month YYYY-MM or a year YYYY (its first or last day), or an ISO time."""
    text = text.strip()
    try:
        if _DAY.fullmatch(text):
            return date.fromisoformat(text)
        if month := _MONTH.fullmatch(text):
            year, number = int(month.group(1)), int(month.group(2))
            return date(year, number, calendar.monthrange(year, number)[1] if end else 1)
        if _YEAR.fullmatch(text):
            return date(int(text), 12, 31) if end else date(int(text), 1, 1)
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        pass
    raise UsageError(f"not a date or date range (use 2026-03-02, 2026-03 or 2026-03-02..2026-03-09): {text!r}",
                     code="bad_date")


def normalise_occurred(value: object) -> str:
    """The canonical form of an `occurred` value: `YYYY-MM-DD` or `YYYY-MM-DD..YYYY-MM-DD`."""
    text = value.isoformat() if isinstance(value, (date, datetime)) else str(value)
    first, _, last = text.partition(RANGE_SEP)
    start, end = _day(first, end=False), _day(last or first, end=True)
    if end < start:
        raise UsageError(f"a date range must not end before it starts: {text!r}", code="bad_date")
    return start.isoformat() if start == end else f"{start.isoformat()}{RANGE_SEP}{end.isoformat()}"


def occurred_bounds(value: str) -> tuple[str, str]:
    """First and last second of an `occurred` value, in the file's timestamp form (for comparisons)."""
    first, _, last = value.partition(RANGE_SEP)
    return f"{first}T00:00:00Z", f"{last or first}T23:59:59Z"


def span(start: date, end: date) -> str:
    """An `occurred` value from two days."""
    return normalise_occurred(f"{start.isoformat()}{RANGE_SEP}{end.isoformat()}")


def month_span(day: date, months: int) -> tuple[date, date]:
    """The calendar month `months` away from `day`'s month."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, 1), date(year, month + 1, calendar.monthrange(year, month + 1)[1])


def week_span(day: date, weeks: int) -> tuple[date, date]:
    """The Monday-to-Sunday week `weeks` away from `day`'s week."""
    monday = day - timedelta(days=day.weekday()) + timedelta(weeks=weeks)
    return monday, monday + timedelta(days=6)
