"""The search engine of a Markdown directory: keeps the keyword index and the vectors in step with
the files, and queries them.

Both are caches in the repository's cache folder (this user's, outside the memory folder). Each records the content hash it indexed per memory, so any
command that reads (in any process) brings them up to date; cost grows with the number of changes.
The engine syncs itself from the repository's current snapshot before every query.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterator, Sequence

from memctl.core import jsonsafe
from memctl.core.knownvectors import Ahead, KnownVectors
from memctl.core.models import Memory
from memctl.store.files import file_lock, write_atomic

if TYPE_CHECKING:  # heavy modules: imported only when a search needs them
    import numpy as np

    from memctl.search.embedders import Embedder
    from memctl.search.keyword import KeywordDoc, KeywordIndex
    from memctl.search.vectors import VectorStore
    from memctl.store.repository import ContentState, Snapshots

Progress = Callable[[int], None]
TERM_SETS = 50_000  # memories whose keyword terms are kept for recall's coverage
SAVE_SECONDS = 10.0  # a warm engine writes its vector matrix and keyword state at most this often
RECENT_QUERIES = 256  # query vectors kept (0.4 MB at 384 dimensions)
KNOWN_TEXTS = 30_000  # vectors of batches' texts kept for later batches (a neighbour's frame comes up again)


def keyword_doc(memory: Memory) -> "KeywordDoc":
    """What the keyword index holds for a memory: body, tags, key, names, entities, month and year."""
    from memctl.search.entities import extract_entities
    from memctl.search.keyword import KeywordDoc

    entities = list(dict.fromkeys([*memory.entities, *extract_entities(memory.body)]))
    return KeywordDoc(id=memory.id, body=memory.body, tags=memory.tags, key=memory.key, name=memory.name,
                      description=memory.description, entities=entities,
                      when=memory.created.strftime("%B %Y"))


def vector_text(memory: Memory) -> str:
    """The text embedded for a memory: its body (names and tags live in the keyword index)."""
    return memory.body


def _within(chars: int | None, texts: list[str]) -> list[str]:
    """The first of `texts` whose lengths add up to at most `chars` (the first always; all if None)."""
    if chars is None:
        return texts
    total = 0
    for n, text in enumerate(texts):
        total += len(text)
        if n and total > chars:
            return texts[:n]
    return texts


def _digest(wanted: dict[str, str]) -> str:
    """One hash of every (id, content hash) pair: equal digests mean nothing to re-index."""
    return hashlib.sha1("".join(sorted(f"{k}{v}" for k, v in wanted.items())).encode()).hexdigest()


class Engine:
    """Keyword + vector caches of one memory directory, synced from its repository."""

    def __init__(self, repo: "Snapshots", embedder: Callable[[], "Embedder"], vectors: str = "vectors") -> None:
        self.repo = repo
        self.cache = repo.cache
        self._make_embedder = embedder
        self._vectors_name = vectors  # a second model recall fuses keeps its vectors beside the first's
        self._embedder: Embedder | None = None
        self._keyword: KeywordIndex | None = None
        self._vectors: VectorStore | None = None
        self._kw_synced: object = None
        self._vec_synced: object = None
        self._recent_queries: dict[str, Any] = {}  # query -> vector, least recently asked first
        # Document vectors by text, of the texts about to be written (`prime`) and, when the model
        # embeds a query as it embeds a document, of the last queries: an add's text is embedded
        # once, not again when the next sync finds its memory (bounded: KNOWN texts).
        self._known = KnownVectors()
        self._wanted_for: tuple[object, tuple[dict[str, str], dict[str, str]]] | None = None
        self._covered: tuple[object, int] | None = None  # (snapshot, vector store changes) with no vector lacking
        self._term_sets: dict[tuple[str, str], frozenset[str]] = {}
        # A warm engine (a server) keeps what its keyword index holds in memory and writes the
        # whole-directory files (the vector matrix, the keyword state) at most every SAVE_SECONDS,
        # not after every add: they are caches, checked by content hash by whoever reads them.
        self._deferred = False
        self._state: dict[str, str] | None = None
        self._unsaved: set[str] = set()
        self._saved_at = 0.0
        # Threads sharing a store (as_actor views) share this engine: its vector cache and last query
        # are changed one thread at a time (two adds' syncs raced in VectorStore.upsert).
        self._vec_lock = threading.RLock()
        # A batch of writes (`batch`): its texts' vectors, embedded at once; the vector cache is saved
        # at its end, not after each write.
        self._queries: dict[str, "np.ndarray"] = {}
        self._batches = 0
        self._held = False

    def _wanted(self, snapshot: "ContentState") -> tuple[dict[str, str], dict[str, str]]:
        """id -> content hash and id -> path of a snapshot, computed once even when both caches sync."""
        if self._wanted_for is None or self._wanted_for[0] is not snapshot:
            self._wanted_for = (snapshot, (snapshot.hashes, snapshot.paths()))
        return self._wanted_for[1]

    # -- keyword ---------------------------------------------------------------
    @property
    def keyword(self) -> "KeywordIndex":
        if self._keyword is None:
            from memctl.search.keyword import KeywordIndex

            self.cache.mkdir(parents=True, exist_ok=True)
            self._keyword = KeywordIndex(self.cache / "keyword")
        return self._keyword

    def _state_path(self) -> Path:
        return self.cache / "keyword-state.json"

    def _read_state(self) -> dict:
        try:
            data = jsonsafe.loads(self._state_path().read_text(encoding="utf-8"))
            return data if isinstance(data, dict) and isinstance(data.get("docs"), dict) else {}
        except (OSError, ValueError):
            return {}

    def sync_keyword(self, force: bool = False, progress: Progress | None = None) -> int:
        """Bring the keyword index in line with the snapshot; returns how many docs changed.

        Keyed by each file's content hash, so only changed files are re-indexed; a snapshot
        already synced by this engine costs nothing.
        """
        snapshot = self.repo.snapshot()
        if snapshot is self._kw_synced and not force:
            return 0
        wanted, rel_of = self._wanted(snapshot)
        if self._deferred and self._state is not None and not force and not self.keyword.was_reset:
            return self._sync_keyword_warm(snapshot, wanted, rel_of)
        digest = _digest(wanted)
        index = self.keyword
        if (not force and self._read_digest() == digest and not index.was_reset
                and (index.doc_count() > 0 or not wanted)):
            self._kw_synced, self._state = snapshot, wanted  # the common case: nothing changed since the last sync
            return 0
        # Index and state change together under a lock, so two processes syncing at once never
        # leave a state that claims content the index does not hold.
        with file_lock(self.cache / "keyword.lock", timeout=600):
            state = {} if force else self._read_state().get("docs", {})
            if index.was_reset or (state and index.doc_count() == 0):
                state = {}
            if not state:
                index.rebuild((keyword_doc(snapshot.memory(rel_of[i])) for i in wanted), progress=progress)
                changed, removed = list(wanted), []
            else:
                changed = [i for i, h in wanted.items() if state.get(i) != h]
                removed = [i for i in state if i not in wanted]
                if changed or removed:
                    index.update([keyword_doc(snapshot.memory(rel_of[i])) for i in changed], removed)
            if changed or removed or not state:
                self._write_state(wanted)
        self._kw_synced, self._state = snapshot, wanted
        return len(changed) + len(removed)

    def _sync_keyword_warm(self, snapshot: "ContentState", wanted: dict[str, str], rel_of: dict[str, str]) -> int:
        """A warm engine's sync: the changes against what it indexed itself, its state saved later."""
        assert self._state is not None
        state = self._state
        changed = [i for i, h in wanted.items() if state.get(i) != h]
        removed = [i for i in state if i not in wanted]
        if changed or removed:
            with file_lock(self.cache / "keyword.lock", timeout=600):
                self.keyword.update([keyword_doc(snapshot.memory(rel_of[i])) for i in changed], removed)
            self._unsaved.add("keyword")
        self._kw_synced, self._state = snapshot, wanted
        self._save_due()
        return len(changed) + len(removed)

    def _save_due(self, now: bool = False) -> None:
        """Write what a warm engine keeps unsaved, when SAVE_SECONDS have passed (or `now`)."""
        if not self._unsaved or not (now or time.monotonic() - self._saved_at > SAVE_SECONDS):
            return
        if "keyword" in self._unsaved and self._state is not None:
            self._write_state(self._state)
        if "vectors" in self._unsaved and self._vectors is not None:
            self._vectors.save()
        self._unsaved, self._saved_at = set(), time.monotonic()

    def flush(self) -> None:
        """Write whatever a warm engine has not saved yet (a server does this as it stops)."""
        self._save_due(now=True)

    def _read_digest(self) -> str | None:
        try:
            return (self.cache / "keyword-state.digest").read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None

    def _write_state(self, state: dict[str, str]) -> None:
        """The per-memory hashes, then (last, so a torn pair just re-syncs) their digest."""
        write_atomic(self._state_path(), json.dumps({"docs": state}, sort_keys=True), durable=False)
        write_atomic(self.cache / "keyword-state.digest", _digest(state), durable=False)

    def keyword_search(self, query: str, limit: int, allowed: Collection[str] | None) -> list[tuple[str, float]]:
        """(id, BM25F score) best first among `allowed` ids (None: all), after syncing the index."""
        self.sync_keyword()
        snapshot = self._kw_synced
        if allowed is not None and snapshot is not None and len(allowed) >= len(snapshot.order):  # type: ignore[attr-defined]
            allowed = None  # everything is allowed: skip the per-hit filter
        return self.keyword.search(query, limit=limit, allowed=allowed)

    def keyword_coverage(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """IDF-weighted share of the query's terms each memory of `ids` holds (0-1, comparable
        across queries; calibrated relevance reads it)."""
        if not ids:
            return {}
        self.sync_keyword()
        snapshot = self.repo.snapshot()
        hashes, rel_of = self._wanted(snapshot)
        return self.keyword.coverage(query, {i: self._terms(i, hashes[i], snapshot, rel_of[i]) for i in ids if i in rel_of})

    def query_coverage(self, query: str, plain: bool = False) -> float:
        """The share of the query's weighted terms some memory holds (search/keyword.py)."""
        self.sync_keyword()
        return self.keyword.query_coverage(query, plain)

    def _terms(self, memory_id: str, content: str, snapshot: "ContentState", rel: str) -> frozenset[str]:
        """The terms a memory's keyword doc holds, kept per content hash: recall's coverage reads them
        for every hit, and analysing (entities, stemming) costs more than the rest of the coverage."""
        from memctl.search.keyword import doc_terms

        key = (memory_id, content)
        terms = self._term_sets.get(key)
        if terms is None:
            if len(self._term_sets) >= TERM_SETS:
                self._term_sets.clear()  # a bound, not an LRU: a server's hits are a few thousand memories
            terms = self._term_sets[key] = doc_terms(keyword_doc(snapshot.memory(rel)))
        return terms

    def semantic_runs(self, query: str, limit: int, allowed: Collection[str] | None) -> list[tuple[str, list[tuple[str, float]]]]:
        """(embedder identity, cosine run) for each embedding model recall fuses: here, the one."""
        return [(self.embedder.identity, self.semantic_search(query, limit, allowed))]

    def hybrid_runs(self, query: str, limit: int, allowed: Collection[str] | None
                    ) -> tuple[list[tuple[str, float]], list[tuple[str, list[tuple[str, float]]]]]:
        """The keyword hits, then the semantic runs (one process, one after the other)."""
        return self.keyword_search(query, limit, allowed), self.semantic_runs(query, limit, allowed)

    # -- vectors ---------------------------------------------------------------
    @property
    def embedder(self) -> "Embedder":
        """The configured embedder, made on first use (a real model loads lazily too)."""
        if self._embedder is None:
            self._embedder = self._make_embedder()
        return self._embedder

    @property
    def vectors(self) -> "VectorStore":
        if self._vectors is None:
            from memctl.search.vectors import VectorStore

            emb = self.embedder
            self._vectors = VectorStore(self.cache / self._vectors_name, emb.identity, emb.dim)
            self._vectors.load()
        return self._vectors

    def sync_vectors(self, progress: Progress | None = None) -> int:
        """Embed new or changed memories, drop vanished ones; returns how many were embedded."""
        with self._vec_lock:
            return self._sync_vectors(progress)

    def _sync_vectors(self, progress: Progress | None) -> int:
        snapshot = self.repo.snapshot()
        if snapshot is self._vec_synced:
            return 0
        from memctl.search.vectors import sync_store

        wanted, rel_of = self._wanted(snapshot)
        self.cache.mkdir(parents=True, exist_ok=True)
        since = getattr(snapshot, "changed_since", None)  # own writes patched in: only those are new
        delta = since(self._vec_synced) if since is not None and self._vec_synced is not None else None
        if delta is not None:
            self._same_text(snapshot, delta[0], wanted)
        todo = sync_store(self.vectors, _Remembered(self.embedder, self._known), wanted, lambda i: vector_text(snapshot.memory(rel_of[i])),
                          progress, save=not (self._deferred or self._batches), delta=delta)
        self._vec_synced = snapshot
        if self._batches and todo:
            self._held = True
        if self._deferred:  # something changed (an embedding or a removal): save it later
            self._unsaved.add("vectors")
            self._save_due()
        return todo

    def _same_text(self, snapshot: "ContentState", changed: Collection[str], wanted: dict[str, str]) -> None:
        """Changed memories whose text is what was embedded (a link or a confidence changed, not the
        body) keep their vector under the new content hash: nothing to embed for them."""
        old = self._vec_synced
        vectors, old_paths, new_paths = self.vectors, old.paths(), snapshot.paths()  # type: ignore[attr-defined]
        for memory_id in changed:
            vector, was = vectors.vector(memory_id), old_paths.get(memory_id)
            if vector is None or was is None or memory_id not in new_paths:
                continue
            before = vector_text(old.memory(was))  # type: ignore[attr-defined]
            if before == vector_text(snapshot.memory(new_paths[memory_id])):
                vectors.upsert([memory_id], [wanted[memory_id]], vector[None, :])

    @contextlib.contextmanager
    def batch(self, queries: Sequence[str], documents: Sequence[str] = (), ahead: Ahead | None = None) -> Iterator[None]:
        """A batch of writes: the model and the vectors brought up to date, then `queries` (the
        candidates, as the write path compares them) and `documents` (other texts it will embed,
        e.g. the candidates' frames) embedded now, a batch to a model call, before the caller takes
        the write lock (or taken from `ahead`, embed_ahead's, when it embedded the same texts). While
        it lasts, those vectors are used where the texts come up again (a candidate once written, a
        frame) and the vector cache is saved once, at the end."""
        with self._vec_lock:
            self.sync_vectors()
            self._batches += 1
            try:
                self._embed_batch(queries, documents, ahead)
            except BaseException:
                self._end_batch()
                raise
        try:
            yield
        finally:
            with self._vec_lock:
                self._end_batch()

    def embed_ahead(self, queries: Sequence[str], documents: Sequence[str] = ()) -> Ahead:
        """Start embedding the documents of a coming `batch(queries, documents)` in a worker thread,
        with the texts that batch would embed if it began now: the caller writes the batch before
        meanwhile (onnxruntime lets the GIL go; a machine of two cores runs both). The batch takes
        these vectors when it needs exactly those texts, so every vector is the one it would embed."""
        with self._vec_lock:
            emb = self.embedder
            self._known.limit = max(self._known.limit, KNOWN_TEXTS)
            return Ahead(emb, self._known.todo([*queries, *documents]))

    def _embed_batch(self, queries: Sequence[str], documents: Sequence[str], ahead: Ahead | None = None) -> None:
        """The batch's texts as documents in one call (a symmetric model's queries with them, as
        KnownVectors.query takes them), an asymmetric model's queries in one more."""
        emb = self.embedder
        self._known.limit = max(self._known.limit, KNOWN_TEXTS)
        self._known.prime(emb, [*queries, *documents], ahead)
        if not getattr(emb, "symmetric", False):
            todo = [q for q in dict.fromkeys(queries) if q not in self._queries]
            many = getattr(emb, "embed_queries", None)
            self._queries.update(zip(todo, many(todo) if many is not None else [emb.embed_query(q) for q in todo]))

    def _end_batch(self) -> None:
        self._batches -= 1
        if self._batches:
            return
        self._queries = {}
        if self._held and not self._deferred and self._vectors is not None:
            self._vectors.save()
        self._held = False

    def vector_gap(self) -> int:
        """How many memories of the snapshot lack this model's vector for their current content;
        embeds nothing (what another process saved since is adopted) and never loads the model."""
        with self._vec_lock:
            snapshot, covered = self.repo.snapshot(), self._covered
            if covered is not None and covered[0] is snapshot and covered[1] == self.vectors.changes:
                return 0  # every recall asks (fused.second_ready): a check of 10,000 hashes each time
            gap = len(self._lacking(snapshot))
            self._covered = (snapshot, self.vectors.changes) if gap == 0 else None
            return gap

    def _lacking(self, snapshot: "ContentState") -> list[str]:
        """Ids of `snapshot` with no vector for their content here, after adopting the saved ones."""
        wanted, _ = self._wanted(snapshot)
        store = self.vectors
        todo = store.missing(wanted)
        if todo:
            store.adopt({i: wanted[i] for i in todo})
            todo = store.missing({i: wanted[i] for i in todo})
        return sorted(todo)

    def fill_vectors(self, limit: int, chars: int | None = None) -> int:
        """Embed up to `limit` of the memories that lack this model's vector (a lazily filled second
        model), `chars` characters of text at most (always one memory), the model's work outside the
        lock; saved (or, warm, marked to save); returns how many still lack one."""
        with self._vec_lock:
            snapshot = self.repo.snapshot()
            wanted, rel_of = self._wanted(snapshot)
            todo = self._lacking(snapshot)[:max(0, limit)]
            texts = _within(chars, [vector_text(snapshot.memory(rel_of[i])) for i in todo])
            todo = todo[:len(texts)]
        if todo:
            vectors = self.embedder.embed(texts)
            with self._vec_lock:  # each vector is stored with the hash of the text it embeds
                self.vectors.upsert(todo, [wanted[i] for i in todo], vectors)
                self._vec_synced = None
                self._keep_vectors()
        return self.vector_gap()

    def _keep_vectors(self) -> None:
        """Save the vector matrix now, or (a warm engine) when the next save is due."""
        if self._deferred:
            self._unsaved.add("vectors")
            self._save_due()
        else:
            self.vectors.save()

    def query_vector(self, query: str) -> "np.ndarray":
        """The query's vector; the last RECENT_QUERIES are kept (hybrid recall and the write decision
        reuse the last one; a server is asked the same questions again, and the second model's query
        vector costs about 13 ms CPU)."""
        with self._vec_lock:
            recent = self._recent_queries
            vector = recent.pop(query, None)
            if vector is None:
                known = self._queries.get(query)  # a batch's asymmetric query vectors
                vector = known if known is not None else self._known.query(self.embedder, query)
                if len(recent) >= RECENT_QUERIES:
                    del recent[next(iter(recent))]  # the least recently asked
            recent[query] = vector
            return vector

    def prime(self, texts: Sequence[str]) -> None:
        """Embed texts about to be added, in one batch (before the write lock): the sync that finds
        their memories, and (for a model that embeds queries as documents) the write decision's
        query, take these vectors instead of embedding each text alone."""
        with self._vec_lock:
            self._known.prime(self.embedder, texts)

    def keep_written(self) -> None:
        """After this process wrote (under the write lock): bring the vector cache up to date when
        every vector it lacks is already known (the added texts, embedded as the write decision's
        queries), so the next process adopts them from disk instead of loading the model to embed
        them; otherwise leave them to the next sync, which embeds them."""
        with self._vec_lock:
            snapshot = self.repo.snapshot()
            if snapshot is self._vec_synced or self._vectors is None:
                return
            wanted, rel_of = self._wanted(snapshot)
            since = getattr(snapshot, "changed_since", None)  # own writes patched in: only those can lack one
            delta = since(self._vec_synced) if since is not None and self._vec_synced is not None else None
            missing = self._vectors.missing(wanted if delta is None else {i: wanted[i] for i in delta[0] if i in wanted})
            if all(vector_text(snapshot.memory(rel_of[i])) in self._known for i in missing if i in rel_of):
                self._sync_vectors(None)

    def semantic_search(self, query: str, limit: int, allowed: Collection[str] | None) -> list[tuple[str, float]]:
        """(id, cosine) best first among `allowed` ids (None: all), after syncing the vectors."""
        with self._vec_lock:
            self.sync_vectors()
            vector = self.query_vector(query)
            if allowed is not None and len(allowed) >= len(self.vectors):
                allowed = None  # everything is allowed: no row mask to build
            return self.vectors.search(vector, limit, allowed=allowed)

    def similarities(self, text: str, ids: Sequence[str]) -> dict[str, float]:
        """Cosine of `text` to each stored memory id."""
        if not ids:
            return {}
        with self._vec_lock:
            self.sync_vectors()
            return self.vectors.similarities(self.query_vector(text), list(ids))

    def line_runs(self, lines: Sequence[str], ids: Sequence[str], identities: Collection[str]
                  ) -> list[tuple[str, dict[str, list[float]]]]:
        """(identity, id -> the cosine of each line) when this model is one of `identities` (those a
        recall's runs came from): each line embedded as a query, in one batch where the model can."""
        identity = self.embedder.identity
        if identity not in identities or not lines or not ids:
            return []
        with self._vec_lock:
            self.sync_vectors()
            present = [i for i in ids if i in self.vectors]
            if not present:
                return []
            queries = self._line_vectors(lines)
            import numpy as np

            sims = np.stack([self.vectors.vector(i) for i in present]) @ queries.T  # type: ignore[misc]
        return [(identity, {i: [round(float(c), 6) for c in row] for i, row in zip(present, sims.tolist())})]

    def _line_vectors(self, lines: Sequence[str]) -> "np.ndarray":
        import numpy as np

        many = getattr(self.embedder, "embed_queries", None)
        if many is not None:
            return np.asarray(many(list(lines)), dtype=np.float32)
        return np.stack([self.query_vector(line) for line in lines])

    def text_similarities(self, pairs: Sequence[tuple[str, str]]) -> tuple[str, list[float]]:
        """The model's identity and the cosine of each pair of texts (both embedded as documents)."""
        from memctl.search.embedders import pair_cosines

        with self._vec_lock:  # kept: the write decision compares the same neighbours' texts add after add
            self._known.prime(self.embedder, [text for pair in pairs for text in pair])
            return pair_cosines(_Remembered(self.embedder, self._known), pairs)

    def pair_similarities(self, ids: Sequence[str], threshold: float, sync: bool = True) -> dict[tuple[str, str], float]:
        """Cosine for every pair of `ids` at or above `threshold` (ids sorted within a pair); with
        sync=False only vectors already cached are compared and the model is never loaded (nor numpy,
        when none is cached: `show` in a folder whose vectors were never made stays light)."""
        if not sync and self._vectors is None and not (self.cache / self._vectors_name / "meta.json").exists():
            return {}  # meta.json: search/vectors.py's META_FILE (that module imports numpy)
        import numpy as np

        if sync:
            self.sync_vectors()
        present = [i for i in ids if i in self.vectors]
        if len(present) < 2:
            return {}
        matrix = np.stack([self.vectors.vector(i) for i in present])  # type: ignore[misc]
        sims = matrix @ matrix.T
        out = {}
        rows, cols = np.nonzero(np.triu(sims >= threshold, k=1))
        for r, c in zip(rows.tolist(), cols.tolist()):
            a, b = sorted((present[r], present[c]))
            out[(a, b)] = float(sims[r, c])
        return out

    # -- maintenance ---------------------------------------------------------------
    def rebuild(self, vectors: bool = True, progress: Callable[[str, int], None] | None = None) -> int:
        """Drop the keyword index and rebuild it (and re-sync the vectors); returns how many were embedded."""
        for name in ("keyword-state.json", "keyword-state.digest"):
            (self.cache / name).unlink(missing_ok=True)
        # The index is rebuilt in place (whoosh replaces every segment in one commit), never deleted:
        # other processes may be reading it.
        self._kw_synced, self._vec_synced = None, None
        tick = progress or (lambda stage, n: None)
        self.sync_keyword(force=True, progress=lambda n: tick("keyword", n))
        if not vectors:
            return 0
        embedded = self.sync_vectors(progress=lambda n: tick("vectors", n))
        tick("vectors", len(self.repo.snapshot().order))
        return embedded

    def prepare(self, text: str | None = None) -> None:
        """Do the slow part of a similarity query now, before the caller takes the write lock: load
        the model, embed what changed on disk, embed `text`. Under the lock only what other writers
        added since is left to embed."""
        self.sync_vectors()
        if text is not None:
            self.query_vector(text)

    def warm_up(self) -> None:
        """Load the embedding model and bring both caches up to date, so the next query is fast."""
        embedder = self.embedder
        load = getattr(embedder, "load", None)
        if load is not None:
            load()  # fastembed itself (writes embed through it), not only the query encoder
        embedder.embed_query("warm up")
        self.sync_keyword()
        self.keyword.keep()  # its postings in memory: queries scored with numpy (search/postings.py)
        self.sync_vectors()
        self.defer_saves()

    def defer_saves(self) -> None:
        """From now on write the whole-directory cache files at most every SAVE_SECONDS (`flush`
        writes them at once): for a long-running process, whose memory holds the current state."""
        self._deferred, self._saved_at = True, time.monotonic()


class _Remembered:
    """An embedder that takes the vectors of texts already embedded (Engine._known) instead of
    embedding them again; the rest in one batch."""

    def __init__(self, embedder: "Embedder", known: KnownVectors) -> None:
        self.embedder, self.known = embedder, known
        self.identity, self.dim = embedder.identity, embedder.dim

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        return self.known.embed(self.embedder, texts)

    def embed_query(self, text: str) -> "np.ndarray":
        return self.embedder.embed_query(text)
