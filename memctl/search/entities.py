"""Entity extraction: the names and identifiers a memory mentions.

Pure functions, no I/O and no name lists: entities come from the shape of the
text (capitalisation, identifier syntax, code spans, CJK quotation marks).
Emails and URLs are masked first so their parts are never extracted.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator

from memctl.core.patterns import lazy_pattern

MAX_ENTITIES = 20

# Words that are capitalised only because of grammar, never names by themselves.
FUNCTION_WORDS = frozenset(
    """a about after again all also always an and any are as at be because been
    before being both but by can could did do does doing don't each either even
    every few for from had has have having he her here hers him his how however
    i if in into is it its just let may maybe me might more most must my never
    no nor not now of off on once only or other our out over please she should
    since so some such than that the their them then there these they this
    those though through to too under until up us very was we were what when
    where whether which while who whom whose why will with would yes yet you
    your""".split()
)
_NAME_PARTICLES = frozenset("of de da del der di du la le van von".split())
# Words that usually follow a sentence-initial name: "Alice prefers", "Bob is".
_AUX_VERBS = frozenset(
    "is was has had will would can could should must may might does did said "
    "wants likes uses works lives".split()
)

_A = r"(?<![A-Za-z0-9_])"  # ASCII-only word boundaries: \b fails beside CJK text
_Z = r"(?![A-Za-z0-9_])"
# An address starts where its run of address characters does: tried from inside a long run (a 30 KB
# number in a hostile file) it failed once per character, each time after scanning the rest of the run.
_MASK_RE = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?:https?|ftp)://\S+|\bwww\.\S+")
_CODE_RE = re.compile(r"`([^`\n]{1,60})`")
_cjk_char = lazy_pattern(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")  # only quotes need it
_CJK_QUOTE_RE = re.compile(r"[「『《【“〈]([^」』》】”〉\n]{1,20})[」』》】”〉]")
_FILE_CHARS = r"[A-Za-z0-9_-]"
_DOC_PATTERNS = (
    rf"{_A}[A-Z][A-Z0-9]*-\d+{_Z}",  # ticket PAY-1234
    rf"(?<![\w#&])#\d+{_Z}",  # issue #123
    rf"{_A}v\d+(?:\.\d+)+(?:-[0-9A-Za-z]+)?{_Z}|{_A}\d+\.\d+\.\d+{_Z}",  # version
    rf"(?<![A-Za-z0-9_./-])(?:{_FILE_CHARS}+[/.])*{_FILE_CHARS}*[A-Za-z0-9]\.[A-Za-z][A-Za-z0-9]{{1,4}}(?![A-Za-z0-9_]|\.[A-Za-z0-9])",  # file
    rf"{_A}[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+{_Z}",  # snake_case, ERR_42
    rf"{_A}[A-Z]{{1,3}}\d{{3,}}{_Z}",  # error code E1234
    rf"{_A}[a-z]+[0-9]*(?:[A-Z][a-z0-9]*)+{_Z}",  # camelCase
    rf"{_A}[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+{_Z}",  # PascalCase, PostgreSQL
    rf"{_A}[a-z][a-z0-9]*(?:-[a-z0-9]+){{2,}}{_Z}",  # kebab-case-name
    rf"{_A}[a-z]+(?:-[a-z]*\d[a-z0-9]*)+{_Z}",  # kebab with a number: gpt-4
)
_PATTERNS = tuple(re.compile(p) for p in _DOC_PATTERNS)
# Queries are often typed in lower case: "pay-1234", "e1234", "#12".
_QUERY_PATTERNS = tuple(re.compile(p, re.IGNORECASE) for p in _DOC_PATTERNS[:2]) + _PATTERNS[2:] + (
    re.compile(rf"{_A}[a-z]{{1,3}}\d{{3,}}{_Z}"),
)
_ACRONYM_RE = re.compile(rf"{_A}[A-Z][A-Z0-9]{{1,7}}{_Z}")
_NAME_WORD = r"[A-Z][A-Za-z0-9]*(?:['\u2019][A-Za-z]+)?"
_NAME_RE = re.compile(
    rf"{_A}{_NAME_WORD}(?:[ ](?:(?:{'|'.join(sorted(_NAME_PARTICLES))})[ ])?{_NAME_WORD})*{_Z}"
)
_SENTENCE_START_RE = re.compile(r"(?:^\s*|[.!?:;]\s+|\n\s*(?:[-*+>#]+\s*|\d+[.)]\s+)?)$")
_NEXT_WORD_RE = re.compile(r"\s+([A-Za-z']+)")
_CAPITAL_RE = re.compile(rf"{_A}[A-Z][A-Za-z0-9]*{_Z}")  # a capitalised word (up to an apostrophe)

_Span = tuple[int, int, str]


def extract_entities(text: str) -> list[str]:
    """Names and identifiers in ``text``, first occurrence order, deduplicated, at most 20."""
    return _extract(text, query=False)


def query_entities(query: str) -> list[str]:
    """Entities of a search query: like ``extract_entities`` but tolerant of lower case.

    Queries are short and often typed in lower case ("err_42", "pay-1234"),
    and their first word is as likely a name as a grammatical capital.
    """
    return _extract(query, query=True)


def _extract(text: str, query: bool) -> list[str]:
    masked = _MASK_RE.sub(lambda m: " " * len(m.group()), text)
    spans: list[_Span] = []
    taken = bytearray(len(masked))  # 1 where a span already kept lies: each overlap test costs its length
    for found in (
        _code_spans(masked),
        _cjk_quoted(masked),
        _pattern_spans(masked, query),
        _names(masked, query),
        _acronyms(masked),
    ):
        for span in found:
            if 1 not in taken[span[0]:span[1]]:
                taken[span[0]:span[1]] = b"\x01" * (span[1] - span[0])
                spans.append(span)
    return _dedupe(sorted(spans))


def _dedupe(spans: list[_Span]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for _, _, value in spans:
        if value.casefold() not in seen:
            seen.add(value.casefold())
            out.append(value)
    return out[:MAX_ENTITIES]


def _code_spans(text: str) -> Iterator[_Span]:
    """Inline code is an explicit identifier: `user-service`, `make test`."""
    for m in _CODE_RE.finditer(text):
        value = m.group(1).strip()
        if value:
            yield m.start(), m.end(), value


def _cjk_quoted(text: str) -> Iterator[_Span]:
    """CJK terms in quotation or title marks: 《三体》, 「東京タワー」, “绿茶”."""
    for m in _CJK_QUOTE_RE.finditer(text):
        value = m.group(1).strip()
        if value and _cjk_char().search(value) and not re.search(r"[。！？，,.!?]", value):
            yield m.start(), m.end(), value


def _pattern_spans(text: str, query: bool) -> Iterator[_Span]:
    """Identifier-shaped tokens: tickets, versions, files, code identifiers."""
    for pattern in _QUERY_PATTERNS if query else _PATTERNS:
        for m in pattern.finditer(text):
            parts = re.split(r"-", m.group())
            if len(parts) > 2 and any(p in FUNCTION_WORDS for p in parts):
                continue  # "end-to-end", "state-of-the-art" are prose, not names
            yield m.start(), m.end(), m.group()


def _acronyms(text: str) -> Iterator[_Span]:
    """All-caps words (SDK, AWS, HTTP2), except grammar words written in caps."""
    for m in _ACRONYM_RE.finditer(text):
        if m.group().lower() not in FUNCTION_WORDS:
            yield m.start(), m.end(), m.group()


def _names(text: str, query: bool) -> Iterator[_Span]:
    """Runs of capitalised words, skipping grammatical capitals at sentence start."""
    mid: dict[str, list[int]] | None = None
    for m in _NAME_RE.finditer(text):
        words = m.group().split(" ")
        start, lead = m.start(), 0
        while lead < len(words) and _is_function_word(words[lead]):
            start, lead = start + len(words[lead]) + 1, lead + 1
        words = words[lead:]
        while words and words[-1].lower() in _NAME_PARTICLES:
            words.pop()
        if not words:
            continue
        value = _strip_possessive(" ".join(words))
        ambiguous = start == m.start() and len(words) == 1 and _at_sentence_start(text, start)
        if ambiguous and not query:
            mid = _mid_sentence(text) if mid is None else mid
            if not _clear_name(text, m, value, mid):
                continue
        yield start, start + len(value), value


def _mid_sentence(text: str) -> dict[str, list[int]]:
    """Where each capitalised run of letters and digits starts away from a sentence start, in order:
    read in one pass, so a text of many sentence-initial words costs no pass over it per word."""
    where: dict[str, list[int]] = {}
    for m in _CAPITAL_RE.finditer(text):
        if not _at_sentence_start(text, m.start()):
            where.setdefault(m.group(), []).append(m.start())
    return where


def _at_sentence_start(text: str, pos: int) -> bool:
    # A short window suffices: the pattern looks back at most a bullet marker.
    return _SENTENCE_START_RE.search(text, max(0, pos - 12), pos) is not None


def _is_function_word(word: str) -> bool:
    return _strip_possessive(word).lower() in FUNCTION_WORDS


def _strip_possessive(value: str) -> str:
    return re.sub(r"['\u2019]s$", "", value)


def _clear_name(text: str, match: re.Match[str], value: str, mid: dict[str, list[int]]) -> bool:
    """Whether a lone capitalised word at sentence start is a name, not grammar.

    It is when its shape says so (iOS, R2D2), it is possessive, it is
    capitalised again mid-sentence, or a verb like "is"/"prefers" follows it.
    """
    word = match.group()
    if any(c.isupper() or c.isdigit() for c in word[1:]) or word != value:
        return True
    if _again_mid_sentence(text, match.end(), value, mid):
        return True
    following = _NEXT_WORD_RE.match(text, match.end())
    return following is not None and _looks_like_verb(following.group(1))


def _again_mid_sentence(text: str, after: int, value: str, mid: dict[str, list[int]]) -> bool:
    """Whether `value` occurs again after `after`, as a word, away from a sentence start."""
    places = mid.get(re.split("['\u2019]", value, maxsplit=1)[0], [])
    whole = re.compile(rf"{re.escape(value)}{_Z}")
    return any(whole.match(text, places[i]) for i in range(bisect_left(places, after), len(places)))


def _looks_like_verb(word: str) -> bool:
    """An auxiliary or third-person verb ("is", "prefers"): what follows a subject."""
    if word in _AUX_VERBS:
        return True
    return word.islower() and len(word) > 3 and word.endswith("s") and not word.endswith("ss")
