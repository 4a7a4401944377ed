"""The engine of a folder store: a warm one (a server) writes its whole-directory cache files later, not per add."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.search import engine as engine_module
from memctl.store import filerepo
from memctl.store.cachedir import folder_cache
from memctl.store.directory import init_directory


def cache_files(root: Path) -> dict[str, int]:
    names = ("vectors/vectors.npy", "vectors/meta.json", "keyword-state.json", "catalog.bin")
    return {name: (folder_cache(root) / name).stat().st_mtime_ns for name in names}


def test_a_warm_store_saves_its_caches_later_and_when_flushed(tmp_path: Path) -> None:
    init_directory(tmp_path)
    first = MemoryStore(tmp_path)
    first.add_raw("Alice lives in Lisbon", user="alice")
    first.add_raw("Bob drinks oolong", user="bob")
    first.recall("Lisbon")  # every cache written and in step
    store = MemoryStore(tmp_path)  # a server starting on it: its caches are current already
    store.warm_up()
    before = cache_files(tmp_path)
    added = store.add("Alice sails on the Tagus every Sunday", user="alice").memory
    assert [h.id for h in store.recall("sails Tagus", users=["alice"], k=1).hits] == [added.id]
    assert cache_files(tmp_path) == before  # nothing rewrote a whole-directory file for one memory
    store.flush()
    after = cache_files(tmp_path)
    assert all(after[name] != before[name] for name in before)
    fresh = MemoryStore(tmp_path)  # another process starts from what was saved: nothing left to redo
    assert fresh.search.sync_keyword() == 0 and fresh.search.sync_vectors() == 0
    assert [h.id for h in fresh.recall("sails Tagus", users=["alice"], k=1).hits] == [added.id]


def test_a_warm_store_saves_on_its_own_after_a_while(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    init_directory(tmp_path)
    store = MemoryStore(tmp_path)
    store.add_raw("Alice lives in Lisbon", user="alice")
    store.warm_up()
    before = cache_files(tmp_path)
    monkeypatch.setattr(engine_module, "SAVE_SECONDS", 0.0)
    monkeypatch.setattr(filerepo, "CATALOG_SECONDS", 0.0)
    store.add("Alice sails on the Tagus every Sunday", user="alice")
    store.recall("sails", users=["alice"])
    store.recall("sails", users=["alice"])  # the catalog is written by the read after the one that changed it
    after = cache_files(tmp_path)
    assert all(after[name] != before[name] for name in before)


def test_an_add_leaves_its_vector_cached_so_the_next_process_embeds_nothing(tmp_path: Path) -> None:
    init_directory(tmp_path)
    MemoryStore(tmp_path).add("Alice sails on the Tagus every Sunday", user="alice")  # one CLI add
    added = MemoryStore(tmp_path).add("Bob drinks oolong at four", user="bob")  # the next one
    nxt = MemoryStore(tmp_path)  # a third process: both vectors are on disk, embedded once each
    assert nxt.search.sync_vectors() == 0
    assert [h.id for h in nxt.recall("oolong", users=["bob"], k=1, mode="semantic").hits] == [added.memory.id]


def test_primed_texts_are_embedded_once_in_one_batch(tmp_path: Path) -> None:
    init_directory(tmp_path)
    store = MemoryStore(tmp_path)
    engine = store.search.primary if hasattr(store.search, "primary") else store.search
    calls: list[int] = []
    embedder = engine.embedder
    real = embedder.embed
    engine.prime(["Carla rides a red bike", "Deepak bakes sourdough"])
    embedder.embed = lambda texts: calls.append(len(texts)) or real(texts)  # type: ignore[method-assign]
    try:
        for text, user in (("Carla rides a red bike", "carla"), ("Deepak bakes sourdough", "deepak")):
            store.add(text, user=user)
        assert engine.sync_vectors() == 0
    finally:
        embedder.embed = real  # type: ignore[method-assign]
    assert calls == []  # neither the decisions' queries nor the syncs embedded a primed text again


def test_texts_compared_again_are_not_embedded_again(tmp_path: Path) -> None:
    """The write decision compares a candidate with the same neighbours' texts add after add: each
    text is embedded once while it is kept."""
    init_directory(tmp_path)
    store = MemoryStore(tmp_path)
    engine = store.search.primary if hasattr(store.search, "primary") else store.search
    embedder = engine.embedder
    real, asked = embedder.embed, []
    embedder.embed = lambda texts: asked.extend(texts) or real(texts)  # type: ignore[method-assign]
    try:
        _, first = engine.text_similarities([("my phone is an iPhone 13", "I switched to a Pixel 8")])
        _, again = engine.text_similarities([("my phone is an iPhone 13", "Carol is my manager"),
                                             ("I switched to a Pixel 8", "my phone is an iPhone 13")])
    finally:
        embedder.embed = real  # type: ignore[method-assign]
    assert asked == ["my phone is an iPhone 13", "I switched to a Pixel 8", "Carol is my manager"]
    assert again[1] == pytest.approx(first[0])


def test_a_query_asked_again_is_not_embedded_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Recent query vectors are kept (an asymmetric model's too), the least recently asked dropped first."""
    monkeypatch.setattr(engine_module, "RECENT_QUERIES", 2)
    init_directory(tmp_path)
    store = MemoryStore(tmp_path)
    engine = store.search.primary if hasattr(store.search, "primary") else store.search
    store.add("Elena drinks oolong every morning", user="elena")
    embedder = engine.embedder
    real, asked = embedder.embed_query, []
    monkeypatch.setattr(embedder, "symmetric", False, raising=False)  # as e5: queries are not documents
    monkeypatch.setattr(embedder, "embed_query", lambda text: asked.append(text) or real(text))
    first = [h.id for h in store.recall("what does Elena drink", k=1, mode="semantic").hits]
    for query in ("what does Elena drink", "oolong", "what does Elena drink", "tea", "oolong"):
        store.recall(query, k=1, mode="semantic")
    assert asked == ["what does Elena drink", "oolong", "tea", "oolong"]  # "oolong" was dropped for "tea"
    assert [h.id for h in store.recall("what does Elena drink", k=1, mode="semantic").hits] == first


def test_the_lines_of_a_dialogue_are_scored_one_by_one_by_the_models_the_recall_used(tmp_path: Path) -> None:
    init_directory(tmp_path)
    store = MemoryStore(tmp_path)
    lisbon = store.add_raw("Alice lives in Lisbon", user="alice").id
    oolong = store.add_raw("Bob drinks oolong", user="bob").id
    engine = store.search
    lines = ["Where does Alice live?", "Bob drinks oolong"]
    identity = engine.embedder.identity
    by_model = dict(engine.line_runs(lines, [lisbon, oolong], {identity}))  # the tests' two models are one
    assert set(by_model) == {identity}
    by_id = by_model[identity]
    assert set(by_id) == {lisbon, oolong}
    for n, line in enumerate(lines):
        expected = engine.similarities(line, [lisbon, oolong])
        assert by_id[lisbon][n] == pytest.approx(expected[lisbon], abs=1e-5)
        assert by_id[oolong][n] == pytest.approx(expected[oolong], abs=1e-5)
    assert by_id[oolong][1] > by_id[oolong][0] and by_id[lisbon][0] > by_id[lisbon][1]
    assert engine.line_runs(lines, [lisbon], {"another-model:384"}) == []


def test_a_batch_embedded_ahead_is_taken_only_for_the_same_texts(tmp_path: Path) -> None:
    """embed_ahead embeds a coming batch's texts in a worker thread; the batch takes those vectors,
    embedding nothing itself, when it needs exactly those texts, and embeds itself when it needs others
    (the vectors are then those of one call either way)."""
    init_directory(tmp_path)
    store = MemoryStore(tmp_path)
    engine = store.search.primary if hasattr(store.search, "primary") else store.search
    embedder = engine.embedder
    real, calls = embedder.embed, []
    texts = ["Carla rides a red bike", "Deepak bakes sourdough"]
    expected = real(texts)
    embedder.embed = lambda batch: calls.append(list(batch)) or real(batch)  # type: ignore[method-assign]
    try:
        ahead = engine.embed_ahead(texts[:1], texts[1:])
        with engine.batch(texts[:1], texts[1:], ahead=ahead):
            _, cosines = engine.text_similarities([(texts[0], texts[1])])
        stale = engine.embed_ahead(["Elena drinks oolong"])
        with engine.batch(["Elena drinks oolong", "Farid sails"], ahead=stale):
            pass
    finally:
        embedder.embed = real  # type: ignore[method-assign]
    assert calls == [texts, ["Elena drinks oolong"], ["Elena drinks oolong", "Farid sails"]]
    assert cosines[0] == pytest.approx(float(expected[0] @ expected[1]), abs=1e-6)


@pytest.mark.model
def test_a_batch_embedded_ahead_while_the_main_thread_embeds_gets_the_same_vectors() -> None:
    """The worker of embed_ahead (core/knownvectors.Ahead) runs the real model while the main thread
    embeds too (a batch's own texts, a neighbour's frame, a query): one model shared by two threads.
    Each side's vectors are those it gets alone, batch order and all; the two calls are timed, so the
    test fails if they never ran at the same time."""
    import threading
    import time

    import numpy as np

    from memctl.core.knownvectors import Ahead
    from memctl.search.embedders import DEFAULT_MODEL, get_embedder

    model = get_embedder(DEFAULT_MODEL, None)
    spans: dict[str, tuple[float, float]] = {}

    class Timed:  # the real model, each call's span noted by thread
        def embed(self, texts: list[str]) -> np.ndarray:
            start = time.perf_counter()
            try:
                return model.embed(texts)
            finally:
                spans[threading.current_thread().name] = (start, time.perf_counter())

    ahead_texts = [f"Note {i}: Oskar smokes trout over beech wood at the lake hut" for i in range(48)]
    main_texts = [f"Ines tuned cello number {i} before the evening rehearsal" for i in range(40)]
    alone_ahead, alone_main = model.embed(ahead_texts), model.embed(main_texts)
    query_alone = model.embed_query("who smokes fish")
    overlapped = 0
    for _ in range(3):
        spans.clear()
        ahead = Ahead(Timed(), ahead_texts)
        during = Timed().embed(main_texts)  # while the worker embeds
        query = model.embed_query("who smokes fish")
        np.testing.assert_allclose(ahead.vectors_for(ahead_texts), alone_ahead, atol=1e-6)
        np.testing.assert_allclose(during, alone_main, atol=1e-6)
        np.testing.assert_allclose(query, query_alone, atol=1e-6)
        (worker_start, worker_end), (main_start, main_end) = spans["memctl-embed-ahead"], spans["MainThread"]
        overlapped += main_start < worker_end and worker_start < main_end
    assert overlapped, spans


def test_a_deep_keyword_state_is_made_again(tmp_path: Path) -> None:
    init_directory(tmp_path)
    MemoryStore(tmp_path).add_raw("Alice lives in Lisbon", user="alice")
    state = folder_cache(tmp_path) / "keyword-state.json"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text('{"docs": ' + "[" * 20_000 + "]" * 20_000 + "}")  # past Python's recursion limit
    assert [h.content for h in MemoryStore(tmp_path).recall("Lisbon", mode="keyword").hits] == ["Alice lives in Lisbon"]
