"""Search with a second embedding model: recall fuses both models' cosines with BM25.

The primary engine answers everything (keyword search, the write path's similarities, dedupe);
the second engine only adds its cosine run to recall and keeps its own vector cache, so the
write path's thresholds, which are the primary model's, never change meaning.
"""

from __future__ import annotations

from typing import Any, Callable, Collection, Protocol, Sequence, Union

from memctl.store.repository import SearchIndex

Run = list[tuple[str, float]]


class ModelSearch(SearchIndex, Protocol):
    """One model's search (search/engine.Engine over files, PostgresSearch in a database)."""

    @property
    def embedder(self) -> Any: ...

    def sync_vectors(self, progress: Callable[[int], None] | None = None) -> int: ...


class TwoModelSearch:
    """The SearchIndex of a directory whose recall fuses two embedding models."""

    def __init__(self, primary: ModelSearch, second: ModelSearch,
                 recall_primary: Union[bool, Callable[[str], bool]] = True) -> None:
        self.primary = primary
        self.second = second
        # False: recall uses the second model's cosines alone; a callable decides per query (by its language)
        self.recall_primary = recall_primary

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
        """(identity, cosine run) of both models, the primary first (or the second alone)."""
        second = self.second.semantic_runs(query, limit, allowed)
        return self.primary.semantic_runs(query, limit, allowed) + second if self.uses_primary(query) else second

    def hybrid_runs(self, query: str, limit: int, allowed: Collection[str] | None) -> tuple[Run, list[tuple[str, Run]]]:
        """The primary's keyword hits, then both models' runs."""
        return self.keyword_search(query, limit, allowed), self.semantic_runs(query, limit, allowed)

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
        """Rebuild the primary's caches, then the second model's vectors; returns how many were embedded."""
        embedded = self.primary.rebuild(vectors, progress)
        if vectors:
            tick = progress or (lambda stage, n: None)
            embedded += self.second.sync_vectors(progress=lambda n: tick("vectors (second model)", n))
        return embedded

    def warm_up(self) -> None:
        """Load both models and bring every cache up to date."""
        self.primary.warm_up()
        load = getattr(self.second.embedder, "load", None)
        if load is not None:
            load()
        self.second.sync_vectors()
        getattr(self.second, "defer_saves", lambda: None)()

    def flush(self) -> None:
        """Write what either model's engine has not saved yet."""
        for engine in (self.primary, self.second):
            getattr(engine, "flush", lambda: None)()
