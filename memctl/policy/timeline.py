"""Time-aware answers (pure): a query that asks when something last or first happened ("when did we
last discuss the budget?", "我第一次去北京是什么时候") is answered by date, not by wording.

`time_order` reads the query's cue words (English and Chinese) and says which way to order;
`order_by_date` then puts the hits that are clearly about the query (relevance at least the
on-topic line, and not merely of a kind the query names) in that order of their date, first:
`occurred` when the memory has one (the start of a range), else the day it was last updated.
"Before <a date>" orders what happened up to that day (a memory of that day may tell of the days
before it), newest first, ahead of the rest; a month or day the query says otherwise ("the latest
project in July 2023") is the period ordered: the hits of that period first. "Recently" alone is no cue: "what did Mel paint
recently?" asks about a time the question speaks from, not about the newest memory.
"""

from __future__ import annotations

import re
from typing import Literal, Sequence

from memctl.core.models import Hit

Order = Literal["newest", "oldest"]
_EN = r"(?<![A-Za-z])(?:{})(?![A-Za-z])"
NEWEST = re.compile(_EN.format("|".join((
    r"when (?:did|was|were|have|had) (?:\w+ ){0,3}last", r"last time", r"the last", r"latest", r"most recent(?:ly)?",
    r"newest"))), re.IGNORECASE)
OLDEST = re.compile(_EN.format("|".join((
    r"when (?:did|was|were|have|had) (?:\w+ ){0,3}first", r"first time", r"the first", r"earliest", r"oldest",
    r"originally", r"at first"))), re.IGNORECASE)
BEFORE = re.compile(_EN.format("before"), re.IGNORECASE)
# Chinese cue words are looked for as text (no pattern: a CJK pattern costs milliseconds to compile)
ZH_NEWEST = ("最近一次", "最后一次", "上一次", "上次", "最新", "最晚")
ZH_OLDEST = ("第一次", "头一次", "首次", "最早", "最初", "当初", "一开始")
ZH_BEFORE = ("之前", "以前")


def time_order(query: str) -> tuple[Order | None, str | None]:
    """Which way the query asks hits to be ordered by date (None: it does not), and the day a
    "before <date>" names (a full date or a month of a year), if any."""
    before = _before_day(query)
    if OLDEST.search(query) or any(w in query for w in ZH_OLDEST):
        return "oldest", before
    if NEWEST.search(query) or any(w in query for w in ZH_NEWEST) or before is not None:
        return "newest", before
    return None, None


def _before_day(query: str) -> str | None:
    """The day after "before" (English) or ahead of 之前/以前 (Chinese), when a year is written."""
    match = BEFORE.search(query)
    if match is not None:
        after = query[match.end():]
    else:
        at = min((i for i in (query.find(w) for w in ZH_BEFORE) if i >= 0), default=-1)
        if at < 0:
            return None
        after = query[:at]
    from memctl.policy.when import absolute_dates  # its patterns cost milliseconds to compile: only when asked

    dated = [value for _, value in absolute_dates(after) if value[:4].isdigit()]
    return dated[0] if dated else None


def time_window(query: str) -> str | None:
    """The month or day of a year a query says it asks about, other than a "before" day ("what did
    Mel paint in her latest project in July 2023" -> "2023-07"); None when it names none."""
    from memctl.policy.when import absolute_dates  # its patterns cost milliseconds to compile: only when asked

    before = _before_day(query)
    dated = [value for _, value in absolute_dates(query) if value[:4].isdigit() and value != before]
    return dated[0] if dated else None


def hit_date(hit: Hit) -> str | None:
    """The day a hit happened: its `occurred` (the first day of a range), else the day it was updated."""
    if hit.occurred:
        return hit.occurred.partition("..")[0]
    memory = hit.memory
    return memory.updated.date().isoformat() if memory is not None else None


def _up_to(day: str, before: str) -> bool:
    """Whether `day` is before a month (`2026-03`: not in it), or on or before a day."""
    return day <= before if len(before) == len("2026-03-01") else day[:len(before)] < before


def order_by_date(hits: Sequence[Hit], order: Order, line: float, before: str | None = None,
                  within: str | None = None) -> list[Hit]:
    """The hits clearly about the query (relevance at least `line`, or unknown; not lifted by a
    kind alone; dated before `before`, and in the period `within` ("2023-07"), when given) first, in
    `order` of their date; then the rest, in rank order. Each hit carries its date."""
    dated = [h.model_copy(update={"date": hit_date(h)}) for h in hits]
    group = [h for h in dated if h.date and not h.linked_to and (h.relevance is None or h.relevance >= line)
             and not h.components.get("kind") and (before is None or _up_to(h.date, before))
             and (within is None or h.date.startswith(within))]
    group.sort(key=lambda h: h.date or "", reverse=order == "newest")  # stable: ties keep rank order
    chosen = {h.id for h in group}
    return [*group, *(h for h in dated if h.id not in chosen)]
