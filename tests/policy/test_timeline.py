"""Time-aware answers: which way a query asks for dates, and the on-topic hits in that order."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memctl.core.models import Hit
from memctl.policy.timeline import order_by_date, time_order


@pytest.mark.parametrize("query, expected", [
    ("When did we last discuss the budget?", ("newest", None)),
    ("what's the latest on the kitchen renovation", ("newest", None)),
    ("the most recent dentist visit", ("newest", None)),
    ("What did Melanie paint recently?", (None, None)),
    ("When did I first meet Hank?", ("oldest", None)),
    ("the earliest note about the loan", ("oldest", None)),
    ("我们最近一次讨论预算是什么时候？", ("newest", None)),
    ("上次去医院是哪天", ("newest", None)),
    ("我第一次去北京是什么时候", ("oldest", None)),
    ("what did we decide before 2026-10-01", ("newest", "2026-10-01")),
    ("what did we agree on before March 2026", ("newest", "2026-03")),
    ("where does Hank live", (None, None)),
    ("Recommend a Thai restaurant", (None, None)),
    ("what did we do before lunch", (None, None)),  # no day named: nothing to order by
])
def test_time_order_reads_the_query(query: str, expected: tuple) -> None:
    assert time_order(query) == expected


def hit(i: str, occurred: str | None, relevance: float | None, **components: float) -> Hit:
    return Hit(id=i, path=None, type="event", scope="user", user="u", content=i, score=1.0, relevance=relevance,
               occurred=occurred, components=components)


def test_the_on_topic_hits_come_first_by_date_each_with_its_date() -> None:
    hits = [hit("sep", "2026-09-12", 0.96), hit("oct", "2026-10-20..2026-10-21", 0.74),
            hit("kind", "2026-11-01", 0.6, kind=1.0), hit("off", "2026-12-01", 0.2), hit("undated", None, 0.9)]
    got = order_by_date(hits, "newest", 0.55)
    assert [h.id for h in got] == ["oct", "sep", "kind", "off", "undated"]
    assert got[0].date == "2026-10-20"
    assert [h.id for h in order_by_date(hits, "oldest", 0.55)][:2] == ["sep", "oct"]
    assert [h.id for h in order_by_date(hits, "newest", 0.55, before="2026-10")][:1] == ["sep"]
    assert [h.id for h in order_by_date(hits, "newest", 0.55, before="2026-10-20")][:2] == ["oct", "sep"]  # that day too


def test_an_undated_hit_is_dated_by_its_last_update() -> None:
    from memctl.core.models import Memory

    when = datetime(2026, 8, 1, tzinfo=timezone.utc)
    memory = Memory(id="3f9a1c2e", type="fact", scope="user", user="u", created=when, updated=when, body="x")
    undated = hit("m1", None, 0.9).model_copy(update={"memory": memory})
    assert order_by_date([undated], "newest", 0.55)[0].date == "2026-08-01"


@pytest.mark.parametrize("query, window", [
    ("What did Mel and her kids paint in their latest project in July 2023?", "2023-07"),
    ("我2023年7月最近一次去医院是哪天", "2023-07"),
    ("what did we decide before 2026-10-01", None),  # the before day orders, it is no period
    ("the latest note about the loan", None), ("the last trip in May", None),  # a month of no year
])
def test_time_window_reads_the_period_a_query_asks_about(query: str, window: str | None) -> None:
    from memctl.policy.timeline import time_window

    assert time_window(query) == window


def test_the_hits_of_the_period_asked_about_come_first() -> None:
    hits = [hit("sep", "2026-09-12", 0.96), hit("jul-a", "2026-07-03", 0.9), hit("jul-b", "2026-07-20", 0.7),
            hit("aug", "2026-08-01", 0.8)]
    assert [h.id for h in order_by_date(hits, "newest", 0.55, within="2026-07")] == ["jul-b", "jul-a", "sep", "aug"]
