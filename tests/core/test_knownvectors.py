"""KnownVectors: a text is embedded once while it is kept, and at most `limit` texts are kept."""

from __future__ import annotations

import numpy as np

from memctl.core.knownvectors import KnownVectors


class Counting:
    """An embedder that counts the texts it is asked to embed."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def embed(self, texts):
        self.asked += list(texts)
        return np.array([[float(len(t)), 1.0] for t in texts]).reshape(len(texts), 2)


def test_texts_compared_again_are_not_embedded_again() -> None:
    known, emb = KnownVectors(), Counting()
    first = known.embed(emb, ["my phone is an iPhone 13", "I switched to a Pixel 8"])
    again = known.embed(emb, ["I switched to a Pixel 8", "my phone is an iPhone 13", "Carol is my manager"])
    assert emb.asked == ["my phone is an iPhone 13", "I switched to a Pixel 8", "Carol is my manager"]
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[1], first[0])


def test_at_most_limit_texts_are_kept_the_oldest_go_first() -> None:
    known, emb = KnownVectors(limit=2), Counting()
    known.embed(emb, ["a", "bb", "ccc"])
    assert "a" not in known and "bb" in known and "ccc" in known
