"""PostgresSearch: the SearchIndex protocol in SQL over a PostgreSQL store.

Keyword search scores BM25F in SQL over tsvectors built by memctl's own analysis (terms.py), with
corpus statistics kept beside them; vectors live in one table per embedder identity (`vector(dim)`,
an HNSW index for inner product: the vectors are unit length, so it is the cosine). Both are derived
from the memories, like the file engine's caches: every write queues the memory, and the next query
in any process derives what is queued (terms in one short transaction; vectors embedded first,
outside any transaction, then stored). A recall runs inside its filter's WHERE clause, so nothing
outside the filter ever leaves the database.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from memctl.core.knownvectors import KnownVectors
from memctl.core.models import Memory
from memctl.store.files import content_hash
from memctl.store.postgres import rows
from memctl.store.postgres.candidates import CandidatePool
from memctl.store.postgres.schema import MIGRATION_LOCK, STAT_SHARDS
from memctl.store.postgres.terms import Document, KeywordSpec, bm25_sql, coverage, document, query_terms, weights

if TYPE_CHECKING:  # numpy: only when vectors are compared
    import numpy as np

BATCH = 256
SMALL_POOL = 20_000  # up to this many candidates, a search reads them first (exact, no full-text index scan)


class Rows(Protocol):
    """What the search needs of its repository (store/postgres/repo.py): its URL, its connections
    (the open write transaction's, when there is one), and rows made memories (broken ones skipped)."""

    url: str

    def connection(self) -> AbstractContextManager[Any]: ...

    def in_transaction(self) -> bool: ...

    def valid(self, found: Sequence[tuple[Any, ...]]) -> list[Memory]: ...


class PostgresSearch:
    """Keyword and semantic search of one PostgreSQL store."""

    def __init__(self, repo: Rows, embedder: Callable[[], Any], spec: KeywordSpec) -> None:
        self.repo = repo
        self.spec = spec
        self._make_embedder = embedder
        self._embedder: Any = None
        self._vectors: str | None = None  # the vector table of the embedder, once checked
        self._terms_checked = False
        self._last_query: tuple[str, Any] | None = None
        self._known = KnownVectors()  # an added text's vector: embedded once, as its query (core/knownvectors.py)
        if getattr(repo, "known_vector", False) is None:
            repo.known_vector = self._known_vector  # type: ignore[attr-defined]
        self._last_statistics: tuple[str, tuple[float, list[float], dict[str, int]]] | None = None
        self._pool_thread: Any = None

    @property
    def embedder(self) -> Any:
        """The configured embedder, made on first use."""
        if self._embedder is None:
            self._embedder = self._make_embedder()
        return self._embedder

    def _connection(self) -> Any:
        return self.repo.connection()

    def _own_connection(self) -> Any:
        """A pooled connection of its own (never the caller's write transaction: derived data commits
        on its own, and never holds locks a writer waits for)."""
        from memctl.store.postgres.connect import pool, translate

        return _Joined(translate(self.repo.url), pool(self.repo.url).connection())

    # -- deriving the terms ----------------------------------------------------------------------
    def sync_keyword(self) -> int:
        """Derive the terms of every queued memory; returns how many were done."""
        if not self._terms_checked:
            self._check_terms_version()
        done = 0
        while self._queued("memctl_index_queue"):
            with self._own_connection() as conn, conn.transaction():
                claimed = _claim(conn, "memctl_index_queue")
                if not claimed:
                    return done
                self._derive_terms(conn, claimed)
                conn.execute("DELETE FROM memctl_index_queue WHERE id = ANY(%s)", (list(claimed),))
            done += len(claimed)
        return done

    def _queued(self, queue: str, vectors: str | None = None) -> bool:
        """Whether anything waits in a queue (for one vector table); one cheap read before any transaction."""
        with self._own_connection() as conn:
            return bool(conn.execute(f"SELECT EXISTS (SELECT 1 FROM {queue}{_for(vectors)})", _of(vectors)).fetchone()[0])

    def _check_terms_version(self) -> None:
        """Stored terms made by another analysis (or none yet) are rebuilt from the memories."""
        with self._own_connection() as conn:
            version = self._terms_version(conn)
        if version != self.spec.version:
            self.reset_terms(unless_current=True)  # several processes may see it first: one resets
        self._terms_checked = True

    @staticmethod
    def _terms_version(conn: Any) -> str | None:
        row = conn.execute("SELECT value FROM memctl_meta WHERE key = 'keyword_version'").fetchone()
        return None if row is None else str(row[0])

    def reset_terms(self, *, unless_current: bool = False) -> None:
        """Drop every stored term and statistic and queue every memory again (one transaction); with
        `unless_current`, not when another process has just done it for this analysis. The tables are
        locked in the order a sync takes them (the queue, then the terms), and emptied by DELETE,
        whose lock lets a writer's open read of the terms finish: neither can deadlock with this."""
        with self._own_connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK + 1,))
            if unless_current and self._terms_version(conn) == self.spec.version:
                return
            conn.execute("LOCK TABLE memctl_index_queue, memctl_terms, memctl_term_df, memctl_corpus_stats "
                         "IN EXCLUSIVE MODE")
            for table in ("memctl_terms", "memctl_term_df", "memctl_corpus_stats"):
                conn.execute(f"DELETE FROM {table}")
            conn.execute("INSERT INTO memctl_index_queue SELECT id, content_hash FROM memctl_memories "
                         "ON CONFLICT (id) DO UPDATE SET content_hash = excluded.content_hash")
            conn.execute("INSERT INTO memctl_meta VALUES ('keyword_version', %s) ON CONFLICT (key) "
                         "DO UPDATE SET value = excluded.value", (self.spec.version,))

    def _derive_terms(self, conn: Any, claimed: dict[str, str]) -> None:
        """New terms for the claimed memories, and the statistics moved by the difference."""
        ids = sorted(claimed)
        memories = {m.id: m for m in self.repo.valid(conn.execute(
            f"SELECT {rows.SELECT_COLUMNS} FROM memctl_memories m WHERE m.id = ANY(%s)", (ids,)).fetchall())}
        old = {i: (lexemes, lengths) for i, lexemes, lengths in conn.execute(
            "SELECT id, tsvector_to_array(terms), lengths FROM memctl_terms WHERE id = ANY(%s) ORDER BY id FOR UPDATE",
            (ids,)).fetchall()}
        new = {i: document(memories[i], self.spec) for i in ids if i in memories}
        df: Counter[str] = Counter()
        stats: dict[int, list[int]] = {}
        width = len(self.spec.names)
        for memory_id in ids:
            shard = stats.setdefault(_shard(memory_id), [0] * (width + 1))
            if memory_id in old:
                lexemes, lengths = old[memory_id]
                df.subtract(lexemes)
                shard[0] -= 1
                for i, n in enumerate(lengths[:width]):
                    shard[i + 1] -= n
            if memory_id in new:
                df.update(new[memory_id].tf.keys())
                shard[0] += 1
                for i, n in enumerate(new[memory_id].lengths):
                    shard[i + 1] += n
        _store_terms(conn, new, [i for i in ids if i not in new and i in old], claimed)
        _apply_counts(conn, {t: n for t, n in df.items() if n}, stats)

    # -- deriving the vectors --------------------------------------------------------------------
    def vector_table(self) -> str:
        """The table of this embedder's vectors (created, and filled for every memory, on first use)."""
        if self._vectors is None:
            emb = self.embedder
            name = "memctl_vectors_" + hashlib.sha1(emb.identity.encode()).hexdigest()[:12]
            with self._own_connection() as conn, conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK + 2,))
                conn.execute(f"CREATE TABLE IF NOT EXISTS {name} (id text PRIMARY KEY, text_hash text NOT NULL, "
                             f"embedding vector({int(emb.dim)}) NOT NULL)")
                conn.execute(f"CREATE INDEX IF NOT EXISTS {name}_hnsw ON {name} USING hnsw (embedding vector_ip_ops)")
                conn.execute("INSERT INTO memctl_vector_tables (identity, name, dim) VALUES (%s, %s, %s) "
                             "ON CONFLICT DO NOTHING", (emb.identity, name, int(emb.dim)))
                complete = conn.execute("SELECT complete FROM memctl_vector_tables WHERE identity = %s",
                                        (emb.identity,)).fetchone()[0]
            if not complete:  # every writer that missed the table has a smaller transaction id than this
                with self._own_connection() as conn:
                    conn.execute("UPDATE memctl_vector_tables SET since = pg_current_xact_id() "
                                 "WHERE name = %s AND since IS NULL", (name,))
            if not complete and not self._backfill(name)[1]:
                return name  # not known complete yet: the next use fills it again
            self._vectors = name
        return self._vectors

    def _backfill(self, table: str, progress: Callable[[int], None] | None = None) -> tuple[int, bool]:
        """Embed every memory that has no vector in `table` yet (a new model, a rebuild). The table is
        complete once every transaction that began before it existed has ended: a writer that queued
        its memory for the other tables only is then seen here (until then, every use fills it again)."""
        done = 0
        while True:
            with self._own_connection() as conn:
                found = self.repo.valid(conn.execute(
                    f"SELECT {rows.SELECT_COLUMNS} FROM memctl_memories m LEFT JOIN {table} v ON v.id = m.id "
                    f'WHERE v.id IS NULL ORDER BY m.id COLLATE "C" LIMIT {BATCH}').fetchall())
            if not found:
                break
            self._store_vectors(table, found)
            done += len(found)
            if progress:
                progress(done)
        with self._own_connection() as conn:
            marked = conn.execute("UPDATE memctl_vector_tables SET complete = true WHERE name = %s "
                                  "AND since < pg_snapshot_xmin(pg_current_snapshot())", (table,)).rowcount
        return done, bool(marked)

    def _store_vectors(self, table: str, memories: Sequence[Memory]) -> None:
        with self._own_connection() as conn, conn.transaction():
            self._upsert_vectors(conn, table, memories)

    def sync_vectors(self, progress: Callable[[int], None] | None = None) -> int:
        """Embed the queued memories whose text changed and store their vectors; returns how many.

        Claimed rows are skipped by other processes (no memory is embedded twice); a writer re-queuing a
        claimed memory waits for this batch to commit."""
        table = self.vector_table()
        done = 0
        while self._queued("memctl_embed_queue", table):
            with self._own_connection() as conn, conn.transaction():
                claimed = _claim(conn, "memctl_embed_queue", table)
                if not claimed:
                    return done
                ids = sorted(claimed)
                memories = self.repo.valid(conn.execute(
                    f"SELECT {rows.SELECT_COLUMNS} FROM memctl_memories m WHERE m.id = ANY(%s)", (ids,)).fetchall())
                have = dict(conn.execute(f"SELECT id, text_hash FROM {table} WHERE id = ANY(%s)", (ids,)).fetchall())
                todo = [m for m in memories if have.get(m.id) != content_hash(self.spec.vector_text(m))]
                self._upsert_vectors(conn, table, todo)
                gone = sorted(set(ids) - {m.id for m in memories})
                if gone:
                    conn.execute(f"DELETE FROM {table} WHERE id = ANY(%s)", (gone,))
                conn.execute("DELETE FROM memctl_embed_queue WHERE vectors = %s AND id = ANY(%s)", (table, ids))
            done += len(todo)
            if progress:
                progress(done)
        return done

    def _upsert_vectors(self, conn: Any, table: str, memories: Sequence[Memory]) -> None:
        """Embed `memories` and store their vectors (in id order: concurrent upserts never deadlock)."""
        if not memories:
            return
        ordered = sorted(memories, key=lambda m: m.id)
        texts = [self.spec.vector_text(m) for m in ordered]
        for m, text, vector in zip(ordered, texts, self._known.embed(self.embedder, texts)):
            conn.execute(f"INSERT INTO {table} VALUES (%s, %s, %s) ON CONFLICT (id) DO UPDATE "
                         "SET text_hash = excluded.text_hash, embedding = excluded.embedding",
                         (m.id, content_hash(text), vector))

    # -- the SearchIndex protocol ----------------------------------------------------------------
    def keyword_search(self, query: str, limit: int, allowed: Collection[str] | None) -> list[tuple[str, float]]:
        """(id, BM25F score) best first among `allowed` (a recall's candidate pool: its SQL filter)."""
        self.sync_keyword()
        terms = query_terms(query, self.spec)
        condition, params = _within(allowed)
        if not terms.lexemes or limit <= 0 or condition == "FALSE":
            return []
        with self._connection() as conn:
            docs, lengths, df = self._statistics(conn, query, terms)
            weight, average = weights(terms, self.spec, docs, lengths, df)
            params.update(k_lex=terms.lexemes, k_grp=terms.groups, k_fld=terms.fields, k_w=weight, k_avg=average,
                          k_k1=self.spec.k1, k_b=self.spec.b, k_tsq=terms.tsquery(), k_coord=self.spec.coord,
                          k_den=max(terms.total - 1, 1), k_limit=limit)
            found = conn.execute(bm25_sql(condition, rows.SELECT_COLUMNS, _small(allowed)), params).fetchall()
        return _hits(self.repo, found, allowed)

    def _statistics(self, conn: Any, query: str, terms: Any, reuse: bool = False) -> tuple[float, list[float], dict[str, int]]:
        """The corpus size, field lengths and the query terms' document frequencies; with `reuse`, those
        the last keyword search of the same query read (a recall's coverage follows its search)."""
        if reuse and self._last_statistics is not None and self._last_statistics[0] == query:
            return self._last_statistics[1]
        docs, lengths = _corpus(conn, len(self.spec.names))
        df = dict(conn.execute("SELECT term, df FROM memctl_term_df WHERE term = ANY(%s)", (terms.lexemes,)).fetchall())
        self._last_statistics = (query, (docs, lengths, df))
        return docs, lengths, df

    def query_vector(self, query: str) -> Any:
        """The query's vector; the last one is kept (hybrid recall and the write decision reuse it)."""
        if self._last_query is None or self._last_query[0] != query:
            self._last_query = (query, self._known.query(self.embedder, query))
        return self._last_query[1]

    def _known_vector(self, memory: Memory) -> tuple[str, str, Any] | None:
        """(vector table, text hash, vector) of a memory whose text this search embedded already."""
        if self._vectors is None:
            return None
        text = self.spec.vector_text(memory)
        vector = self._known.get(text)
        return None if vector is None else (self._vectors, content_hash(text), vector)

    def prime(self, texts: Sequence[str]) -> None:
        """Embed texts about to be added in one batch (a server's group of adds, before any lock)."""
        self._known.prime(self.embedder, texts)

    def semantic_search(self, query: str, limit: int, allowed: Collection[str] | None) -> list[tuple[str, float]]:
        """(id, cosine) best first among `allowed`: the HNSW index for a large pool, exact for a small one
        (PostgreSQL's planner picks; the index scan goes on until `limit` rows pass the filter)."""
        self.sync_vectors()
        condition, params = _within(allowed)
        if limit <= 0 or condition == "FALSE":
            return []
        params.update(v_q=self.query_vector(query), v_limit=limit)
        table = self.vector_table()
        if _small(allowed):  # exact: the pool's vectors, compared one by one
            nearest = (f"pool AS MATERIALIZED (SELECT m.id FROM memctl_memories m WHERE {condition}), "
                       f"c AS MATERIALIZED (SELECT v.id, v.embedding <#> %(v_q)s AS distance FROM pool "
                       f"JOIN {table} v ON v.id = pool.id ORDER BY distance LIMIT %(v_limit)s)")
        else:  # the HNSW index, scanning on until `limit` rows pass the filter
            nearest = (f"c AS MATERIALIZED (SELECT v.id, v.embedding <#> %(v_q)s AS distance FROM {table} v "
                       f"JOIN memctl_memories m ON m.id = v.id WHERE {condition} ORDER BY distance LIMIT %(v_limit)s)")
        sql = (f"WITH {nearest} SELECT -c.distance, {rows.SELECT_COLUMNS} FROM c JOIN memctl_memories m ON m.id = c.id "
               'ORDER BY c.distance, m.id COLLATE "C"')
        with self._connection() as conn:
            found = conn.execute(sql, params).fetchall()
        return _hits(self.repo, found, allowed)

    def semantic_runs(self, query: str, limit: int, allowed: Collection[str] | None) -> list[tuple[str, list[tuple[str, float]]]]:
        """(embedder identity, cosine run) for each model recall fuses: here, the one."""
        return [(self.embedder.identity, self.semantic_search(query, limit, allowed))]

    def hybrid_runs(self, query: str, limit: int, allowed: Collection[str] | None
                    ) -> tuple[list[tuple[str, float]], list[tuple[str, list[tuple[str, float]]]]]:
        """The keyword hits and the semantic run at once: the query is embedded first, then the two
        statements (each a thousand index lookups for a user's pool) run on two connections, so
        PostgreSQL works on both at the same time. Inside a write transaction, one after the other
        on its connection."""
        self.query_vector(query)
        self.vector_table()
        if self.repo.in_transaction():
            return self.keyword_search(query, limit, allowed), self.semantic_runs(query, limit, allowed)
        if allowed is not None:
            len(allowed)  # a pool counts itself once, before the threads share it
        semantic = self._worker().submit(self.semantic_runs, query, limit, allowed)
        try:
            keyword = self.keyword_search(query, limit, allowed)
        finally:
            runs = semantic.result()
        return keyword, runs

    def _worker(self) -> Any:
        """The thread that runs a hybrid recall's semantic statement (made on first use)."""
        if self._pool_thread is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool_thread = ThreadPoolExecutor(1, thread_name_prefix="memctl-semantic")
        return self._pool_thread

    def keyword_coverage(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """The IDF-weighted share (0-1) of the query's terms each of `ids` holds in any field, with
        each term's document frequency taken in the field that holds it most and common vocabulary
        weighing less than names (search/keyword.py, search/specificity.py)."""
        if not ids:
            return {}
        if not self._terms_checked:  # (a recall's keyword search has just derived what was queued)
            self.sync_keyword()
        terms = query_terms(query, self.spec)
        with self._connection() as conn:
            docs, _, df = self._statistics(conn, query, terms, reuse=True)
            held = dict(conn.execute("SELECT id, tsvector_to_array(terms) FROM memctl_terms WHERE id = ANY(%s)",
                                     (list(ids),)).fetchall())
        return coverage(terms, self.spec, df, docs, {i: held.get(i, []) for i in ids})

    def query_coverage(self, query: str, plain: bool = False) -> float:
        """The share of the query's weighted terms some memory holds (as the file index computes it)."""
        if not self._terms_checked:
            self.sync_keyword()
        terms = query_terms(query, self.spec)
        if plain:
            terms.specific = None  # every term weighs its IDF
        with self._connection() as conn:
            docs, _, df = self._statistics(conn, query, terms, reuse=True)
        if not coverage(terms, self.spec, df, docs, {"all": list(terms.lexemes)})["all"]:
            return 1.0  # no weighted term (a query of common words no memory holds)
        return coverage(terms, self.spec, df, docs, {"all": [x for x in terms.lexemes if df.get(x, 0)]})["all"]

    def similarities(self, text: str, ids: Sequence[str]) -> dict[str, float]:
        """Cosine of `text` to each of `ids`; a memory whose vector is missing or stale (another
        process is still deriving it) is embedded now, so the write decision never misses one. The
        rest of the queue is left to the next `prepare` (the write decision asks under the write lock)."""
        if not ids:
            return {}
        import numpy as np

        vectors = self._vectors_of(list(ids), fresh=True)
        query = np.asarray(self.query_vector(text), dtype=np.float32)
        return {i: float(np.dot(v, query)) for i, v in vectors.items()}

    def _vectors_of(self, ids: list[str], fresh: bool) -> dict[str, "np.ndarray"]:
        """Stored vectors of `ids`; with `fresh`, the missing and stale ones embedded first."""

        table = self.vector_table() if fresh else self._vectors
        if table is None:
            return {}
        with self._connection() as conn:
            found = conn.execute(f"SELECT m.id, v.text_hash, v.embedding, {rows.SELECT_COLUMNS} FROM memctl_memories m "
                                 f"LEFT JOIN {table} v ON v.id = m.id WHERE m.id = ANY(%s)", (ids,)).fetchall()
        out, stale = {}, []
        for row in found:
            memory = self.repo.valid([row[3:]])
            if row[2] is not None and (not fresh or (memory and row[1] == content_hash(self.spec.vector_text(memory[0])))):
                out[row[0]] = _array(row[2])
            elif memory and fresh:
                stale.append(memory[0])
        if stale:
            self._store_vectors(table, stale)
            out.update(zip([m.id for m in stale], self._known.embed(self.embedder, [self.spec.vector_text(m) for m in stale])))
        return out

    def text_similarities(self, pairs: Sequence[tuple[str, str]]) -> tuple[str, list[float]]:
        """The model's identity and the cosine of each pair of texts (both embedded as documents)."""
        import numpy as np

        if not pairs:
            return self.embedder.identity, []
        both = self._known.embed(self.embedder, [a for a, _ in pairs] + [b for _, b in pairs])  # one batch
        left, right = both[:len(pairs)], both[len(pairs):]
        return self.embedder.identity, [float(v) for v in np.sum(left * right, axis=1)]

    def pair_similarities(self, ids: Sequence[str], threshold: float, sync: bool = True) -> dict[tuple[str, str], float]:
        """Cosine of every pair of `ids` at or above `threshold` (sync=False: stored vectors only, no model)."""
        import numpy as np

        if sync:
            self.sync_vectors()
        elif self._vectors is None:
            self._vectors = self._known_table()
        vectors = self._vectors_of(list(ids), fresh=False)
        present = [i for i in ids if i in vectors]
        if len(present) < 2:
            return {}
        matrix = np.stack([vectors[i] for i in present])
        sims = matrix @ matrix.T
        pos_r, pos_c = np.nonzero(np.triu(sims >= threshold, k=1))
        out = {}
        for r, c in zip(pos_r.tolist(), pos_c.tolist()):
            a, b = sorted((present[r], present[c]))
            out[(a, b)] = float(sims[r, c])
        return out

    def _known_table(self) -> str | None:
        """The vector table of the configured model, if it exists (the model itself is not loaded)."""
        with self._connection() as conn:
            row = conn.execute("SELECT name FROM memctl_vector_tables WHERE identity = %s",
                               (self.embedder.identity,)).fetchone()
        return row[0] if row else None

    def rebuild(self, vectors: bool = True, progress: Callable[[str, int], None] | None = None) -> int:
        """Derive every memory's terms again, and (with `vectors`) embed every memory again."""
        tick = progress or (lambda stage, n: None)
        self.reset_terms()
        self._terms_checked = True
        tick("keyword", self.sync_keyword())
        if not vectors:
            return 0
        table = self.vector_table()
        with self._own_connection() as conn:
            conn.execute(f"TRUNCATE {table}")
            conn.execute("UPDATE memctl_vector_tables SET complete = false WHERE name = %s", (table,))
            conn.execute("DELETE FROM memctl_embed_queue WHERE vectors = %s", (table,))
        embedded = self._backfill(table, lambda n: tick("vectors", n))[0]
        tick("vectors", embedded)
        return embedded

    def prepare(self, text: str | None = None) -> None:
        """Load the model, derive what is queued and embed `text` now (before the caller takes the lock)."""
        self.sync_vectors()
        if text is not None:
            self.query_vector(text)

    def warm_up(self) -> None:
        """Load the model and derive everything queued, so the next query is fast."""
        load = getattr(self.embedder, "load", None)
        if load is not None:
            load()
        self.embedder.embed_query("warm up")
        self.sync_keyword()
        self.sync_vectors()


class _Joined:
    """Two context managers entered as one (error translation around a pooled connection)."""

    def __init__(self, outer: Any, inner: Any) -> None:
        self.outer, self.inner = outer, inner

    def __enter__(self) -> Any:
        self.outer.__enter__()
        try:
            return self.inner.__enter__()
        except BaseException as exc:
            if not self.outer.__exit__(type(exc), exc, exc.__traceback__):
                raise
            raise

    def __exit__(self, *exc: Any) -> bool:
        try:
            suppressed = bool(self.inner.__exit__(*exc))
        except BaseException as error:
            return bool(self.outer.__exit__(type(error), error, error.__traceback__))
        return bool(self.outer.__exit__(*((None, None, None) if suppressed else exc)))


def _array(vector: Any) -> "np.ndarray":
    """A stored vector (pgvector's Vector) as a float32 array."""
    import numpy as np

    return np.asarray(vector.to_numpy() if hasattr(vector, "to_numpy") else vector, dtype=np.float32)


def _shard(memory_id: str) -> int:
    """Which statistics row a memory counts in: always the same one, so its changes add up."""
    try:
        return int(memory_id[-4:], 16) % STAT_SHARDS
    except ValueError:
        return 0


def _claim(conn: Any, queue: str, vectors: str | None = None) -> dict[str, str]:
    """Lock a batch of queued entries (for one vector table) no other process is working on: id -> content hash."""
    sql = (f'SELECT id, content_hash FROM {queue}{_for(vectors)} ORDER BY id COLLATE "C" LIMIT {BATCH} '
           "FOR UPDATE SKIP LOCKED")
    return dict(conn.execute(sql, _of(vectors)).fetchall())


def _for(vectors: str | None) -> str:
    return "" if vectors is None else " WHERE vectors = %(vectors)s"


def _of(vectors: str | None) -> dict[str, str]:
    return {} if vectors is None else {"vectors": vectors}


def _store_terms(conn: Any, new: dict[str, Document], gone: list[str], claimed: dict[str, str]) -> None:
    for memory_id in sorted(new):
        doc = new[memory_id]
        conn.execute("INSERT INTO memctl_terms VALUES (%s, %s, %s::tsvector, %s, %s) ON CONFLICT (id) DO UPDATE "
                     "SET content_hash = excluded.content_hash, terms = excluded.terms, lengths = excluded.lengths, "
                     "norms = excluded.norms", (memory_id, claimed[memory_id], doc.tsvector(), doc.lengths, doc.norms))
    if gone:
        conn.execute("DELETE FROM memctl_terms WHERE id = ANY(%s)", (gone,))


def _apply_counts(conn: Any, df: dict[str, int], stats: dict[int, list[int]]) -> None:
    """Move document frequencies and corpus statistics (terms, then shards, each in sorted order:
    two processes applying counts at once wait for each other, never deadlock)."""
    if df:
        terms = sorted(df)
        conn.execute("INSERT INTO memctl_term_df AS d SELECT t, n FROM unnest(%s::text[], %s::int[]) AS x(t, n) "
                     "ORDER BY t ON CONFLICT (term) DO UPDATE SET df = d.df + excluded.df",
                     (terms, [df[t] for t in terms]))
    for shard in sorted(stats):
        docs, *lengths = stats[shard]
        conn.execute(
            "INSERT INTO memctl_corpus_stats AS s VALUES (%s, %s, %s) ON CONFLICT (shard) DO UPDATE "
            "SET docs = s.docs + excluded.docs, lengths = (SELECT array_agg(coalesce(a, 0) + coalesce(b, 0) ORDER BY i) "
            "FROM unnest(s.lengths, excluded.lengths) WITH ORDINALITY AS x(a, b, i))", (shard, docs, lengths))


def _corpus(conn: Any, width: int) -> tuple[float, list[float]]:
    """How many memories the keyword index holds, and the total length of each field."""
    found = conn.execute("SELECT docs, lengths FROM memctl_corpus_stats").fetchall()
    totals = [0.0] * width
    for _, lengths in found:
        for i, n in enumerate(lengths[:width]):
            totals[i] += n
    return float(sum(docs for docs, _ in found)), totals


def _small(allowed: Collection[str] | None) -> bool:
    """Whether the candidates are few enough to read first (a pool counts them once, in SQL)."""
    return allowed is not None and len(allowed) <= SMALL_POOL


def _within(allowed: Collection[str] | None) -> tuple[str, dict[str, Any]]:
    """The SQL condition for `allowed`: a candidate pool's filter, a list of ids, or everything."""
    if isinstance(allowed, CandidatePool):
        return allowed.where, dict(allowed.params)
    if allowed is None:
        return "TRUE", {}
    ids = list(allowed)
    return ("m.id = ANY(%(allowed)s)", {"allowed": ids}) if ids else ("FALSE", {})


def _hits(repo: Rows, found: list[tuple[Any, ...]], allowed: Collection[str] | None) -> list[tuple[str, float]]:
    """(id, score) of rows (score first, then the memory's columns); the rows are kept by the pool."""
    memories = repo.valid([row[1:] for row in found])
    if isinstance(allowed, CandidatePool):
        allowed.remember(memories)
    valid = {m.id for m in memories}
    return [(row[1], float(row[0])) for row in found if row[1] in valid]
