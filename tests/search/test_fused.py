"""The second model's vectors are filled lazily (search/fused.py): until they cover every memory,
recall fuses nothing from it and answers exactly as `second_model = "none"` does; once they are
filled (a bounded amount per recall, a warm process's background thread, `reindex --full`) the
fused output returns."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from memctl.api import MemoryStore
from memctl.config import parse_config
from memctl.search import fused

TOPICS = ["espresso in Lisbon", "the payment service deploy", "a peanut allergy", "the Kyoto hotel",
          "the chess club on Tuesdays", "a flight to Oslo", "the garden tomatoes", "the piano lessons"]
QUERIES = ["who drinks espresso", "when does the payment service deploy", "allergic to peanuts"]


def _store(root: Path, second: str) -> MemoryStore:
    text = (root / "memctl.toml").read_text()
    text = text.replace('second_model = "auto"', f'second_model = "{second}"')
    return MemoryStore(root, config=parse_config(text))


def _recalls(store: MemoryStore) -> list[dict[str, Any]]:
    return [store.recall(q, k=5, min_relevance=0.0, record_usage=False).to_data(explain=True) for q in QUERIES]


def _fused(outputs: list[dict[str, Any]]) -> bool:
    return all("semantic2_score" in hit["explain"] for out in outputs for hit in out["hits"])


FILL = 4  # what a recall fills here (FILL_PER_COMMAND, made small so a few memories outnumber it)
MEMORIES = len(QUERIES) * FILL + FILL  # one round of QUERIES leaves FILL to fill, the next recall fills them


@pytest.fixture
def lazy_dir(memdir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """More memories than one round of recalls fills, built as `memctl reindex` builds (the primary
    model only)."""
    monkeypatch.setattr(fused, "FILL_PER_COMMAND", FILL)
    store = _store(memdir, fused_name())
    for n in range(MEMORIES):
        store.add_raw(f"Note {n}: Ann talked about {TOPICS[n % len(TOPICS)]} on day {n}", type="fact", user="ann")
    assert store.reindex()["pending"] == MEMORIES
    return memdir


def fused_name() -> str:
    from memctl.search.embedders import MULTILINGUAL_MODEL

    return MULTILINGUAL_MODEL  # the hashing embedder in tests, a second engine with its own vector cache


def test_recall_equals_the_none_configuration_until_the_second_model_covers_every_memory(lazy_dir: Path) -> None:
    alone = _recalls(_store(lazy_dir, "none"))
    lazy = _store(lazy_dir, fused_name())
    assert _recalls(lazy) == alone  # each recall embedded FILL of them: still not all
    assert lazy.search.pending() == FILL  # type: ignore[attr-defined]
    filled = _recalls(lazy)  # the rest fit in the first recall's fill: fused
    assert lazy.search.pending() == 0 and _fused(filled) and filled != alone  # type: ignore[attr-defined]

    shutil.rmtree(lazy.repo.cache / "vectors-second")  # the second model's cache gone: the primary alone again
    fresh = _store(lazy_dir, fused_name())
    assert _recalls(fresh) == alone and fresh.search.pending() == FILL  # type: ignore[attr-defined]
    fresh.search.fill()  # type: ignore[attr-defined]
    assert _recalls(fresh) == filled


def test_a_new_memory_is_embedded_by_the_next_recall_and_fused(lazy_dir: Path) -> None:
    store = _store(lazy_dir, fused_name())
    store.reindex(full=True)
    assert store.search.pending() == 0  # type: ignore[attr-defined]
    store.add_raw("Ann moved to Porto in spring", type="fact", user="ann")
    assert store.search.pending() == 1  # type: ignore[attr-defined]
    assert _fused(_recalls(store))


def test_a_covered_second_model_is_checked_again_when_its_vectors_or_the_memories_change(lazy_dir: Path) -> None:
    store = _store(lazy_dir, fused_name())
    store.search.fill()  # type: ignore[attr-defined]
    second: Any = store.search.second  # type: ignore[attr-defined]
    assert second.vector_gap() == 0 and second.vector_gap() == 0  # the second answer is the memo's
    second.vectors.remove([second.vectors.ids[0]])  # the same snapshot, one vector fewer
    assert second.vector_gap() == 1
    assert second.fill_vectors(10) == 0  # embeds it again
    store.add_raw("Ann moved to Porto in spring", type="fact", user="ann")  # a new snapshot
    assert second.vector_gap() == 1


def test_a_warm_process_fills_the_second_model_in_the_background(lazy_dir: Path) -> None:
    alone = _recalls(_store(lazy_dir, "none"))
    warm = _store(lazy_dir, fused_name())
    warm.warm_up()
    search: Any = warm.search
    assert search._filler is not None
    search._filler.join(timeout=120)
    assert search.pending() == 0
    out = _recalls(warm)
    assert _fused(out) and out != alone
    warm.flush()
    assert _store(lazy_dir, fused_name()).search.pending() == 0  # type: ignore[attr-defined]  # saved for the next process


def test_a_cache_claiming_more_than_its_rows_loads_empty(lazy_dir: Path) -> None:
    store = _store(lazy_dir, fused_name())
    store.search.fill()  # type: ignore[attr-defined]
    matrix = store.repo.cache / "vectors-second" / "vectors.npy"
    with matrix.open("ab") as handle:
        handle.write(b"\0" * (1 << 20))  # a planted matrix bigger than the ids it claims
    alone = _recalls(_store(lazy_dir, "none"))
    assert _recalls(_store(lazy_dir, fused_name())) == alone  # unreadable: nothing fused, the primary alone


def test_a_chinese_query_is_not_answered_by_the_english_only_model_while_the_second_fills(lazy_dir: Path) -> None:
    """Beside the shipped (English-only) model, a Chinese query is recalled by the multilingual model
    alone: before the lazy fill has covered the store, it embeds what that model lacks, never falls
    back to the shipped model's cosines."""
    store = _store(lazy_dir, fused_name())
    search: Any = store.search
    assert search.pending() == MEMORIES
    runs = search.semantic_runs("谁喜欢喝浓缩咖啡", 5, None)
    assert len(runs) == 1 and runs[0][1] and search.pending() == 0  # the second model's run, over every memory
    assert store.recall("谁喜欢喝浓缩咖啡", k=5, min_relevance=0.0, record_usage=False).hits


def test_a_recall_fills_a_bounded_length_of_text_however_long_the_memories(memdir: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The second model embeds a whole text at about 1 ms CPU a character: a recall fills at most
    FILL_CHARS characters of memories, not FILL_PER_COMMAND long ones, and always one at least."""
    monkeypatch.setattr(fused, "FILL_CHARS", 2500)
    store = _store(memdir, fused_name())
    for n in range(6):  # 988 characters each: two fit in 2,500
        store.add_raw(f"Note {n}: " + "Ann talked about the Kyoto hotel and the garden. " * 20, type="fact", user="ann")
    store.add_raw("Note 6: " + "a very long note on the garden. " * 100, type="fact", user="ann")  # 3,208 alone
    store.reindex()
    search: Any = store.search
    gaps = [search.pending()]
    while not search.second_ready():
        gaps.append(search.pending())
    assert gaps[0] == 7 and all(0 < a - b <= 2 for a, b in zip(gaps, gaps[1:] + [0]))
    assert len(gaps) >= 4 and _fused(_recalls(store))
