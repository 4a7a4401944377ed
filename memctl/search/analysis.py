"""The whoosh analyzer of the keyword index: core.text's terms as a whoosh tokenizer.

One analyzer serves every field at index and query time, so a query is analysed exactly like
the memories it should find (core.text holds the rules; PostgreSQL's tsvectors use them too).
The analyzer object is pickled into the whoosh index; its classes must stay importable by these
names (bump ``ANALYZER_VERSION`` whenever token output changes, so stale indexes are rebuilt
instead of silently mismatching).
"""

from __future__ import annotations

from collections.abc import Iterator

from whoosh.analysis import Analyzer, StemFilter, StopFilter, Token, Tokenizer

from memctl.core.text import STOP_WORDS, raw_terms, search_terms, stem

ANALYZER_VERSION = 2


class MemoryTokenizer(Tokenizer):
    """Splits memory text into word, identifier and CJK bigram terms."""

    def __call__(
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
        for pos, (term, start, end) in enumerate(raw_terms(value, index=mode != "query"), start=start_pos):
            token.text = term
            token.boost = 1.0
            token.stopped = False
            if keeporiginal:
                token.original = term
            if positions:
                token.pos = pos
            if chars:
                token.startchar, token.endchar = start_char + start, start_char + end
            yield token


def memory_analyzer() -> Analyzer:
    """The analyzer used for every text field of the keyword index."""
    return MemoryTokenizer() | StopFilter(stoplist=STOP_WORDS, minsize=1) | StemFilter(stemfn=stem)


def analyze(text: str, mode: str = "query") -> list[str]:
    """Terms of ``text`` as the index sees them (mode "index" or "query"); same as core.text.search_terms."""
    return search_terms(text, mode)
