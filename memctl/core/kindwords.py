"""The words that name a kind, per language (`words = { en = ["car"], zh = ["汽车"] }`), checked
(a rule file may come from anyone: nothing in it grows without bound). Standard library only: recall
reads them for every query without loading the kinds' schemas."""

from __future__ import annotations

import re
from typing import Any

MAX_WORDS = 64  # words a language
MAX_WORD = 40  # characters a word
_LANGUAGE = re.compile(r"[a-z]{2,3}")


def check_words(value: Any, most: int = MAX_WORDS) -> dict[str, list[str]]:
    """The words as {language: [word, ...]}, stripped, at most `most` a language; ValueError with a
    one-line reason otherwise."""
    if not isinstance(value, dict):
        raise ValueError("words: a table of languages, each a list of words ({en = [\"car\"]})")
    out = {}
    for language, words in value.items():
        if not isinstance(language, str) or not _LANGUAGE.fullmatch(language):
            raise ValueError(f"words: {language!r} is not a language code (en, zh)")
        if not isinstance(words, list) or len(words) > most:
            raise ValueError(f"words.{language}: a list of at most {most} words")
        bad = next((w for w in words if not isinstance(w, str) or not w.strip() or len(w) > MAX_WORD
                    or any(c in w for c in "\n\r\t\x00")), None)
        if bad is not None:
            raise ValueError(f"words.{language}: {bad!r} is not a word of one line (1-{MAX_WORD} characters)")
        out[language] = [w.strip() for w in words]
    return out
