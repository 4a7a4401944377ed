"""A memo of a function of one text, bounded in bytes (pure, no I/O).

`functools.lru_cache` bounds how many texts it keeps, not how long they are: a long-lived server
that fingerprints a few thousand 1 MB candidates (refused by the gate afterwards) would keep every
one of them. Here short texts, the usual memory, share one cache; longer ones a smaller one; texts
longer still are computed each time and never kept. Both caches are C lru_caches (as fast).
"""

from __future__ import annotations

from functools import lru_cache, wraps
from typing import Callable, TypeVar

T = TypeVar("T")
SHORT_CHARS = 256  # a memory is mostly shorter
LONG_CHARS = 4096  # twice the gate's cap on a memory's length


def text_cache(short: int, long: int) -> Callable[[Callable[[str], T]], Callable[[str], T]]:
    """Memoise `fn(text)`: `short` texts of at most SHORT_CHARS, `long` of at most LONG_CHARS, none
    longer (at most short*1 KB + long*16 KB of text, at 4 bytes a character)."""

    def wrap(fn: Callable[[str], T]) -> Callable[[str], T]:
        small, big = lru_cache(maxsize=short)(fn), lru_cache(maxsize=long)(fn)

        @wraps(fn)
        def cached(text: str) -> T:
            size = len(text)
            return small(text) if size <= SHORT_CHARS else big(text) if size <= LONG_CHARS else fn(text)

        def cache_clear() -> None:
            small.cache_clear()
            big.cache_clear()

        cached.cache_clear = cache_clear  # type: ignore[attr-defined]
        cached.cache_info = lambda: (small.cache_info(), big.cache_info())  # type: ignore[attr-defined]
        return cached

    return wrap
