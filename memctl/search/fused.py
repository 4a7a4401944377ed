"""Search with a second embedding model: recall fuses both models' cosines with BM25.

The primary engine answers everything (keyword search, the write path's similarities, dedupe);
the second engine only adds its cosine run to recall and keeps its own vector cache, so the
write path's thresholds, which are the primary model's, never change meaning.

The second model costs about five times the first per text, so its vectors are filled lazily: a
build (`rebuild`, the first sync) embeds the primary model only; each recall embeds up to
FILL_PER_COMMAND of the memories the second model lacks (FILL_CHARS of text), a warm process (`memctl serve`) fills the
rest in a background thread, `fill` (`memctl reindex --full`) all at once. Until the second model
covers every memory, recall fuses nothing from it: its output is the primary model's alone, exactly
what `second_model = "none"` gives, never a fusion over part of the memories. A query recalled by the
second model alone (a Chinese one beside the English-only shipped model) embeds everything it lacks first.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any, Callable, Collection, Protocol, Sequence, Union, runtime_checkable

from memctl.store.repository import LineSearch, SearchIndex

Run = list[tuple[str, float]]
FILL_PER_COMMAND = 32  # second-model vectors a recall embeds while they are incomplete (~0.4 s of e5)
# ... and at most this many characters of them (at least one memory): e5 costs about 1 ms CPU a
# character, so 32 memories of 1,500 characters made one fresh recall take 15-24 s; 32 short ones fit
FILL_CHARS = 4000
FILL_CHUNK = 16  # a background fill's step: a recall waits at most one step for the engine's lock


class ModelSearch(SearchIndex, Protocol):
    """One model's search (search/engine.Engine over files, PostgresSearch in a database)."""

    @property
    def embedder(self) -> Any: ...

    def sync_vectors(self, progress: Callable[[int], None] | None = None) -> int: ...


@runtime_checkable
class FillsLazily(Protocol):
    """A model's search whose vectors can be counted and filled a bounded amount at a time (the
    folder's engine; a database's second model is synced as before)."""

    def vector_gap(self) -> int: ...

    def fill_vectors(self, limit: int, chars: int | None = None) -> int: ...


class TwoModelSearch:
    """The SearchIndex of a directory whose recall fuses two embedding models."""

    def __init__(self, primary: ModelSearch, second: ModelSearch,
                 recall_primary: Union[bool, Callable[[str], bool]] = True) -> None:
        self.primary = primary
        self.second = second
        # False: recall uses the second model's cosines alone; a callable decides per query (by its language)
        self.recall_primary = recall_primary
        self._filler: threading.Thread | None = None
        self._stop = threading.Event()

    def uses_primary(self, query: str) -> bool:
        """Whether recall fuses the primary model's cosines for `query`."""
        return self.recall_primary(query) if callable(self.recall_primary) else self.recall_primary

    def __getattr__(self, name: str) -> Any:
        """Everything not listed here (what the write path and maintenance call) is the primary's."""
        if name in ("primary", "second"):  # not set yet (copy, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.primary, name)

    def keyword_search(self, query: str, limit: int, allowed: Collection[str] | None) -> Run:
        """BM25F scores, from the primary engine."""
        return self.primary.keyword_search(query, limit, allowed)

    def keyword_coverage(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """IDF-weighted share of the query's terms each memory holds."""
        return self.primary.keyword_coverage(query, ids)

    def query_coverage(self, query: str, plain: bool = False) -> float:
        """The share of the query's weighted terms some memory holds, from the primary engine."""
        return self.primary.query_coverage(query, plain)

    def semantic_search(self, query: str, limit: int, allowed: Collection[str] | None) -> Run:
        """Cosines of the primary model (what the write path and `similarities` use)."""
        return self.primary.semantic_search(query, limit, allowed)

    def semantic_runs(self, query: str, limit: int, allowed: Collection[str] | None) -> list[tuple[str, Run]]:
        """(identity, cosine run) of both models, the primary first; the primary's alone while the
        second does not cover every memory. A query the second model answers alone (Chinese, beside
        the English-only shipped model) waits for it instead: its search embeds what it lacks."""
        if not self.uses_primary(query):
            return self.second.semantic_runs(query, limit, allowed)
        if not self.second_ready():
            return self.primary.semantic_runs(query, limit, allowed)
        return self.primary.semantic_runs(query, limit, allowed) + self.second.semantic_runs(query, limit, allowed)

    def second_ready(self) -> bool:
        """Whether the second model covers every memory, after embedding up to FILL_PER_COMMAND of
        those it lacks, FILL_CHARS of text at most (none while a background fill runs: a recall never
        waits for it)."""
        if not isinstance(self.second, FillsLazily):
            return True  # synced in full by its own semantic search, as before
        if self._filler is not None and self._filler.is_alive():
            return False
        gap = self.second.vector_gap()
        return gap == 0 or self.second.fill_vectors(FILL_PER_COMMAND, FILL_CHARS) == 0

    def hybrid_runs(self, query: str, limit: int, allowed: Collection[str] | None) -> tuple[Run, list[tuple[str, Run]]]:
        """The primary's keyword hits, then both models' runs."""
        return self.keyword_search(query, limit, allowed), self.semantic_runs(query, limit, allowed)

    def line_runs(self, lines: Sequence[str], ids: Sequence[str], identities: Collection[str]
                  ) -> list[tuple[str, dict[str, list[float]]]]:
        """Each line's cosines to `ids` by each model of `identities` (the recall's), the primary first."""
        return [run for engine in (self.primary, self.second) if isinstance(engine, LineSearch)
                for run in engine.line_runs(lines, ids, identities)]

    def similarities(self, text: str, ids: Sequence[str]) -> dict[str, float]:
        """Cosines of the primary model."""
        return self.primary.similarities(text, ids)

    def text_similarities(self, pairs: Sequence[tuple[str, str]]) -> tuple[str, list[float]]:
        """The primary model's (the write path's model)."""
        return self.primary.text_similarities(pairs)

    def second_text_similarities(self, pairs: Sequence[tuple[str, str]]) -> tuple[str, list[float]]:
        """The second model's identity and cosines of each pair of texts (both embedded as documents)."""
        return self.second.text_similarities(pairs)

    def pair_similarities(self, ids: Sequence[str], threshold: float, sync: bool = True) -> dict[tuple[str, str], float]:
        """Pairwise cosines of the primary model."""
        return self.primary.pair_similarities(ids, threshold, sync)

    def rebuild(self, vectors: bool = True, progress: Callable[[str, int], None] | None = None) -> int:
        """Rebuild the primary's caches (the second model's vectors are filled lazily: `fill`);
        returns how many were embedded."""
        embedded = self.primary.rebuild(vectors, progress)
        if vectors and not isinstance(self.second, FillsLazily):
            tick = progress or (lambda stage, n: None)
            embedded += self.second.sync_vectors(progress=lambda n: tick("vectors (second model)", n))
        return embedded

    def pending(self) -> int:
        """Memories the second model has no vector for yet (0 when it is synced in full as it goes)."""
        return self.second.vector_gap() if isinstance(self.second, FillsLazily) else 0

    def fill(self, progress: Callable[[str, int], None] | None = None) -> int:
        """Embed every memory the second model lacks now (`memctl reindex --full`); returns how many."""
        tick = progress or (lambda stage, n: None)
        return self.second.sync_vectors(progress=lambda n: tick("vectors (second model)", n))

    def warm_up(self) -> None:
        """Load both models and bring the primary's caches up to date; the second model's missing
        vectors are filled by a background thread (recall fuses it once they are complete)."""
        self.primary.warm_up()
        load = getattr(self.second.embedder, "load", None)
        if load is not None:
            load()
        getattr(self.second, "defer_saves", lambda: None)()
        if isinstance(self.second, FillsLazily) and self.second.vector_gap():
            self._stop.clear()
            self._filler = threading.Thread(target=self._fill_in_background, name="memctl-fill-second", daemon=True)
            self._filler.start()
        else:
            self.second.sync_vectors()

    def _fill_in_background(self) -> None:
        """Fill the second model's vectors FILL_CHUNK at a time, at a lower priority than requests."""
        assert isinstance(self.second, FillsLazily)
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)  # this thread only (Linux)
        try:
            while not self._stop.is_set() and self.second.fill_vectors(FILL_CHUNK):
                pass
        except Exception:  # a cache: recall keeps the primary alone, the next process retries
            import logging

            logging.getLogger(__name__).warning("filling the second model's vectors failed", exc_info=True)

    def flush(self) -> None:
        """Stop a background fill, then write what either model's engine has not saved yet."""
        self._stop.set()
        if self._filler is not None:
            self._filler.join(timeout=60)
        for engine in (self.primary, self.second):
            getattr(engine, "flush", lambda: None)()
