"""Importance score: decay, grace period, explicit importance, uniqueness."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memctl.core.models import Memory
from memctl.policy.importance import Usage, importance, importance_breakdown, is_pinned, uniqueness

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
HALF = 30.0


def mem(age_days: float = 100, confidence: float = 1.0, explicit: float | None = None, **kw: object) -> Memory:
    created = NOW - timedelta(days=age_days)
    return Memory(id="a1b2c3d4", type="fact", user="alice", body="Alice likes tea.", created=created,
                  updated=created, confidence=confidence, importance=explicit, **kw)


def used(days_ago: float, count: int = 1) -> Usage:
    return Usage(count=count, last_used=NOW - timedelta(days=days_ago))


def parts(memory: Memory, usage: Usage | None, similarity: float = 0.0) -> dict[str, float]:
    return importance_breakdown(memory, usage, now=NOW, half_life_days=HALF, max_similarity=similarity)


@pytest.mark.parametrize(("days_ago", "expected"), [
    (0, 1.0), (HALF, 0.5), (2 * HALF, 0.25), (3 * HALF, 0.125), (HALF / 2, 2 ** -0.5),
])
def test_recency_halves_every_half_life(days_ago: float, expected: float) -> None:
    assert parts(mem(), used(days_ago))["recency"] == pytest.approx(expected, abs=1e-12)


def test_use_one_half_life_ago_contributes_exactly_half() -> None:
    today = parts(mem(), used(0, count=0))
    half = parts(mem(), used(HALF, count=0))
    assert half["use"] == pytest.approx(today["use"] / 2, abs=1e-12)
    floor = 0.2 * today["confidence"]
    assert half["score"] - floor == pytest.approx((today["score"] - floor) / 2, abs=1e-12)


@pytest.mark.parametrize(("age", "expected_recency"), [
    (0, 1.0), (10, 1.0), (HALF, 1.0), (2 * HALF, 0.5), (3 * HALF, 0.25),
])
def test_never_used_memories_get_a_grace_period(age: float, expected_recency: float) -> None:
    assert parts(mem(age_days=age), None)["recency"] == pytest.approx(expected_recency)


@pytest.mark.parametrize("confidence", [0.5, 0.7, 1.0])
def test_new_memory_is_above_the_default_threshold(confidence: float) -> None:
    fresh = mem(age_days=1, confidence=confidence)
    assert importance(fresh, None, now=NOW, half_life_days=HALF, max_similarity=1.0) > 0.15


@pytest.mark.parametrize(("count", "expected"), [(0, 0.0), (3, 0.5), (9, 0.75), (-2, 0.0)])
def test_frequency_saturates(count: int, expected: float) -> None:
    assert parts(mem(), Usage(count=count))["frequency"] == pytest.approx(expected)


def test_confident_unique_facts_survive_without_use() -> None:
    # Old and never recalled: a confident unique fact stays, a doubtful or redundant one decays out.
    assert parts(mem(age_days=900, confidence=0.9), None)["score"] >= 0.15
    assert parts(mem(age_days=900, confidence=0.5), None)["score"] < 0.15
    assert parts(mem(age_days=900, confidence=0.9), None, similarity=0.97)["score"] < 0.15


def test_more_use_and_more_confidence_raise_the_score() -> None:
    base = parts(mem(confidence=0.5), used(10, count=1))["score"]
    assert parts(mem(confidence=0.5), used(10, count=10))["score"] > base
    assert parts(mem(confidence=0.9), used(10, count=1))["score"] > base
    assert parts(mem(confidence=0.5), used(1, count=1))["score"] > base


def test_learned_formula() -> None:
    p = parts(mem(confidence=0.6), used(HALF, count=3), similarity=0.75)
    expected = (0.2 * 0.6 + 0.8 * (0.7 * 0.5 + 0.3 * 0.5) * (0.5 + 0.5 * 0.6)) * 0.75
    assert p["learned"] == pytest.approx(expected)
    assert p["score"] == pytest.approx(expected)


@pytest.mark.parametrize(("similarity", "expected"), [
    (0.0, 1.0), (0.3, 1.0), (0.5, 1.0), (0.75, 0.75), (0.9, 0.6), (1.0, 0.5), (1.2, 0.5), (-0.4, 1.0),
])
def test_uniqueness(similarity: float, expected: float) -> None:
    assert uniqueness(similarity) == pytest.approx(expected)


def test_near_duplicate_penalty_lowers_the_score() -> None:
    memory, usage = mem(), used(5, count=2)
    unique = parts(memory, usage, similarity=0.2)["score"]
    copy = parts(memory, usage, similarity=0.98)["score"]
    assert copy < unique
    assert copy == pytest.approx(unique * uniqueness(0.98))


@pytest.mark.parametrize("usage", [None, used(1000), used(0, count=50)])
@pytest.mark.parametrize("similarity", [0.0, 1.0])
def test_pinned_is_always_one(usage: Usage | None, similarity: float) -> None:
    pinned = mem(age_days=2000, confidence=0.0, explicit=1.0)
    assert is_pinned(pinned)
    assert parts(pinned, usage, similarity)["score"] == 1.0
    assert parts(pinned, usage, similarity)["pinned"] == 1.0


@pytest.mark.parametrize(("explicit", "usage", "low", "high"), [
    (0.9, None, 0.72, 0.92),  # old and unused, but declared important
    (0.05, used(0, count=50), 0.04, 0.24),  # heavily used, but declared unimportant
    (0.0, None, 0.0, 0.05),
])
def test_explicit_importance_dominates(explicit: float, usage: Usage | None, low: float, high: float) -> None:
    p = parts(mem(age_days=500, explicit=explicit), usage)
    assert low <= p["score"] <= high
    assert p["score"] == pytest.approx(0.8 * explicit + 0.2 * p["learned"])
    assert p["explicit"] == explicit and p["pinned"] == 0.0


def test_breakdown_keys_and_bounds() -> None:
    p = parts(mem(), used(3, count=4), similarity=0.6)
    assert set(p) == {"recency", "frequency", "confidence", "uniqueness", "use", "learned", "pinned", "score"}
    assert all(0.0 <= v <= 1.0 for v in p.values())
    assert importance(mem(), used(3, count=4), now=NOW, half_life_days=HALF, max_similarity=0.6) == p["score"]


def test_naive_and_future_times_are_safe() -> None:
    naive_now = NOW.replace(tzinfo=None)
    assert importance(mem(age_days=-5), None, now=naive_now, half_life_days=HALF) > 0
    future_use = Usage(count=1, last_used=NOW + timedelta(days=2))
    assert parts(mem(), future_use)["recency"] == 1.0
