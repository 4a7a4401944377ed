"""PostgresSearch: the same keyword and vector scores as the file index, derived data that follows
every write (in any process), a table per embedder, and rebuilds."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.search import embedders
from memctl.store.directory import init_directory
from tests.conftest import SAMPLES
from tests.helpers import ROOT
from tests.postgres import store_config

QUERIES = ["where does Alice live", "createOrder timeout", "ERR_42", "PAY-1234 refund", "绿茶", "window seat flights",
           "checkout latency p99", "Bob rust", "March 2026", "stripe", "what does wei like to drink",
           "idempotency keys", "vegetarian", "tech lead", "card numbers", "deploy friday", "Alice", "the"]


@pytest.fixture(scope="module")
def both(pg_server, tmp_path_factory) -> tuple[MemoryStore, MemoryStore]:
    """The sample directory as a folder and imported into PostgreSQL (the hashing embedder)."""
    previous = embedders.register_embedder(embedders.DEFAULT_MODEL, lambda *_: embedders.HashingEmbedder())
    tmp = tmp_path_factory.mktemp("agree")
    folder = tmp / "folder"
    shutil.copytree(SAMPLES, folder, ignore=shutil.ignore_patterns(".memctl"))
    init_directory(folder)
    url = pg_server.new_url()
    database = tmp / "db"
    database.mkdir()
    (database / "memctl.toml").write_text(store_config(url))
    assert MemoryStore(database).import_from("folder", str(folder)).summary["taken"] == 102
    yield MemoryStore(folder), MemoryStore(database)
    pg_server.drop(url)
    embedders.unregister_embedder(embedders.DEFAULT_MODEL, previous)


@pytest.mark.parametrize("query", QUERIES)
def test_keyword_scores_are_the_file_index_scores(both, query: str) -> None:
    files, database = both
    expected = files.search.keyword_search(query, 20, None)
    found = database.search.keyword_search(query, 20, None)
    assert [i for i, _ in found] == [i for i, _ in expected]
    assert [s for _, s in found] == pytest.approx([s for _, s in expected], rel=1e-9)


@pytest.mark.parametrize("query", QUERIES[:8])
def test_cosines_are_the_file_index_cosines(both, query: str) -> None:
    files, database = both
    expected = dict(files.search.semantic_search(query, 102, None))
    found = dict(database.search.semantic_search(query, 102, None))
    assert found.keys() == expected.keys() and all(abs(found[i] - expected[i]) < 1e-5 for i in found)


@pytest.mark.parametrize("query", QUERIES)
def test_keyword_coverage_is_the_file_index_coverage(both, query: str) -> None:
    files, database = both
    ids = [i for i, _ in files.search.keyword_search(query, 20, None)] + [m.id for m in files.list()[:10]]
    expected = files.search.keyword_coverage(query, ids)
    found = database.search.keyword_coverage(query, ids)
    assert found.keys() == expected.keys() and all(abs(found[i] - expected[i]) < 1e-9 for i in ids)
    assert database.search.keyword_coverage(query, []) == {}


def test_hybrid_recall_is_the_same_on_both(both) -> None:
    files, database = both
    files.search.fill()  # type: ignore[attr-defined]  # the folder's second model fills lazily (search/fused.py): filled, as the database's is
    for query in QUERIES[:-1]:
        a = [(h.id, h.score) for h in files.recall(query, k=10, record_usage=False).hits]
        b = [(h.id, h.score) for h in database.recall(query, k=10, record_usage=False).hits]
        assert [i for i, _ in a] == [i for i, _ in b], query
        assert [s for _, s in a] == pytest.approx([s for _, s in b], abs=1e-5)


def test_hybrid_runs_are_the_two_searches_run_at_once_and_in_a_transaction_one_by_one(both) -> None:
    from memctl import clock
    from memctl.store.filters import MemoryFilter

    _, database = both
    search, repo = getattr(database.search, "primary", database.search), database.repo  # the PostgresSearch
    for query in QUERIES[:6]:
        pool = repo.candidates(MemoryFilter(users=("alice",)), clock.now())
        keyword, runs = search.hybrid_runs(query, 20, pool)
        assert (keyword, runs) == (search.keyword_search(query, 20, pool), search.semantic_runs(query, 20, pool))
        assert keyword or runs, query
    assert search._pool_thread is not None  # the semantic statement ran on the worker's connection
    search._pool_thread.shutdown()
    search._pool_thread = None
    with repo.locked():  # a write transaction's reads stay on its connection: no second one
        pool = repo.candidates(MemoryFilter(users=("alice",)), clock.now())
        assert search.hybrid_runs(QUERIES[0], 20, pool)[0] == search.keyword_search(QUERIES[0], 20, pool)
    assert search._pool_thread is None


def counts_agree(store: MemoryStore) -> None:
    """The kept document frequencies and corpus totals are what the stored terms add up to."""
    with store.repo.connection() as conn:
        terms = conn.execute("SELECT tsvector_to_array(terms), lengths FROM memctl_terms").fetchall()
        df = {t: n for t, n in conn.execute("SELECT term, df FROM memctl_term_df").fetchall() if n}
        docs, lengths = conn.execute("SELECT sum(docs), array_agg(lengths) FROM memctl_corpus_stats").fetchone()
        memories = conn.execute("SELECT count(*) FROM memctl_memories").fetchone()[0]
    assert df == Counter(t for lexemes, _ in terms for t in lexemes)
    assert docs == len(terms) == memories
    assert [sum(col) for col in zip(*lengths)] == [sum(col) for col in zip(*(lens for _, lens in terms))]


def test_derived_terms_and_statistics_follow_every_write(pgstore) -> None:
    a = pgstore.add("Alice keeps three beehives on her roof", type="fact", user="alice").memory
    b = pgstore.add("Bob repairs vintage bicycles on weekends", type="habit", user="bob").memory
    assert [i for i, _ in pgstore.search.keyword_search("beehives", 5, None)] == [a.id]
    pgstore.edit(a.id, body="Alice keeps two beehives and a wasp trap")
    pgstore.forget(b.id)
    assert pgstore.search.keyword_search("wasp trap", 5, None)[0][0] == a.id
    assert pgstore.search.keyword_search("three", 5, None) == []
    counts_agree(pgstore)
    pgstore.repo.delete_created(pgstore.get(b.id), "test:delete")
    pgstore.search.keyword_search("anything", 5, None)
    counts_agree(pgstore)
    with pgstore.repo.connection() as conn:
        assert conn.execute("SELECT count(*) FROM memctl_index_queue").fetchone()[0] == 0


ADD = """
import sys
from memctl.api import MemoryStore
MemoryStore(sys.argv[1]).add("Carol's parrot is called Captain Flint", type="fact", user="carol")
"""


def test_another_processs_write_is_found_by_the_next_query(pgstore, pgdir: Path) -> None:
    pgstore.add("Dana sails a small dinghy", type="fact", user="dana")
    assert pgstore.search.keyword_search("parrot", 5, None) == []
    text = (pgdir / "memctl.toml").read_text().replace('model = "memctl/all-MiniLM-L6-v2-int8"', 'model = "hashing"')
    (pgdir / "memctl.toml").write_text(text)
    subprocess.run([sys.executable, "-c", ADD, str(pgdir)], check=True, cwd=ROOT, timeout=120)
    hits = pgstore.recall("what is the parrot called", k=1, record_usage=False).hits
    assert hits and "Captain Flint" in hits[0].content


class OtherModel(embedders.HashingEmbedder):
    identity = "other-model:256"


def test_each_embedder_has_its_own_vector_table_filled_on_first_use(pgdir: Path) -> None:
    store = MemoryStore(pgdir)
    for n in range(3):
        store.add_raw(f"Erin's favourite number is {n} and she sings", type="fact", user="erin")
    first = store.search.vector_table()
    other = MemoryStore(pgdir, embedder=OtherModel())
    second = other.search.vector_table()
    assert first != second
    with store.repo.connection() as conn:
        for table in (first, second):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 3
        dims = dict(conn.execute("SELECT identity, dim FROM memctl_vector_tables").fetchall())
        kind = conn.execute(f"SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = "
                            f"'{first}'::regclass AND attname = 'embedding'").fetchone()[0]
        index = conn.execute("SELECT indexdef FROM pg_indexes WHERE tablename = %s AND indexdef LIKE '%%hnsw%%'",
                             (first,)).fetchone()[0]
    assert dims == {"hashing:256": 256, "other-model:256": 256} and kind == "vector(256)"
    assert "vector_ip_ops" in index


def test_every_vector_table_gets_every_change(pgdir: Path) -> None:
    store, other = MemoryStore(pgdir), MemoryStore(pgdir, embedder=OtherModel())
    first, second = store.search.vector_table(), other.search.vector_table()
    kept = store.add_raw("Gina grows chillies on her balcony", type="fact", user="gina")
    assert store.search.sync_vectors() == 1  # the first model's entry is done; the second's still waits
    assert other.search.sync_vectors() == 1
    assert [i for i, _ in other.search.semantic_search("chillies balcony", 5, None)] == [kept.id]
    with store.repo.connection() as conn:
        for table in (first, second):
            assert [i for (i,) in conn.execute(f"SELECT id FROM {table}").fetchall()] == [kept.id]
        assert conn.execute("SELECT count(*) FROM memctl_embed_queue").fetchone()[0] == 0


def test_a_vector_table_added_beside_an_open_write_is_complete_once_it_commits(pgdir: Path) -> None:
    store = MemoryStore(pgdir)
    store.search.vector_table()
    with store.repo.locked():  # a writer queues its memory before the new table exists
        late = store.add_raw("Hana plays the oboe", type="fact", user="hana")
        other = MemoryStore(pgdir, embedder=OtherModel())
        table = other.search.vector_table()  # made and filled while the write is still open
        assert other.search._vectors is None  # not complete yet: the open transaction may add a memory
    again = other.search.vector_table()
    assert again == table and other.search._vectors == table
    with store.repo.connection() as conn:
        assert conn.execute(f"SELECT count(*) FROM {table} WHERE id = %s", (late.id,)).fetchone()[0] == 1
        assert conn.execute("SELECT complete FROM memctl_vector_tables WHERE name = %s", (table,)).fetchone()[0]


def test_a_second_model_recall_fuses_is_searched_in_sql_too(pgdir: Path) -> None:
    previous = embedders.register_embedder(embedders.MULTILINGUAL_MODEL, lambda *_: OtherModel())
    try:
        (pgdir / "memctl.toml").write_text((pgdir / "memctl.toml").read_text().replace(
            'second_model = "auto"', f'second_model = "{embedders.MULTILINGUAL_MODEL}"'))
        store = MemoryStore(pgdir)
        memory = store.add("Ivan collects antique maps of the Baltic", type="fact", user="ivan").memory
        runs = store.search.semantic_runs("antique maps", 5, None)
        assert [identity for identity, _ in runs] == ["hashing:256", "other-model:256"]
        assert all(run and run[0][0] == memory.id for _, run in runs)
        assert store.recall("antique maps", users=["ivan"]).hits[0].id == memory.id
        assert store.search.rebuild() >= 1
    finally:
        embedders.unregister_embedder(embedders.MULTILINGUAL_MODEL, previous)


def test_changed_analysis_rebuilds_the_terms_and_reindex_rebuilds_everything(pgstore, pgdir: Path) -> None:
    memory = pgstore.add("Frank restores old pianos", type="skill", user="frank").memory
    assert pgstore.search.keyword_search("pianos", 5, None)[0][0] == memory.id
    with pgstore.repo.connection() as conn:
        conn.execute("UPDATE memctl_meta SET value = 'an older analysis' WHERE key = 'keyword_version'")
        conn.execute("TRUNCATE memctl_terms")
    fresh = MemoryStore(pgdir)
    assert fresh.search.keyword_search("pianos", 5, None)[0][0] == memory.id
    counts_agree(fresh)
    report = fresh.reindex()
    assert report["memories"] == 1 and report["embedded"] == 1
    assert fresh.recall("piano restoration", k=1, record_usage=False).hits[0].id == memory.id


def test_a_reset_of_the_terms_waits_for_a_running_sync_and_neither_deadlocks(pgstore, pgdir: Path) -> None:
    """A process deriving terms holds queue rows and then locks terms rows; a reset (another process
    seeing an older analysis) locks the same tables in the same order, so it waits, never deadlocks."""
    import threading

    import psycopg

    pgstore.add("Grace tunes harpsichords", type="skill", user="grace")
    with pgstore.repo.connection() as conn:
        conn.execute("INSERT INTO memctl_index_queue SELECT id, content_hash FROM memctl_memories ON CONFLICT DO NOTHING")
    other = MemoryStore(pgdir)
    errors: list[Exception] = []
    with psycopg.connect(pgstore.repo.url) as sync:  # a sync in another process, half way through
        claimed = sync.execute("SELECT id FROM memctl_index_queue FOR UPDATE SKIP LOCKED").fetchall()
        assert claimed
        reset = threading.Thread(target=lambda: _catch(errors, other.search.reset_terms))
        reset.start()
        reset.join(1.5)  # past PostgreSQL's deadlock_timeout (1 s): a deadlock would be reported by now
        sync.execute("SELECT id FROM memctl_terms WHERE id = ANY(%s) FOR UPDATE", ([i for i, in claimed],))
        sync.commit()
    reset.join(30)
    assert errors == [] and not reset.is_alive()
    assert other.search.keyword_search("harpsichords", 5, None)[0][0] == claimed[0][0]


def _catch(errors: list[Exception], job) -> None:
    try:
        job()
    except Exception as exc:  # the test reports it
        errors.append(exc)


def test_an_add_stores_its_own_vector_at_once_and_queues_it_for_no_one(pgstore) -> None:
    added = pgstore.add("Dana paints lighthouses in watercolour", type="fact", user="dana").memory
    table = pgstore.search.vector_table()
    with pgstore.repo.connection() as conn:
        # its own table's entry only: another vector table (a second model's, registered meanwhile) is
        # queued the memory, as a table added during a write is
        queued = conn.execute("SELECT count(*) FROM memctl_embed_queue WHERE id = %s AND vectors = %s",
                              (added.id, table)).fetchone()[0]
        stored = conn.execute(f"SELECT embedding FROM {table} WHERE id = %s", (added.id,)).fetchone()
    assert queued == 0 and stored is not None  # written with the memory, in its transaction
    import numpy as np

    fresh = pgstore.search.embedder.embed([added.body])[0]  # the vector a sync would have made
    assert float(np.dot(np.asarray(stored[0].to_numpy()), fresh)) > 0.9999
    assert pgstore.search.sync_vectors() == 0
