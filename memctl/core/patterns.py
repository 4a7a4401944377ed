"""Regular expressions compiled on first use, for the ones a command may well never need.

A character class over the CJK ranges takes Python's `re` 4-10 ms to compile (it builds a bitmap
of every code point in them), and a module-level table of them is paid by every process that
imports the module: a fresh `memctl recall` over English text used none of the 35 ms it spent.
"""

from __future__ import annotations

import functools
import re
from typing import Callable


def lazy_pattern(source: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A function returning `re.compile(source, flags)`, compiled on its first call and kept."""

    @functools.cache
    def compiled() -> re.Pattern[str]:
        return re.compile(source, flags)

    return compiled
