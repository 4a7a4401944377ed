"""Document vectors by text, kept a little while: a text about to be added is embedded once.

A write embeds its text as the write decision's query, and the next sync embeds the stored memory's
body, the same text, as a document. For a model that embeds a query as it embeds a document (no
query prefix: `symmetric`), the query's vector is kept here and the sync takes it; `prime` embeds
the texts of a group of adds in one batch. Bounded: the oldest go first.
"""

from __future__ import annotations

import threading
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

    def todo(self, texts: Sequence[str]) -> list[str]:
        """The texts `prime` would embed now: those not known yet, each once, in order."""
        return [t for t in dict.fromkeys(texts) if t and t not in self._vectors][:self.limit]

    def prime(self, embedder: Any, texts: Sequence[str], ahead: "Ahead | None" = None) -> None:
        """Embed the texts not known yet, in one batch: `ahead`'s vectors when it embedded exactly
        those texts (the same call, so the same vectors), else now."""
        todo = self.todo(texts)
        if todo:
            ready = ahead.vectors_for(todo) if ahead is not None else None
            self.remember(dict(zip(todo, ready if ready is not None else embedder.embed(todo))))

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


class Ahead:
    """One batch of texts embedded in a worker thread (the runtime lets the GIL go), while the caller
    does other work, e.g. writes the batch before: what `KnownVectors.prime` takes when the texts it
    needs then are the same. A failure leaves nothing: the batch embeds its texts itself and meets
    the error there."""

    def __init__(self, embedder: Any, todo: list[str]) -> None:
        self.todo = todo
        self._vectors: Any = None
        self._thread = threading.Thread(target=self._run, args=(embedder,), name="memctl-embed-ahead", daemon=True)
        self._thread.start()

    def _run(self, embedder: Any) -> None:
        try:
            self._vectors = embedder.embed(self.todo) if self.todo else None
        except Exception:  # the batch embeds these itself and raises there
            self._vectors = None

    def vectors_for(self, todo: list[str]) -> Any:
        """The vectors of `todo` when they are what was embedded ahead (after waiting for them), else None."""
        self._thread.join()
        return self._vectors if todo == self.todo else None
