"""Relative dates in a memory's text ("tomorrow", "next week", "上个月"), resolved against a day.

memctl never leaves a relative date silently relative: a write whose text says "tomorrow" gets an
absolute `occurred` (unless one is given), and the write reports how it read the phrase. Phrases
whose day cannot be told ("on Monday": last or next?) are reported as left unresolved.
"""

from __future__ import annotations

import re
from calendar import monthrange
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from memctl.core.dates import month_span, span, week_span
from memctl.core.textdates import bare_day_ok

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
ZH_WEEKDAYS = "一二三四五六日"
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3}
_COUNT = r"(\d{1,3}|a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
_UNIT = r"(day|week|month|year)s?"
_DAYS = {"day before yesterday": -2, "day after tomorrow": 2, "yesterday": -1, "last night": -1,
         "tonight": 0, "today": 0, "this morning": 0, "this afternoon": 0, "this evening": 0, "tomorrow": 1}
_ZH_DAYS = {"大前天": -3, "前天": -2, "昨天": -1, "昨晚": -1, "今天": 0, "今晚": 0, "明天": 1, "后天": 2, "大后天": 3}
_ZH_SHIFT = {"上": -1, "下": 1, "这": 0, "本": 0, "这个": 0, "上个": -1, "下个": 1}

EN_PATTERN = re.compile(
    r"\b(?:the )?(?P<day>day before yesterday|day after tomorrow|yesterday|last night|tonight|today|"
    r"this (?:morning|afternoon|evening)|tomorrow)\b"
    r"|\b(?P<rel>next|last|this) (?P<period>week|month|year|" + "|".join(WEEKDAYS) + r")\b"
    r"|\bin " + _COUNT + r" " + _UNIT + r"\b"
    r"|\b" + _COUNT.replace("(", "(?P<agocount>", 1) + r" " + _UNIT.replace("(", "(?P<agounit>", 1) + r" ago\b"
    r"|\b(?:on )?(?P<weekday>" + "|".join(WEEKDAYS) + r")\b",
    re.IGNORECASE)
ZH_PATTERN = re.compile(
    r"(?P<zhday>大前天|前天|昨天|昨晚|今天|今晚|大后天|明天|后天)"
    r"|(?P<zhshift>上个|下个|这个|上|下|这|本)(?P<zhperiod>周|星期|礼拜|月)(?P<zhweekday>[一二三四五六日天])?"
    r"|(?P<zhyear>去年|今年|明年)")


@dataclass(frozen=True)
class Reading:
    """How one relative phrase was read: the phrase and the `occurred` value (None: unresolved)."""

    phrase: str
    occurred: str | None


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word.lower()]


def _shift(day: date, amount: int, unit: str) -> date:
    unit = unit.lower()
    if unit in ("day", "week"):
        return day + timedelta(days=amount * (7 if unit == "week" else 1))
    start, _ = month_span(day, amount * (12 if unit == "year" else 1))
    return start.replace(day=min(day.day, month_span(start, 0)[1].day))


def _relative(day: date, rel: str, period: str) -> str:
    """"next week", "last month", "this year", "next friday"."""
    offset = {"next": 1, "last": -1, "this": 0}[rel.lower()]
    period = period.lower()
    if period == "week":
        return span(*week_span(day, offset))
    if period == "month":
        return span(*month_span(day, offset))
    if period == "year":
        return span(date(day.year + offset, 1, 1), date(day.year + offset, 12, 31))
    monday, _ = week_span(day, offset)
    return (monday + timedelta(days=WEEKDAYS.index(period))).isoformat()


def _english(match: re.Match[str], day: date) -> str | None:
    groups = match.groupdict()
    if groups["day"]:
        return (day + timedelta(days=_DAYS[groups["day"].lower()])).isoformat()
    if groups["rel"]:
        return _relative(day, groups["rel"], groups["period"])
    if groups["agocount"]:
        return _shift(day, -_count(groups["agocount"]), groups["agounit"]).isoformat()
    if groups["weekday"]:
        return None  # last Monday or next Monday? the text does not say
    count, unit = match.group(4), match.group(5)
    return _shift(day, _count(count), unit).isoformat()


def _chinese(match: re.Match[str], day: date) -> str:
    groups = match.groupdict()
    if groups["zhday"]:
        return (day + timedelta(days=_ZH_DAYS[groups["zhday"]])).isoformat()
    if groups["zhyear"]:
        year = day.year + {"去年": -1, "今年": 0, "明年": 1}[groups["zhyear"]]
        return span(date(year, 1, 1), date(year, 12, 31))
    offset = _ZH_SHIFT[groups["zhshift"]]
    if groups["zhperiod"] == "月":
        return span(*month_span(day, offset))
    monday, sunday = week_span(day, offset)
    if groups["zhweekday"]:
        return (monday + timedelta(days="一二三四五六日天".index(groups["zhweekday"]) % 7)).isoformat()
    return span(monday, sunday)


def relative_dates(text: str, today: date) -> list[Reading]:
    """Every relative date phrase in `text`, in order, with how it reads on `today`."""
    found = [(m.start(), Reading(m.group(0).strip(), _english(m, today))) for m in EN_PATTERN.finditer(text)]
    found += [(m.start(), Reading(m.group(0), _chinese(m, today))) for m in ZH_PATTERN.finditer(text)]
    return [reading for _, reading in sorted(found, key=lambda pair: pair[0])]


def resolve_occurred(text: str, today: date) -> tuple[str | None, list[Reading]]:
    """The `occurred` value the text's first resolvable relative phrase gives, and every reading."""
    readings = relative_dates(text, today)
    resolved = next((r.occurred for r in readings if r.occurred), None)
    return resolved, readings


# -- absolute dates ------------------------------------------------------------------------------
# Read so that two texts naming the same day compare equal however it is written ("2 April 2026",
# "April 2, 2026", "2026-04-02", "2026/4/2", "2026年4月2日"); a day with no year reads "--04-02".
# Part of the text's values: the compaction guard never merges memories naming different days.
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
_MON = r"(?P<{0}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|" \
       r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
ABSOLUTE_PATTERN = re.compile(
    r"\b(?P<iy>\d{4})[-/.](?P<im>\d{1,2})[-/.](?P<id>\d{1,2})\b"
    r"|(?<![0-9A-Za-z./:-])(?P<sa>\d{1,2})/(?P<sb>\d{1,2})/(?P<sy>\d{4}|\d{2})(?![0-9A-Za-z/]|[.:]\d)"
    r"|(?<![0-9A-Za-z./:-])(?P<ed>\d{1,2})\.(?P<em>\d{1,2})\.(?P<ey>\d{4})(?![0-9A-Za-z]|[.:]\d)"
    r"|(?<![0-9A-Za-z./:-])(?P<ym>\d{1,2})/(?P<yy>\d{4})(?![0-9A-Za-z/]|[.:]\d)"
    r"|(?<![0-9A-Za-z./:-])(?P<ba>\d{1,2})/(?P<bb>\d{1,2})(?![0-9/]|[.:]\d)"
    r"|(?:(?P<zy>\d{4})\s*年\s*)?(?P<zm>\d{1,2})\s*月\s*(?:(?P<zd>\d{1,2})\s*[日号])?"
    r"|\b(?P<dd>\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+" + _MON.format("dm") + r"(?:,?\s+(?P<dy>\d{4}))?\b"
    r"|\b" + _MON.format("md") + r"\s+(?P<mdd>\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(?P<mdy>\d{4}))?"
    r"|\b" + _MON.format("mo") + r"(?:\s+(?P<moy>\d{4}))?\b",
    re.IGNORECASE)


def _month_number(word: str) -> int:
    return next(n for n, name in enumerate(MONTHS, start=1) if name.startswith(word.lower().rstrip(".")[:3]))


def _day_value(year: str | None, month: int, day: str | None) -> str | None:
    """`YYYY-MM-DD`, `--MM-DD`, `YYYY-MM` or `--MM`; None when the numbers are no calendar day (31.02.2025,
    4/31; 29 February only in a leap year or with none)."""
    if not 1 <= month <= 12 or (day is not None and not 1 <= int(day) <= monthrange(int(year or 2000), month)[1]):
        return None
    head = year or "-"
    return f"{head}-{month:02d}" + (f"-{int(day):02d}" if day else "")


def _month_first(a: str, b: str) -> tuple[int, str]:
    """The month and the day of `a/b`: month first, as written in English, unless `a` cannot be a month."""
    return (int(b), a) if int(a) > 12 else (int(a), b)


def _numeric_value(g: dict[str, str | None], text: str, m: re.Match[str]) -> str | None:
    """A date written in digits: 4/27/2026 and 6/30/25 (month first), 30.06.2025 (day first), 12/2026 (a
    month), or 04/18 and 3/20 where they read as a day (`bare_day_ok`: not 3/4 cup or a score of 10/12)."""
    if g["sa"] and g["sb"] and g["sy"]:
        month, day = _month_first(g["sa"], g["sb"])
        return _day_value(g["sy"] if len(g["sy"]) == 4 else f"20{g['sy']}", month, day)
    if g["ed"] and g["em"] and g["ey"]:
        return _day_value(g["ey"], int(g["em"]), g["ed"])
    if g["ym"] and g["yy"]:
        return _day_value(g["yy"], int(g["ym"]), None)
    if g["ba"] and g["bb"] and bare_day_ok(text, m.start(), m.end()):
        return _day_value(None, *_month_first(g["ba"], g["bb"]))
    return None


def absolute_dates(text: str) -> list[tuple[str, str]]:
    """(phrase, value) of every absolute date written in `text`, in order (see above for the forms).

    "May" or "March" alone is read as a month only when capitalised (the verbs "may", "march" are not)."""
    return list(_absolute_dates(text))


@lru_cache(maxsize=16384)  # a pure reading of the text: the write decision reads the same neighbours add after add
def _absolute_dates(text: str) -> tuple[tuple[str, str], ...]:
    out = []
    for m in ABSOLUTE_PATTERN.finditer(text):
        g = m.groupdict()
        if g["iy"]:
            value = _day_value(g["iy"], int(g["im"]), g["id"])
        elif g["sa"] or g["ed"] or g["ym"] or g["ba"]:
            value = _numeric_value(g, text, m)
        elif g["zm"]:
            value = _day_value(g["zy"], int(g["zm"]), g["zd"])
        elif g["dm"]:
            value = _day_value(g["dy"], _month_number(g["dm"]), g["dd"])
        elif g["md"]:
            value = _day_value(g["mdy"], _month_number(g["md"]), g["mdd"])
        elif g["mo"][0].isupper() or g["mo"].lower().rstrip(".") not in ("may", "mar", "march"):
            value = _day_value(g["moy"], _month_number(g["mo"]), None)
        else:
            value = None
        if value:
            out.append((m.group(0).strip(), value))
    return tuple(out)
