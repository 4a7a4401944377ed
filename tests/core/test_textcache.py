"""A memo of a function of one text keeps short and long texts in bounded caches and very long
ones in none (core/textcache.py), so a long-lived server's memory is bounded in bytes."""

from __future__ import annotations

from memctl.core.textcache import LONG_CHARS, SHORT_CHARS, text_cache


def test_texts_are_kept_by_length_and_the_longest_never() -> None:
    calls: list[int] = []

    @text_cache(short=2, long=1)
    def size(text: str) -> int:
        calls.append(len(text))
        return len(text)

    texts = ["a", "b" * SHORT_CHARS, "c" * (SHORT_CHARS + 1), "d" * LONG_CHARS, "e" * (LONG_CHARS + 1)]
    assert [size(t) for t in texts] == [size(t) for t in texts] == [len(t) for t in texts]
    # kept: both short ones, the last long one; computed again: the first long one, the longest
    assert calls == [len(t) for t in texts] + [SHORT_CHARS + 1, LONG_CHARS, LONG_CHARS + 1]
    small, big = size.cache_info()  # type: ignore[attr-defined]
    assert (small.currsize, big.currsize) == (2, 1)
    size.cache_clear()  # type: ignore[attr-defined]
    assert size.cache_info()[0].currsize == 0  # type: ignore[attr-defined]


def test_the_decision_keeps_no_very_long_text() -> None:
    from memctl.policy.decide import _token_pairs, fingerprint, tokens

    fingerprint.cache_clear()  # type: ignore[attr-defined]
    _token_pairs.cache_clear()  # type: ignore[attr-defined]
    text = "Alice lives in Lisbon. " * 1000
    assert fingerprint(text) == fingerprint(text) and len(tokens(text)) > 1000
    assert [info.currsize for info in fingerprint.cache_info()] == [0, 0]  # type: ignore[attr-defined]
    assert [info.currsize for info in _token_pairs.cache_info()] == [0, 0]  # type: ignore[attr-defined]
    assert fingerprint("Alice lives in Lisbon") == fingerprint("alice  lives in lisbon.")
