"""Absolute dates written in text: "2 April 2026", "April 2, 2026", "2026-04-02", "2026/4/2",
"4/2/2026", "12.01.2026", "2026年4月2日", "3月10日" (the year from context), "3-7 February", "the 26th".

One function reads them all, `read_dates(text, today)`, for every caller that needs the days a text
names (the `occurred` of a new memory, the fields of a typed fact, the compaction guard). A date
written without its year takes it from the text (an earlier date's year, 去年/明年), else from
`today`: the next such day on or after it, or, when the sentence speaks of the past ("paid",
"was", 了), the last one before it (within half a year). Numbers that only look like dates
(3/4 cup, version 10.12, 16:9, INV-2024-001, room 12-04, a year alone, "in March") are not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, timedelta

from memctl.core.patterns import lazy_pattern

MAX_TEXT = 20_000  # a memory is a paragraph; nothing longer is scanned
_MONTHS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10,
           "nov": 11, "dec": 12}
_M = (r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
      r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)")
_ORD = r"(?:st|nd|rd|th)?"
_TO = r"\s*(?:-|–|—|to|until|till|through|thru)\s*"
_ZN = r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})"
_ZH_TO = r"\s*(?:到|至|-|~|～|—|–)\s*"
_SOURCE = "|".join([
    # 3-7 February (2026), from 3 to 10 June
    rf"\b(?P<a_d1>\d{{1,2}}){_ORD}{_TO}(?P<a_d2>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<a_m>{_M})\b\.?(?:,?\s+(?P<a_y>\d{{4}})\b)?",
    # June 23-27 (2026)
    rf"\b(?P<b_m>{_M})\b\.?\s+(?P<b_d1>\d{{1,2}}){_ORD}{_TO}(?P<b_d2>\d{{1,2}}){_ORD}\b(?!\s*(?:am|pm|[ap]\.m\.|:))"
    rf"(?:,?\s+(?P<b_y>\d{{4}})\b)?",
    # 2 April 2026, 19 October, 4th of July
    rf"\b(?P<c_d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<c_m>{_M})\b\.?(?:,?\s+(?P<c_y>\d{{4}})\b)?",
    # April 2, 2026, Sept 1st, Jan 2
    rf"\b(?P<d_m>{_M})\b\.?\s+(?:the\s+)?(?P<d_d>\d{{1,2}}){_ORD}\b(?![:.]\d)(?:,?\s+(?P<d_y>\d{{4}})\b)?",
    # 2026-04-02
    r"(?<![0-9A-Za-z./-])(?P<e_y>\d{4})-(?P<e_m>\d{1,2})-(?P<e_d>\d{1,2})(?![0-9A-Za-z-]|[.:]\d)",
    # 2026/4/2, 2026.2.14
    r"(?<![0-9A-Za-z./-])(?P<f_y>\d{4})(?P<f_s>[/.])(?P<f_m>\d{1,2})(?P=f_s)(?P<f_d>\d{1,2})(?![0-9A-Za-z/]|[.:]\d)",
    # 12.01.2026 (day first, as dotted dates are written)
    r"(?<![0-9A-Za-z./-])(?P<k_d>\d{1,2})\.(?P<k_m>\d{1,2})\.(?P<k_y>\d{4})(?![0-9A-Za-z]|[.:]\d)",
    # 4/2/2026 (month first unless the first number cannot be a month)
    r"(?<![0-9A-Za-z./-])(?P<g_a>\d{1,2})/(?P<g_b>\d{1,2})/(?P<g_y>\d{4})(?![0-9A-Za-z/])",
    # 3/20 (only where it reads as a day: see bare_day_ok)
    r"(?<![0-9A-Za-z./:-])(?P<h_a>\d{1,2})/(?P<h_b>\d{1,2})(?![0-9/]|[.:]\d)",
    # (on) the 26th: the month of the date before it
    r"\bthe\s+(?P<i_d>\d{1,2})(?:st|nd|rd|th)\b",
    # 2026年4月2日, 去年12月20号, 十二月二十五日, 4月4日至6日
    rf"(?<![0-9])(?:(?P<j_y>\d{{4}})\s*年\s*|(?P<j_rel>去年|今年|明年|前年|后年))?(?P<j_m>{_ZN})\s*月\s*(?P<j_d>{_ZN})\s*[日号]"
    rf"(?:{_ZH_TO}(?P<j_d2>{_ZN})\s*[日号])?",
])
_PATTERN = lazy_pattern(_SOURCE, re.IGNORECASE)
_CONNECTOR = lazy_pattern(r"\s*(?:-|–|—|~|～|to|until|till|through|thru|到|至)\s*(?:the\s+)?", re.IGNORECASE)
_BARE_CUE = lazy_pattern(r"(?:\b(?:on|by|until|till|before|after|from|due|is|are|was|to|thru|through|date|deadline"
                         r"|expires?|expiry|exp|starts?|begins?|ends?|runs?|live|since)"
                         r"|[:(,]|[在到至从改是])\s*$", re.IGNORECASE)
# A plural noun after a number says what it counts ("08/10 tests", "07/09 items"); not a function word.
_COUNTED = lazy_pattern(r"\s+(?!(?:is|was|has|as|its|this|thus|us|yes|plus|less|unless|always|perhaps)\b)[a-z]{2,}s\b")
_SENTENCE = lazy_pattern(r"[;；。!！?？\n]")
_PAST_EN = lazy_pattern(r"\b(?:was|were|had|did|paid|bought|spent|went|got|came|arrived|landed|left|started|began|"
                        r"finished|signed|ordered|received|happened|visited|met|returned|flew|drove|ago|last|"
                        r"yesterday|already)\b", re.IGNORECASE)
_PAST_ZH = lazy_pattern(r"了|已经|已|刚|曾|上次|当时|那时|[下订买付交办签花]的")
_ZH_DIGITS = "一二三四五六七八九"
_REL_YEARS = {"前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}
PAST_WINDOW = timedelta(days=183)  # "paid on 3 March" written in December is this year's March, not next year's


@dataclass(frozen=True)
class DateMention:
    """One absolute date in a text: where it is written, the day it names, and whether the text gave
    its year (False: taken from context). `range_end` marks the second day of "3-7 June"."""

    start: int
    end: int
    text: str
    day: date
    year_given: bool
    range_end: bool = False


@dataclass(frozen=True)
class _Raw:
    start: int
    end: int
    text: str
    month: int
    day: int
    year: int | None
    rel_year: int | None = None
    range_end: bool = False


def zh_number(text: str) -> int:
    """`12` or a Chinese numeral up to 三十一 (十二, 二十五)."""
    if text.isdigit():
        return int(text)
    if "十" not in text:
        return _ZH_DIGITS.index(text) + 1 if len(text) == 1 and text in _ZH_DIGITS else 0
    tens, _, ones = text.partition("十")
    high = 1 if not tens else (_ZH_DIGITS.index(tens) + 1 if tens in _ZH_DIGITS else 0)
    low = 0 if not ones else (_ZH_DIGITS.index(ones) + 1 if len(ones) == 1 and ones in _ZH_DIGITS else -100)
    return high * 10 + low if high and low >= 0 else 0


def _month(word: str) -> int:
    return _MONTHS[word.lower()[:3]]


def _int(value: str | None) -> int | None:
    return int(value) if value else None


def bare_day_ok(text: str, start: int, end: int) -> bool:
    """`3/20` (written at text[start:end]) is a day when a date word comes before it (by 3/20, on 3/6,
    expires 4/27, deadline 6/30), Chinese follows it (6/1儿童节) or a number is written with a leading
    zero (04/18: no fraction is); `3/4 cup`, `1/2 tsp` and a score of 10/12 are not, nor a count of
    things with a leading zero (`passed 08/10 tests`: a plural noun after it says what it counts)."""
    if _BARE_CUE().search(text[max(0, start - 12):start]):
        return True
    if re.match(r"0\d|\d{1,2}/0\d", text[start:end]):
        return not _COUNTED().match(text, end)
    return bool(re.match(r"\s?[\u4e00-\u9fff]", text[end:end + 2]))


def _raws(text: str, match: re.Match[str]) -> list[_Raw]:
    """The dates one match writes (two for a range), unresolved."""
    g, s, e, t = match.groupdict(), match.start(), match.end(), match.group(0)
    if g["a_d1"]:
        m, y = _month(g["a_m"]), _int(g["a_y"])
        return [_Raw(s, e, t, m, int(g["a_d1"]), y), _Raw(s, e, t, m, int(g["a_d2"]), y, range_end=True)]
    if g["b_m"]:
        m, y = _month(g["b_m"]), _int(g["b_y"])
        return [_Raw(s, e, t, m, int(g["b_d1"]), y), _Raw(s, e, t, m, int(g["b_d2"]), y, range_end=True)]
    if g["c_m"]:
        return [] if g["c_m"] == "may" else [_Raw(s, e, t, _month(g["c_m"]), int(g["c_d"]), _int(g["c_y"]))]
    if g["d_m"]:
        return [] if g["d_m"] == "may" else [_Raw(s, e, t, _month(g["d_m"]), int(g["d_d"]), _int(g["d_y"]))]
    if g["e_y"]:
        return [_Raw(s, e, t, int(g["e_m"]), int(g["e_d"]), int(g["e_y"]))]
    if g["f_y"]:
        return [_Raw(s, e, t, int(g["f_m"]), int(g["f_d"]), int(g["f_y"]))]
    if g["k_d"]:
        return [_Raw(s, e, t, int(g["k_m"]), int(g["k_d"]), int(g["k_y"]))]
    if g["g_a"]:
        a, b = int(g["g_a"]), int(g["g_b"])
        month, day = (b, a) if a > 12 else (a, b)
        return [_Raw(s, e, t, month, day, int(g["g_y"]))]
    if g["h_a"]:
        a, b = int(g["h_a"]), int(g["h_b"])
        month, day = (b, a) if a > 12 else (a, b)
        return [_Raw(s, e, t, month, day, None)] if bare_day_ok(match.string, s, e) else []
    if g["i_d"]:
        return [_Raw(s, e, t, 0, int(g["i_d"]), None)]  # month 0: the previous date's
    rel = _REL_YEARS.get(g["j_rel"] or "")
    m, y = zh_number(g["j_m"]), _int(g["j_y"])
    out = [_Raw(s, e, t, m, zh_number(g["j_d"]), y, rel)]
    if g["j_d2"]:
        out.append(_Raw(s, e, t, m, zh_number(g["j_d2"]), y, rel, range_end=True))
    return out


def _valid(year: int, month: int, day: int) -> date | None:
    if not 1 <= month <= 12 or not 1 <= day <= 31 or not 1900 <= year <= 2199:
        return None
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _speaks_of_past(text: str, position: int) -> bool:
    """Whether the sentence around `position` is about the past ("paid on", "was", 了)."""
    starts = [m.end() for m in _SENTENCE().finditer(text, 0, position)]
    begin = starts[-1] if starts else 0
    found = _SENTENCE().search(text, position)
    sentence = text[begin:found.start() if found else len(text)]
    return bool(_PAST_EN().search(sentence) or _PAST_ZH().search(sentence))


def _yearless(raw: _Raw, text: str, today: date, before: DateMention | None) -> date | None:
    """The day of a date written without a year: the year of the date before it in the text (a year
    later when that would go backwards), else the next such day from `today`, or the last one
    before it when the sentence is about the past."""
    if before is not None and before.year_given:
        day = _valid(before.day.year, raw.month, raw.day)
        if day is not None and day < before.day:
            day = _valid(before.day.year + 1, raw.month, raw.day)
        return day
    if before is not None and raw.range_end:
        day = _valid(before.day.year, raw.month, raw.day)
        return _valid(before.day.year + 1, raw.month, raw.day) if day is not None and day < before.day else day
    ahead = _valid(today.year, raw.month, raw.day) or _valid(today.year + 1, raw.month, raw.day)
    if ahead is not None and ahead < today:
        ahead = _valid(today.year + 1, raw.month, raw.day)
    back = _valid(today.year, raw.month, raw.day)
    if back is not None and back > today:
        back = _valid(today.year - 1, raw.month, raw.day)
    if back is not None and back != ahead and today - back <= PAST_WINDOW and _speaks_of_past(text, raw.start):
        return back
    return ahead


def _resolve(raw: _Raw, text: str, today: date, before: DateMention | None) -> DateMention | None:
    if raw.month == 0:  # "the 26th": the month (and year) of the date before it
        if before is None:
            return None
        day = _valid(before.day.year, before.day.month, raw.day)
        if day is not None and day < before.day:
            day = _valid(before.day.year + (before.day.month == 12), before.day.month % 12 + 1, raw.day)
        return DateMention(raw.start, raw.end, raw.text, day, before.year_given, raw.range_end) if day else None
    if raw.year is not None or raw.rel_year is not None:
        year = raw.year if raw.year is not None else today.year + (raw.rel_year or 0)
        day = _valid(year, raw.month, raw.day)
        return DateMention(raw.start, raw.end, raw.text, day, raw.year is not None, raw.range_end) if day else None
    resolved = _yearless(raw, text, today, before)
    return DateMention(raw.start, raw.end, raw.text, resolved, False, raw.range_end) if resolved else None


def read_dates(text: str, today: date) -> list[DateMention]:
    """Every absolute date `text` writes, in order, each resolved to a day (see the module's doc)."""
    text = text[:MAX_TEXT]
    out: list[DateMention] = []
    for match in _PATTERN().finditer(text):
        for raw in _raws(text, match):
            before = out[-1] if out else None
            mention = _resolve(raw, text, today, before)
            if mention is None:
                continue
            if before is not None and not mention.range_end and _CONNECTOR().fullmatch(text[before.end:mention.start]):
                mention = replace(mention, range_end=True)  # "June 23 to June 27", "4月4日到4月6日"
            out.append(mention)
    return out


def occurred_of(mentions: list[DateMention]) -> str | None:
    """The `occurred` value the first date a text writes gives: its day, or the range it opens."""
    if not mentions:
        return None
    first = mentions[0]
    second = mentions[1] if len(mentions) > 1 and mentions[1].range_end else None
    if second is not None and second.day > first.day:
        return f"{first.day.isoformat()}..{second.day.isoformat()}"
    return first.day.isoformat()
