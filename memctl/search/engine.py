"""The search engine: keeps the keyword index and the vectors in step with the files, and queries them.

Both are caches under `.memctl/`. Each records the content hash it indexed per memory, so any
command that reads (in any process) brings them up to date; cost grows with the number of changes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection, Sequence

from memctl.core.models import Memory
from memctl.store.files import CACHE_DIR, file_lock, write_atomic

if TYPE_CHECKING:  # heavy modules: imported only when a search needs them
    from memctl.store.catalog import Snapshot
    from memctl.search.keyword import KeywordDoc, KeywordIndex
    from memctl.search.vectors import VectorStore


def keyword_doc(memory: Memory) -> "KeywordDoc":
    from memctl.search.entities import extract_entities
    from memctl.search.keyword import KeywordDoc

    entities = list(dict.fromkeys([*memory.entities, *extract_entities(memory.body)]))
    return KeywordDoc(id=memory.id, body=memory.body, tags=memory.tags, key=memory.key, name=memory.name,
                      description=memory.description, entities=entities,
                      when=memory.created.strftime("%B %Y"))


def vector_text(memory: Memory) -> str:
    """The text embedded for a memory: its body (names and tags live in the keyword index)."""
    return memory.body


def _digest(wanted: dict[str, str]) -> str:
    """One hash of every (id, content hash) pair: equal digests mean nothing to re-index."""
    return hashlib.sha1("".join(sorted(f"{k}{v}" for k, v in wanted.items())).encode()).hexdigest()


def _wanted(snapshot: "Snapshot") -> tuple[dict[str, str], dict[str, str]]:
    """id -> file content hash, and id -> relative path, for every memory of the snapshot."""
    wanted, rel_of = {}, {}
    for rel in snapshot.order:
        entry = snapshot.entries[rel]
        wanted[entry.data["id"]] = entry.hash
        rel_of[entry.data["id"]] = rel
    return wanted, rel_of


class Engine:
    """Keyword + vector caches of one memory directory."""

    def __init__(self, root: Path, model: str, embedder: object = None) -> None:
        self.cache = root / CACHE_DIR
        self.model = model
        self._embedder = embedder
        self._keyword: KeywordIndex | None = None
        self._vectors: VectorStore | None = None
        self._kw_synced: object = None
        self._vec_synced: object = None
        self._last_query: tuple | None = None
        self._wanted_for: tuple | None = None

    def _wanted(self, snapshot: "Snapshot") -> tuple[dict[str, str], dict[str, str]]:
        """`_wanted` of a snapshot, computed once even when both caches sync from it."""
        if self._wanted_for is None or self._wanted_for[0] is not snapshot:
            self._wanted_for = (snapshot, _wanted(snapshot))
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
            data = json.loads(self._state_path().read_text(encoding="utf-8"))
            return data if isinstance(data, dict) and isinstance(data.get("docs"), dict) else {}
        except (OSError, ValueError):
            return {}

    def sync_keyword(self, snapshot: "Snapshot", force: bool = False,
                     progress: Callable[[int], None] | None = None) -> int:
        """Bring the keyword index in line with the snapshot; returns how many docs changed.

        Keyed by each file's content hash, so only changed files are re-indexed; a snapshot
        already synced by this engine costs nothing.
        """
        if snapshot is self._kw_synced and not force:
            return 0
        wanted, rel_of = self._wanted(snapshot)
        digest = _digest(wanted)
        index = self.keyword
        if (not force and self._read_digest() == digest and not index.was_reset
                and (index.doc_count() > 0 or not wanted)):
            self._kw_synced = snapshot  # the common case: nothing changed since the last sync
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
        self._kw_synced = snapshot
        return len(changed) + len(removed)

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
        if allowed is not None and self._kw_synced is not None and len(allowed) >= len(self._kw_synced.order):
            allowed = None  # everything is allowed: skip the per-hit filter
        return self.keyword.search(query, limit=limit, allowed=allowed)

    # -- vectors ---------------------------------------------------------------
    @property
    def embedder(self):  # -> Embedder
        if self._embedder is None:
            from memctl.search.embedders import get_embedder

            self._embedder = get_embedder(self.model, self.cache / "models")
        return self._embedder

    @property
    def vectors(self) -> "VectorStore":
        if self._vectors is None:
            from memctl.search.vectors import VectorStore

            emb = self.embedder
            self._vectors = VectorStore(self.cache / "vectors", emb.identity, emb.dim)
            self._vectors.load()
        return self._vectors

    def sync_vectors(self, snapshot: "Snapshot",
                     progress: Callable[[int], None] | None = None) -> int:
        """Embed new or changed memories, drop vanished ones; returns how many were embedded."""
        if snapshot is self._vec_synced:
            return 0
        from memctl.search.vectors import sync_store

        wanted, rel_of = self._wanted(snapshot)
        self.cache.mkdir(parents=True, exist_ok=True)
        todo = sync_store(self.vectors, self.embedder, wanted,
                          lambda i: vector_text(snapshot.memory(rel_of[i])), progress)
        self._vec_synced = snapshot
        return todo

    def query_vector(self, query: str):  # -> np.ndarray; the last one is kept (hybrid uses it twice)
        if self._last_query is None or self._last_query[0] != query:
            self._last_query = (query, self.embedder.embed_query(query))
        return self._last_query[1]

    def semantic_search(self, query: str, limit: int, allowed: Collection[str] | None) -> list[tuple[str, float]]:
        vector = self.query_vector(query)
        if allowed is not None and len(allowed) >= len(self.vectors):
            allowed = None  # everything is allowed: no row mask to build
        return self.vectors.search(vector, limit, allowed=allowed)

    def similarities(self, text: str, ids: Sequence[str]) -> dict[str, float]:
        """Cosine of `text` to each stored memory id (vectors must be synced)."""
        if not ids:
            return {}
        return self.vectors.similarities(self.query_vector(text), list(ids))

    def pair_similarities(self, ids: Sequence[str], threshold: float) -> dict[tuple[str, str], float]:
        """Cosine for every pair of `ids` at or above `threshold` (ids sorted within a pair)."""
        import numpy as np

        present = [i for i in ids if self.vectors.vector(i) is not None]
        if len(present) < 2:
            return {}
        matrix = np.stack([self.vectors.vector(i) for i in present])
        sims = matrix @ matrix.T
        out = {}
        rows, cols = np.nonzero(np.triu(sims >= threshold, k=1))
        for r, c in zip(rows.tolist(), cols.tolist()):
            a, b = sorted((present[r], present[c]))
            out[(a, b)] = float(sims[r, c])
        return out
