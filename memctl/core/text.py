"""Text analysis shared by every layer: the CJK ranges, word stemming and search terms (one copy each).

The keyword index (whoosh or PostgreSQL), the write decision and the hashing embedder all read
text through these functions, so a query is analysed exactly like the memories it should find.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from whoosh.lang.porter2 import stem as _porter2  # a pure function: no index is touched

from memctl.core.patterns import lazy_pattern

# Hangul Jamo, kana, Hangul compatibility Jamo, CJK ideographs (extension A and unified), Hangul
# extended-A and syllables, compatibility ideographs, half-width katakana.
CJK_RANGES = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)
_cjk_char = lazy_pattern(f"[{CJK_RANGES}]")

# Negations are deliberately absent: "does not like coffee" must not match
# like "likes coffee" as strongly as the positive statement does.
STOP_WORDS = frozenset(
    """a an and are as at be been being but by did do does for from had has have
    he her hers him his i if in into is it its itself me my of on or our ours she
    so than that the their theirs them then there these they this those to too
    us was we were what when where which while who whom why will with would you
    your yours""".split()
)

_WORD_CHAR = rf"[^\W{CJK_RANGES}]"
_token_re = lazy_pattern(
    rf"(?P<cjk>[{CJK_RANGES}]+)"
    rf"|(?P<word>{_WORD_CHAR}+(?:[-.'\u2019/]{_WORD_CHAR}+)*)"
)
# The same tokens for ASCII text, where no CJK run can occur and a word character is \w: English
# queries and memories never compile the CJK classes above (core/patterns.py says why that matters).
_ASCII_TOKEN_RE = re.compile(r"(?P<word>\w+(?:[-.'/]\w+)*)")
_SEPARATOR_RE = re.compile(r"[-_./]+")
# lower->Upper ("createOrder") and ACRONYMWord ("HTTPServer") boundaries.
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_APOSTROPHES = "'\u2019"


def is_cjk(char: str) -> bool:
    """True for a Chinese, Japanese or Korean character."""
    return not char.isascii() and bool(_cjk_char().match(char))


def fold(text: str) -> str:
    """Lower-case and strip accents so "Café" matches "cafe"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


@lru_cache(maxsize=1 << 16)  # a store's vocabulary is small; Porter2 in Python is ~80 us a word
def stem(word: str) -> str:
    """The one English stemmer (Porter2): plain ASCII words only; identifiers, numbers and CJK pass."""
    if word.isascii() and word.isalpha():
        return _porter2(word.lower())
    return word


def cjk_grams(run: str, index: bool) -> list[str]:
    """Overlapping character bigrams of a CJK run (plus unigrams when indexing).

    Unigrams are indexed so a one-character query can match, but a longer
    query uses bigrams only: single characters are too common to rank by.
    """
    if len(run) == 1:
        return [run]
    grams = [run[i : i + 2] for i in range(len(run) - 1)]
    return list(run) + grams if index else grams


def _contraction(word: str) -> list[str]:
    """Terms for a word with an apostrophe: possessive dropped, n't kept as "not"."""
    for mark in _APOSTROPHES:
        word = word.replace(mark, "'")
    head, _, tail = word.partition("'")
    if tail == "s" or not head:
        return [fold(head)] if head else []
    terms = [fold(word.replace("'", ""))]
    return terms + ["not"] if tail == "t" and head.lower().endswith("n") else terms


RAW_TERMS_KEPT = 2048  # texts whose terms `raw_terms` keeps (a few MB for memories of a few sentences)


def word_terms(word: str) -> list[str]:
    """The whole identifier plus its parts: createOrder -> createorder, create, order."""
    if any(mark in word for mark in _APOSTROPHES):
        return _contraction(word)
    parts = [fold(piece) for chunk in _SEPARATOR_RE.split(word) for piece in _CAMEL_RE.split(chunk) if piece]
    whole = fold(word).strip("_")
    if len(parts) <= 1:
        return [whole] if whole else []
    return list(dict.fromkeys([whole, *parts]))


@lru_cache(maxsize=RAW_TERMS_KEPT)
def raw_terms(text: str, index: bool) -> tuple[tuple[str, int, int], ...]:
    """(term, start, end) of every word, identifier part and CJK gram, before stop words and stemming.
    The last texts' are kept: a warm server's recalls read the same memories' words again (the
    constraints that ride along, the names a hit says), and splitting them was a tenth of its CPU."""
    out: list[tuple[str, int, int]] = []
    text = unicodedata.normalize("NFKC", text)
    for match in (_ASCII_TOKEN_RE if text.isascii() else _token_re()).finditer(text):
        grams = cjk_grams(match.group(), index) if match.lastgroup == "cjk" else word_terms(match.group())
        out.extend((term, match.start(), match.end()) for term in grams)
    return tuple(out)


def search_terms(text: str, mode: str = "query") -> list[str]:
    """The terms a keyword index holds for `text` (mode "index") or looks up for it (mode "query")."""
    return [stem(term) for term, _, _ in raw_terms(text, mode != "query") if term not in STOP_WORDS]


def cjk_share(text: str) -> float:
    """The share of a text's letters and CJK characters that are CJK (0 for text with neither)."""
    letters = [c for c in text if c.isalpha()]
    if not letters or text.isascii():
        return 0.0
    return sum(1 for c in letters if is_cjk(c)) / len(letters)


def text_language(text: str) -> str:
    """"zh" for text written mostly in CJK characters (Chinese, and Japanese or Korean alike: one
    multilingual model reads them all), else "en". An English word or name in a Chinese sentence
    ("Hank 搬到了上海") does not make it English: three CJK characters in ten letters are enough."""
    return "zh" if cjk_share(text) >= 0.3 else "en"
