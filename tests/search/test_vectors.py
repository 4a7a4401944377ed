"""The on-disk vector cache and its sync with the memory texts (all with HashingEmbedder)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pytest

from memctl.search.embedders import HashingEmbedder
from memctl.search.vectors import MATRIX_FILE, META_FILE, VectorStore, sync_vectors

FAKE = HashingEmbedder()
TEXTS = {
    "a1": ("h-a1", "Alice prefers window seats on flights"),
    "b2": ("h-b2", "Bob likes jazz and plays the saxophone"),
    "c3": ("h-c3", "The staging server runs on port 8080"),
    "d4": ("h-d4", "Carol is allergic to peanuts"),
}


class CountingEmbedder(HashingEmbedder):
    """HashingEmbedder that records which texts it embedded."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return super().embed(texts)

    @property
    def embedded(self) -> int:
        return sum(len(call) for call in self.calls)


def new_store(path: Path, identity: str = FAKE.identity, dim: int = FAKE.dim) -> VectorStore:
    store = VectorStore(path, identity, dim)
    store.load()
    return store


@pytest.fixture
def synced(tmp_path: Path) -> VectorStore:
    store = new_store(tmp_path / "vectors")
    sync_vectors(store, FAKE, TEXTS)
    return store


# --- in memory --------------------------------------------------------------


def test_missing_reports_absent_and_changed(synced: VectorStore) -> None:
    items = {"a1": "h-a1", "b2": "changed", "zz": "h-zz"}
    assert synced.missing(items) == ["b2", "zz"]


def test_upsert_replaces_normalises_and_last_duplicate_wins(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.upsert(["x", "y"], ["1", "1"], np.ones((2, FAKE.dim)) * 3)
    store.upsert(["x", "x"], ["2", "3"], FAKE.embed(["first", "second"]))
    assert len(store) == 2
    assert store.missing({"x": "3", "y": "1"}) == []
    assert np.allclose(store.vector("x"), FAKE.embed_query("second"))
    assert np.isclose(np.linalg.norm(store.vector("y")), 1.0)


def test_upsert_rejects_mismatched_lengths(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        new_store(tmp_path).upsert(["x", "y"], ["1"], FAKE.embed(["a", "b"]))


def test_remove_keeps_rows_consistent(synced: VectorStore) -> None:
    synced.remove(["b2", "unknown"])
    assert sorted(synced.ids) == ["a1", "c3", "d4"]
    assert synced.vector("b2") is None
    for id_ in ("a1", "c3", "d4"):
        assert np.allclose(synced.vector(id_), FAKE.embed_query(TEXTS[id_][1]))
    synced.remove([])
    assert len(synced) == 3


def test_search_best_first(synced: VectorStore) -> None:
    hits = synced.search(FAKE.embed_query("which seat does Alice prefer on a flight"), k=2)
    assert next(id_ for id_, _ in hits) == "a1"
    assert len(hits) == 2 and hits[0][1] >= hits[1][1]


@pytest.mark.parametrize(
    ("k", "allowed", "expected"),
    [
        (10, None, {"a1", "b2", "c3", "d4"}),
        (10, {"b2", "c3", "nope"}, {"b2", "c3"}),
        (1, {"c3", "d4"}, {"c3"}),
        (10, set(), set()),
        (0, None, set()),
    ],
)
def test_search_k_and_allowed(
    synced: VectorStore, k: int, allowed: set[str] | None, expected: set[str]
) -> None:
    hits = synced.search(FAKE.embed_query("server port"), k=k, allowed=allowed)
    assert {id_ for id_, _ in hits} == expected
    assert [score for _, score in hits] == sorted((score for _, score in hits), reverse=True)


def test_search_empty_store(tmp_path: Path) -> None:
    assert new_store(tmp_path).search(FAKE.embed_query("anything"), k=5) == []


def test_search_rejects_wrong_dimension(synced: VectorStore) -> None:
    with pytest.raises(ValueError):
        synced.search(np.ones(384, dtype=np.float32), k=1)


def test_similarities_are_cosines(synced: VectorStore) -> None:
    query = FAKE.embed_query("Bob likes jazz")
    sims = synced.similarities(query, ["b2", "c3", "gone"])
    assert set(sims) == {"b2", "c3"}
    assert sims["b2"] == pytest.approx(float(FAKE.embed_query(TEXTS["b2"][1]) @ query), abs=1e-5)
    assert sims["b2"] > sims["c3"]


# --- on disk ----------------------------------------------------------------


def test_round_trip(synced: VectorStore) -> None:
    again = new_store(synced.path)
    assert sorted(again.ids) == sorted(TEXTS)
    assert again.missing({id_: pair[0] for id_, pair in TEXTS.items()}) == []
    for id_ in TEXTS:
        assert np.array_equal(again.vector(id_), synced.vector(id_))


def test_save_leaves_only_the_two_files(synced: VectorStore) -> None:
    synced.save()
    assert sorted(p.name for p in synced.path.iterdir()) == sorted([MATRIX_FILE, META_FILE])


@pytest.mark.parametrize(
    ("identity", "dim"), [("memctl/all-MiniLM-L6-v2-int8:384", 256), ("fake:256", 128)]
)
def test_other_identity_loads_empty(synced: VectorStore, identity: str, dim: int) -> None:
    assert len(new_store(synced.path, identity, dim)) == 0


def test_missing_directory_loads_empty(tmp_path: Path) -> None:
    assert len(new_store(tmp_path / "never-created")) == 0


def _garbage_meta(path: Path) -> None:
    (path / META_FILE).write_text("{not json")


def _truncated_meta(path: Path) -> None:
    text = (path / META_FILE).read_text()
    (path / META_FILE).write_text(text[: len(text) // 2])


def _no_matrix(path: Path) -> None:
    (path / MATRIX_FILE).unlink()


def _truncated_matrix(path: Path) -> None:
    data = (path / MATRIX_FILE).read_bytes()
    (path / MATRIX_FILE).write_bytes(data[: len(data) - 100])


def _float64_matrix(path: Path) -> None:
    np.save(path / MATRIX_FILE, np.load(path / MATRIX_FILE).astype(np.float64))


def _pickled_matrix(path: Path) -> None:
    np.save(path / MATRIX_FILE, np.array([{"x": 1}], dtype=object), allow_pickle=True)


def _hashes_short(path: Path) -> None:
    meta = json.loads((path / META_FILE).read_text())
    meta["hashes"] = meta["hashes"][:-1]
    (path / META_FILE).write_text(json.dumps(meta))


def _meta_is_a_list(path: Path) -> None:
    (path / META_FILE).write_text("[]")


def _deep_meta(path: Path) -> None:
    (path / META_FILE).write_text('{"ids": ' + "[" * 20_000 + "]" * 20_000 + "}")  # past the recursion limit


def _torn_same_shape(path: Path) -> None:
    """A crash between the matrix and meta replaces: new matrix, old meta, same row count."""
    old_meta = (path / META_FILE).read_bytes()
    store = new_store(path)
    store.upsert(["a1"], ["h-a1"], FAKE.embed(["something else entirely"]))
    store.save()
    (path / META_FILE).write_bytes(old_meta)


@pytest.mark.parametrize(
    "damage",
    [_garbage_meta, _truncated_meta, _no_matrix, _truncated_matrix, _float64_matrix,
     _pickled_matrix, _hashes_short, _meta_is_a_list, _deep_meta, _torn_same_shape],
)
def test_damaged_store_loads_empty_and_heals(
    synced: VectorStore, damage: Callable[[Path], None]
) -> None:
    damage(synced.path)
    store = new_store(synced.path)
    assert len(store) == 0
    embedder = CountingEmbedder()
    assert sync_vectors(store, embedder, TEXTS) == len(TEXTS)
    assert len(new_store(synced.path)) == len(TEXTS)


# --- sync_vectors -----------------------------------------------------------


def test_sync_embeds_only_new_and_changed(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    store = new_store(tmp_path)
    assert sync_vectors(store, embedder, TEXTS) == 4
    assert sync_vectors(new_store(tmp_path), embedder, TEXTS) == 0
    changed = {
        **TEXTS,
        "b2": ("h-b2-v2", "Bob now prefers classical music"),
        "e5": ("h-e5", "Dave uses vim"),
    }
    assert sync_vectors(new_store(tmp_path), embedder, changed) == 2
    assert embedder.calls[-1] == ["Bob now prefers classical music", "Dave uses vim"]
    assert embedder.embedded == 6


def test_sync_removes_vanished_ids_and_saves(synced: VectorStore) -> None:
    remaining = {id_: TEXTS[id_] for id_ in ("a1", "d4")}
    assert sync_vectors(synced, CountingEmbedder(), remaining) == 0
    assert sorted(new_store(synced.path).ids) == ["a1", "d4"]


def test_sync_without_changes_does_not_write(synced: VectorStore) -> None:
    # save() replaces both files, which gives them new inodes.
    inodes = [(synced.path / name).stat().st_ino for name in (META_FILE, MATRIX_FILE)]
    assert sync_vectors(new_store(synced.path), CountingEmbedder(), TEXTS) == 0
    assert [(synced.path / name).stat().st_ino for name in (META_FILE, MATRIX_FILE)] == inodes


def test_sync_refuses_another_embedder(tmp_path: Path) -> None:
    store = new_store(tmp_path, "memctl/all-MiniLM-L6-v2-int8:384", 384)
    with pytest.raises(ValueError):
        sync_vectors(store, FAKE, TEXTS)


def test_copied_store_is_independent(synced: VectorStore, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(synced.path, copy)
    store = new_store(copy)
    store.remove(["a1"])
    store.save()
    assert "a1" in new_store(synced.path)
    assert "a1" not in new_store(copy)


def test_a_store_emptied_by_removals_saves_and_loads(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.upsert(["x"], ["1"], FAKE.embed(["first"]))
    store.save()
    store.remove(["x"])
    store.save()  # an empty matrix: its checksum must not fail
    again = new_store(tmp_path)
    again.load()
    assert len(again) == 0


def test_processes_syncing_at_once_embed_each_memory_once(tmp_path: Path) -> None:
    """Two processes' stores over one cache: what one embedded and saved, the other takes from disk
    (only the memories it lacks, with the same content), never embedding it again."""
    first, second = new_store(tmp_path), new_store(tmp_path)  # both loaded while the cache was empty
    embedder = CountingEmbedder()
    assert sync_vectors(first, embedder, dict(list(TEXTS.items())[:3])) == 3
    changed = {**TEXTS, "b2": ("h-b2-v2", "Bob now prefers classical music")}
    assert sync_vectors(second, embedder, changed) == 2  # d4 is new, b2 changed since first embedded it
    assert embedder.calls[-1] == ["Bob now prefers classical music", "Carol is allergic to peanuts"]
    assert np.allclose(second.vector("a1"), first.vector("a1"))
    assert sync_vectors(first, embedder, changed) == 0  # and back: first takes b2 and d4 from second's save
    assert embedder.embedded == 5


def test_a_torn_cache_of_another_process_is_embedded_over(tmp_path: Path) -> None:
    first, second = new_store(tmp_path), new_store(tmp_path)
    sync_vectors(first, FAKE, TEXTS)
    (tmp_path / MATRIX_FILE).write_bytes(b"torn")
    embedder = CountingEmbedder()
    assert sync_vectors(second, embedder, TEXTS) == 4
    assert new_store(tmp_path).missing({k: v[0] for k, v in TEXTS.items()}) == []
