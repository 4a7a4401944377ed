"""A change said in other words (policy/decide.py _weak_conflict, statement.swaps_a_value): linked as a
possible conflict, never superseded; another predicate or another thing stays apart."""

from __future__ import annotations

import pytest

from memctl.policy.decide import Candidate, Neighbor, decide


def _linked(old: str, new: str, owner: str | None = None, cosine: float = 0.5) -> bool:
    decision = decide(Candidate(text=new, type="fact", owner=owner),
                      [Neighbor(id="m1", text=old, type="fact", cosine=cosine)])
    assert decision.action == "add"  # linked or added beside: never superseded on these signals
    return "m1" in decision.conflicts_with


@pytest.mark.parametrize("old, new", [
    ("Leo's guitar lesson is Mondays at 6 with Ms. Ruiz", "Guitar is Thursdays at 7 with Mr. Park"),
    ("Our sprint review is Tuesdays with Marta", "The sprint review is on Fridays now, with Joel"),
])
def test_a_weekly_day_swapped_is_a_new_value_not_another_occurrence(old: str, new: str) -> None:
    """"Mondays", "every Tuesday", 每周五: a day that comes back each week is the schedule's value."""
    assert _linked(old, new, "leo")


@pytest.mark.parametrize("old, new", [
    ("Our code freeze is on 10/15", "The launch is on 10/30"),
    ("My yoga class is on Tuesdays", "The yoga class costs $18 a session"),
    ("I swim at the lido on Mondays", "I play tennis with Ana on Thursdays"),
])
def test_another_predicate_stays_apart(old: str, new: str) -> None:
    assert not _linked(old, new)
