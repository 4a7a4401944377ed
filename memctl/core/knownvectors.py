"""Document vectors by text, kept a little while: a text about to be added is embedded once.

A write embeds its text as the write decision's query, and the next sync embeds the stored memory's
body, the same text, as a document. For a model that embeds a query as it embeds a document (no
query prefix: `symmetric`), the query's vector is kept here and the sync takes it; `prime` embeds
the texts of a group of adds in one batch. Bounded: the oldest go first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

KNOWN = 1024  # texts whose vectors are kept (1.5 MB at 384 dimensions)


class KnownVectors:
    """text -> document vector, at most `limit` of them."""

    def __init__(self, limit: int = KNOWN) -> None:
        self.limit = limit
        self._vectors: dict[str, Any] = {}

    def __contains__(self, text: object) -> bool:
        return text in self._vectors

    def get(self, text: str) -> Any:
        return self._vectors.get(text)

    def remember(self, vectors: Mapping[str, Any]) -> None:
        self._vectors.update(vectors)
        for text in list(self._vectors)[:max(len(self._vectors) - self.limit, 0)]:
            del self._vectors[text]

    def prime(self, embedder: Any, texts: Sequence[str]) -> None:
        """Embed the texts not known yet, in one batch."""
        todo = [t for t in dict.fromkeys(texts) if t and t not in self._vectors][:self.limit]
        if todo:
            self.remember(dict(zip(todo, embedder.embed(todo))))

    def embed(self, embedder: Any, texts: Sequence[str]) -> Any:
        """The (n, dim) matrix of `texts`' document vectors: known ones taken, the rest embedded in one batch."""
        import numpy as np

        todo = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        fresh = dict(zip(todo, embedder.embed(todo))) if todo else {}
        if not texts:
            return embedder.embed([])
        return np.stack([fresh[t] if t in fresh else self._vectors[t] for t in texts])

    def query(self, embedder: Any, text: str) -> Any:
        """A query's vector: the known document vector when the model is symmetric (kept then)."""
        symmetric = getattr(embedder, "symmetric", False)
        known = self._vectors.get(text) if symmetric else None
        vector = known if known is not None else embedder.embed_query(text)
        if symmetric:
            self.remember({text: vector})
        return vector
