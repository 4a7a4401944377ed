"""Fusion and final scores (memctl.policy.rank): pure tables of inputs and expected outputs."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memctl.config import RecallSettings
from memctl.policy.rank import final_score, fuse, min_max, order_conflicts, relative_to_best

W = RecallSettings()


@pytest.mark.parametrize("run, expected", [
    ([], {}),
    ([("a", 4.0), ("b", 2.0), ("c", 1.0)], {"a": 1.0, "b": 0.5, "c": 0.25}),
    ([("a", 3.0)], {"a": 1.0}),
    ([("a", 0.0), ("b", 0.0)], {"a": 1.0, "b": 1.0}),
])
def test_relative_to_best(run: list, expected: dict) -> None:
    assert relative_to_best(run) == pytest.approx(expected)


@pytest.mark.parametrize("run, expected", [
    ([], {}),
    ([("a", 0.7), ("b", 0.5), ("c", 0.3)], {"a": 1.0, "b": 0.5, "c": 0.0}),
    ([("a", 0.2), ("b", -0.2)], {"a": 1.0, "b": 0.0}),
    ([("a", 0.4), ("b", 0.4)], {"a": 1.0, "b": 1.0}),
])
def test_min_max(run: list, expected: dict) -> None:
    assert min_max(run) == pytest.approx(expected)


@pytest.mark.parametrize("keyword, semantic, weights, order", [
    # one retriever alone: its own order
    ([("a", 5.0), ("b", 3.0)], [], W, ["a", "b"]),
    ([], [("b", 0.8), ("a", 0.6)], W, ["b", "a"]),
    # agreement beats a single strong vote (a and c then tie at 0.5: id order)
    ([("a", 5.0), ("b", 4.9)], [("b", 0.8), ("c", 0.81), ("a", 0.3)], W, ["b", "a", "c"]),
    # score fusion keeps margins: a huge keyword lead outweighs a small cosine lead
    ([("a", 10.0), ("b", 1.0)], [("b", 0.61), ("a", 0.60), ("c", 0.2)], W, ["a", "b", "c"]),
    # semantic weight 0: keyword order only, memories only the embedding found are dropped
    ([("a", 1.0), ("b", 2.0)], [("c", 0.9)], RecallSettings(semantic_weight=0.0), ["b", "a"]),
    # ties broken by id, so output is deterministic
    ([("b", 1.0), ("a", 1.0)], [], W, ["a", "b"]),
])
def test_fuse_order(keyword: list, semantic: list, weights: RecallSettings, order: list) -> None:
    assert [s.id for s in fuse(keyword, semantic, weights)] == order


def test_fuse_empty() -> None:
    assert fuse([], [], W) == []


@pytest.mark.parametrize("weights, expected", [
    (RecallSettings(keyword_weight=1.0, semantic_weight=1.0), 0.5 * 0.5 + 0.5 * 1.0),
    (RecallSettings(keyword_weight=1.0, semantic_weight=2.0), (1 * 0.5 + 2 * 1.0) / 3),
    (RecallSettings(keyword_weight=1.0, semantic_weight=0.0), 0.5),
])
def test_score_fusion_is_weighted_mean_of_normalised_scores(weights: RecallSettings, expected: float) -> None:
    fused = {s.id: s for s in fuse([("a", 2.0), ("b", 1.0)], [("b", 0.9), ("a", 0.1)], weights)}
    assert fused["b"].similarity == pytest.approx(expected)


def test_fuse_similarity_in_unit_range_and_components() -> None:
    fused = fuse([("a", 7.5), ("b", 0.5)], [("b", 0.9), ("c", -0.3), ("a", 0.4)], W)
    assert all(0.0 <= s.similarity <= 1.0 for s in fused)
    a = next(s for s in fused if s.id == "a")
    assert a.components == {"keyword_rank": 1, "keyword_score": 7.5, "keyword_norm": 1.0,
                            "semantic_rank": 3, "semantic_score": 0.4, "semantic_norm": pytest.approx(0.583333)}
    c = next(s for s in fused if s.id == "c")
    assert "keyword_rank" not in c.components and c.similarity == 0.0


def test_first_in_both_scores_one() -> None:
    for fusion in ("score", "rrf"):
        top = fuse([("a", 3.0), ("b", 1.0)], [("a", 0.9), ("b", 0.2)], RecallSettings(fusion=fusion))[0]
        assert (top.id, top.similarity) == ("a", pytest.approx(1.0))


@pytest.mark.parametrize("keyword, semantic, expected", [
    # first in one ranking, second in the other: both score (1/61 + 1/62) / (2/61)
    ([("a", 9.0), ("b", 1.0)], [("b", 0.9), ("a", 0.1)], {"a": (1 / 61 + 1 / 62) / (2 / 61),
                                                          "b": (1 / 61 + 1 / 62) / (2 / 61)}),
    ([("a", 1.0)], [], {"a": 1.0}),
])
def test_rrf_option(keyword: list, semantic: list, expected: dict) -> None:
    fused = fuse(keyword, semantic, RecallSettings(fusion="rrf"))
    assert {s.id: s.similarity for s in fused} == pytest.approx(expected)
    assert all("rrf" in s.components for s in fused)


@pytest.mark.parametrize("similarity, confidence, scope, expected", [
    (1.0, 1.0, "session", 1.0),
    (0.0, 0.0, "user", 0.2 * 0.6),
    (0.5, 0.9, "project", 0.25 + 0.27 + 0.16),
    (0.5, 0.9, "unknown", 0.25 + 0.27 + 0.12),
])
def test_final_score(similarity: float, confidence: float, scope: str, expected: float) -> None:
    score, parts = final_score(similarity, confidence, scope, W)
    assert score == pytest.approx(expected)
    assert parts["final"] == pytest.approx(expected, abs=1e-6)


def test_final_score_recency_halves_per_half_life() -> None:
    now = datetime(2026, 1, 31, tzinfo=timezone.utc)
    weights = RecallSettings(recency_boost=0.1, recency_half_life_days=30.0)
    base, _ = final_score(0.5, 1.0, "user", W)
    score, parts = final_score(0.5, 1.0, "user", weights, now - timedelta(days=30), now)
    assert parts["recency"] == pytest.approx(0.5)
    assert score == pytest.approx(base + 0.05)


@pytest.mark.parametrize("ranked, newer_than, expected", [
    ([("old", 0.9), ("new", 0.8)], {"new": {"old"}}, ["new", "old"]),
    ([("new", 0.9), ("old", 0.8)], {"new": {"old"}}, ["new", "old"]),
    ([("old", 0.9), ("x", 0.85), ("new", 0.8)], {"new": {"old"}}, ["new", "old", "x"]),  # the older keeps its place
    ([("old", 0.9)], {"new": {"old"}}, ["old"]),
])
def test_order_conflicts(ranked: list, newer_than: dict, expected: list) -> None:
    assert [i for i, _ in order_conflicts(ranked, newer_than)] == expected
