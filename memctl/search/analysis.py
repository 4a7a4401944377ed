"""Text analysis for the keyword index: English stemming, CJK bigrams, identifiers.

One analyzer serves every field at index and query time, so a query is
analysed exactly like the memories it should find.  The analyzer object is
pickled into the whoosh index; its classes must stay importable by these names
(bump ``ANALYZER_VERSION`` whenever token output changes, so stale indexes are
rebuilt instead of silently mismatching).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from whoosh.analysis import Analyzer, StemFilter, StopFilter, Token, Tokenizer
from whoosh.lang.porter2 import stem as _porter2

ANALYZER_VERSION = 2

# Negations are deliberately absent: "does not like coffee" must not match
# like "likes coffee" as strongly as the positive statement does.
STOP_WORDS = frozenset(
    """a an and are as at be been being but by did do does for from had has have
    he her hers him his i if in into is it its itself me my of on or our ours she
    so than that the their theirs them then there these they this those to too
    us was we were what when where which while who whom why will with would you
    your yours""".split()
)

_CJK = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)
_WORD_CHAR = rf"[^\W{_CJK}]"
_TOKEN_RE = re.compile(
    rf"(?P<cjk>[{_CJK}]+)"
    rf"|(?P<word>{_WORD_CHAR}+(?:[-.'\u2019/]{_WORD_CHAR}+)*)"
)
_SEPARATOR_RE = re.compile(r"[-_./]+")
# lower->Upper ("createOrder") and ACRONYMWord ("HTTPServer") boundaries.
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_APOSTROPHES = "'\u2019"


def _fold(text: str) -> str:
    """Lower-case and strip accents so "Café" matches "cafe"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


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
        return [_fold(head)] if head else []
    terms = [_fold(word.replace("'", ""))]
    return terms + ["not"] if tail == "t" and head.lower().endswith("n") else terms


def word_terms(word: str) -> list[str]:
    """The whole identifier plus its parts: createOrder -> createorder, create, order."""
    if any(mark in word for mark in _APOSTROPHES):
        return _contraction(word)
    parts = [
        _fold(piece)
        for chunk in _SEPARATOR_RE.split(word)
        for piece in _CAMEL_RE.split(chunk)
        if piece
    ]
    whole = _fold(word).strip("_")
    if len(parts) <= 1:
        return [whole] if whole else []
    return list(dict.fromkeys([whole, *parts]))


def _stem_word(text: str) -> str:
    """Stem plain English words only; identifiers, numbers and CJK pass through."""
    if text.isascii() and text.isalpha():
        return _porter2(text)
    return text


class MemoryTokenizer(Tokenizer):
    """Splits memory text into word, identifier and CJK bigram terms."""

    def __call__(  # noqa: PLR0913 - whoosh's tokenizer protocol
        self,
        value: str,
        positions: bool = False,
        chars: bool = False,
        keeporiginal: bool = False,
        removestops: bool = True,
        start_pos: int = 0,
        start_char: int = 0,
        mode: str = "",
        **kwargs: object,
    ) -> Iterator[Token]:
        """Yield one reused Token per term, as whoosh tokenizers do."""
        kwargs.pop("tokenize", None)  # always tokenize: terms are never raw user syntax
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        text = unicodedata.normalize("NFKC", value)
        pos = start_pos
        for match in _TOKEN_RE.finditer(text):
            for term in self._terms(match, index=mode != "query"):
                token.text = term
                token.boost = 1.0
                token.stopped = False
                if keeporiginal:
                    token.original = term
                if positions:
                    token.pos = pos
                    pos += 1
                if chars:
                    token.startchar = start_char + match.start()
                    token.endchar = start_char + match.end()
                yield token

    @staticmethod
    def _terms(match: re.Match[str], index: bool) -> list[str]:
        if match.lastgroup == "cjk":
            return cjk_grams(match.group(), index)
        return word_terms(match.group())


def memory_analyzer() -> Analyzer:
    """The analyzer used for every text field of the keyword index."""
    return (
        MemoryTokenizer()
        | StopFilter(stoplist=STOP_WORDS, minsize=1)
        | StemFilter(stemfn=_stem_word)
    )


def analyze(text: str, mode: str = "query") -> list[str]:
    """Terms of ``text`` as the index sees them (mode "index" or "query")."""
    return [t.text for t in memory_analyzer()(text, mode=mode)]
