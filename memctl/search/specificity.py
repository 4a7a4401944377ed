"""Which words of a query name something specific, and which are common vocabulary.

Keyword coverage gives a query word that no memory holds the most weight: "Kyoto hotel" covers
little of an LA hotel memory, because the store never heard of Kyoto. The words of a task ("schedule
maintenance for my car", "help me renew my passport") are absent from the memories too, but they
say what to do, not what it is about. A query word is *specific* (an absent one keeps its weight)
when it looks like a name or an identifier, or is not common English:

- written with a capital letter other than the first of a sentence ("my trip to Kyoto", "iOS",
  "ERR_42"), or holding a digit or a character that is not an ASCII letter (numbers, codes, CJK);
- or its stem is not in memctl/data/common_words.txt, the stems of 12,675 common English
  words that are not names (derived offline by bench/common_words.py), so a rare word or a name
  typed in lower case ("kyoto hotel") stays specific too.

Every other word is common vocabulary.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path
from typing import Collection, Container, Sequence

from memctl.core.text import STOP_WORDS, raw_terms, stem

# Beside the package's code, as the shipped model is (importlib.resources costs a fresh recall more).
COMMON_WORDS = Path(__file__).resolve().parent.parent / "data" / "common_words.txt"
SENTENCE_ENDS = frozenset(".!?:;\u3002\uff01\uff1f")
_PRONOUN_I = re.compile(r"I(?:['\u2019][a-z]+)?")  # "I'm", "I'd": always capitalised
# Months, weekdays and holidays are capitalised by English spelling, not because they name someone or something
# ("What did Caroline do in May?" names Caroline, and a memory dated in May need not say "May").
CALENDAR = frozenset("""january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday
    christmas xmas easter thanksgiving halloween hanukkah diwali ramadan passover""".split())  # "Fridays" too


class SortedWords:
    """Membership in a sorted word list by bisection: splitting the shipped file takes about a
    millisecond, where hashing its 12,675 stems into a set would cost a fresh recall several."""

    def __init__(self, words: Sequence[str]) -> None:
        self._words = words

    def __contains__(self, word: object) -> bool:
        at = bisect_left(self._words, word) if isinstance(word, str) else len(self._words)
        return at < len(self._words) and self._words[at] == word

    def __len__(self) -> int:
        return len(self._words)


@lru_cache(maxsize=1)
def common_stems() -> SortedWords:
    """The stems of common English words: the shipped list (sorted, one a line after its comment
    header). Read on the first query that needs it, never at import (a fresh recall pays only then)."""
    text = COMMON_WORDS.read_text(encoding="utf-8")
    body = text.rpartition("\n#")[2].partition("\n")[2]  # after the last header line ("#" is no stem)
    return SortedWords(body.split())


def specific_terms(query: str, common: Container[str] | None = None) -> set[str]:
    """The query's terms (as the keyword index stems them) that are specific: see the module doc.
    `common` replaces the shipped list (tests)."""
    words: Container[str] = common_stems() if common is None else common
    text = unicodedata.normalize("NFKC", query)
    out = set()
    for term, start, end in raw_terms(text, index=False):
        if term in STOP_WORDS:
            continue
        key = stem(term)
        if looks_like_a_name(text, start, end) or not (term.isascii() and term.isalpha()) or key not in words:
            out.add(key)
    return out


def looks_like_a_name(text: str, start: int, end: int) -> bool:
    """True for a word written with a capital that sentence case does not explain: a capital after
    its first letter ("iOS", "McDonald"), or a first capital when the word does not open a sentence."""
    word = text[start:end]
    if _PRONOUN_I.fullmatch(word):
        return False
    if any(c.isupper() for c in word[1:]):
        return True
    opens_sentence = opens_a_sentence(text, start)
    return word[:1].isupper() and not opens_sentence


def opens_a_sentence(text: str, start: int) -> bool:
    """Whether the word at `start` opens the text or follows a sentence's end (. ! ? : ; and the CJK
    ones) and blanks: read backwards from the word, so a long text costs no more per word."""
    at = start - 1
    while at >= 0 and text[at].isspace():
        at -= 1
    return at < 0 or text[at] in SENTENCE_ENDS


_POSSESSIVE = re.compile(r"['\u2019]s$")


def name_terms(text: str, common: Container[str] | None = None, speakers: bool = True) -> set[str]:
    """The stems of the words a text writes as names: capitalised where sentence case does not
    explain it ("What did Kevin watch?", "iOS"), or capitalised and not common English ("Caroline
    went..."), or a speaker opening a line ("Kate: hi"; `speakers` False leaves them out: in a query
    given as a dialogue they are its participants, not what it asks about). A query naming someone
    the store never mentions cannot be answered by a memory that names someone else. `common`
    replaces the shipped list (tests). A word opening in lower case with an inner capital ("iPad")
    is written as a name too. Month and weekday names are no names (`CALENDAR`). Chinese
    names, written without capitals, are read by their shapes (search/cjknames.py: 王医生, 小吴,
    表妹陈露)."""
    from memctl.search.cjknames import chinese_names

    words: Container[str] = common_stems() if common is None else common
    text = unicodedata.normalize("NFKC", text)
    out = set() if text.isascii() else chinese_names(text)
    for term, start, end in raw_terms(text, index=False):
        word = _POSSESSIVE.sub("", text[start:end])  # "Kevin's dog": Kevin is a name
        if term in STOP_WORDS or not word.isalpha() or not _capitalised(word) or _PRONOUN_I.fullmatch(word) \
                or _calendar(word):
            continue
        speaker = _speaker(text, start, end)
        if speaker and not speakers:
            continue
        if looks_like_a_name(text, start, end) or stem(term) not in words or speaker:
            out.add(stem(term))
    return out


_ACRONYM = re.compile(r"\b[A-Z]{2,}s?\b")


def acronyms(text: str) -> set[str]:
    """The stems of the words a text writes in capitals, two letters or more ("IRS", "HMRC", "HR"):
    an organisation or a thing's short name, which a memory about dealing with it need not say (a
    tax refund is the IRS's), unlike a person's or a place's name."""
    return {stem(word.lower()) for word in _ACRONYM.findall(unicodedata.normalize("NFKC", text))}


_BRAND = re.compile(r"[a-z]+[A-Z][a-z]+")  # "iPad", "eBay", "iCloud"; not a unit ("kWh", "pH", "mAh") or "mRNA"


def _capitalised(word: str) -> bool:
    """A word with a capital first letter, or a brand's lower-case one before a capitalised part
    ("iPad", "eBay"): both say a name where sentence case does not explain them. A unit of three
    letters or fewer ("kWh", "mAh", "dB") is no name."""
    return word[:1].isupper() or (len(word) >= 4 and bool(_BRAND.fullmatch(word)))


def _calendar(word: str) -> bool:
    """A month, weekday or holiday ("Fridays", "Christmas"): a time, not someone or something."""
    folded = word.casefold()
    return folded in CALENDAR or folded.removesuffix("s") in CALENDAR


SHORTEST_SHORTENING = 3  # letters: "Mel" shortens Melanie; "Al" or "Ed" are too short to tell


def same_name(a: str, b: str) -> bool:
    """Whether two name stems name the same one: equal, or one the start of the other, as a
    shortened name or nickname is ("Mel" and Melanie, "Rob" and Robert), of at least
    `SHORTEST_SHORTENING` letters."""
    short, full = sorted((a, b), key=len)
    return short == full or (len(short) >= SHORTEST_SHORTENING and full.startswith(short))


def capitalised_terms(text: str) -> set[str]:
    """The stems of a text's capitalised words wherever they stand: a memory may open with a name
    that is a common word too ("John's colleague...", "Melanie enjoys..."), which `name_terms`
    cannot tell from sentence case."""
    text = unicodedata.normalize("NFKC", text)
    out = set()
    for term, start, end in raw_terms(text, index=False):
        word = text[start:end]
        if term not in STOP_WORDS and word[:1].isupper() and not _PRONOUN_I.fullmatch(word):
            out.add(stem(term))
    return out


def says_name(text: str, names: Collection[str]) -> bool:
    """Whether a text holds one of `names` (stems, as `name_terms` gives them) written with a capital
    wherever it stands, or a name it reads as one (`name_terms`) that one of them shortens or that
    shortens one of them (`same_name`). A common word opening a sentence is no shortening of a name:
    "Time is short" does not say Tim, nor "Car insurance..." Caroline."""
    if not names:
        return False
    return bool(capitalised_terms(text) & set(names)) or any(
        same_name(term, name) for term in name_terms(text) for name in names)


def other_names(text: str, names: Collection[str]) -> set[str]:
    """The names a text says (`name_terms`) that are none of `names`, nor shortened or full forms of them."""
    return {term for term in name_terms(text) if not any(same_name(term, name) for name in names)}


def _speaker(text: str, start: int, end: int) -> bool:
    """A capitalised word opening a line and followed by a colon: a speaker ("Kate: hi")."""
    return text[end:end + 1] in (":", "\uff1a") and not text[:start].rpartition("\n")[2].strip()


def common_name_runs(text: str, common: Container[str] | None = None) -> list[frozenset[str]]:
    """The names of several words a text says every word of which is a common word too ("the Forth
    Bridge"), each as its words' stems: name words (`name_terms`, speakers left out) one after the
    other with only blanks between them. `common` replaces the shipped list (tests)."""
    words: Container[str] = common_stems() if common is None else common
    text = unicodedata.normalize("NFKC", text)
    names = name_terms(text, words, speakers=False)
    return [run for run in capitalised_runs(text) if len(run) > 1 and run <= names and all(w in words for w in run)]


def capitalised_runs(text: str) -> list[frozenset[str]]:
    """The stems of each run of capitalised words, one after the other with only blanks between
    them and no possessive ending one ("the Dean Bridge Club": {"dean", "bridg", "club"})."""
    text = unicodedata.normalize("NFKC", text)
    runs: list[set[str]] = []
    last = -1
    for term, start, end in raw_terms(text, index=False):
        if term in STOP_WORDS or not _capitalised(text[start:end]) or _PRONOUN_I.fullmatch(text[start:end]):
            last = -1
            continue
        if last >= 0 and not text[last:start].strip():
            runs[-1].add(stem(term))
        else:
            runs.append({stem(term)})
        last = -1 if _POSSESSIVE.search(text[start:end]) else end  # "Gina's HR": Gina's ends her name
    return [frozenset(run) for run in runs]


def part_names(text: str, runs: Sequence[frozenset[str]]) -> set[str]:
    """The words of a query's names of common words (`common_name_runs`) that a text says only as a
    part of another name: "Bridge" of "the Forth Bridge" in "bridge at the Dean Bridge Club" is the
    club's, not the bridge over the Forth. A text saying the word alone, or in the query's name,
    names it ("Professor Adams" by "Adams said...")."""
    if not runs:
        return set()  # most queries: no text is read
    own = capitalised_runs(text)
    out: set[str] = set()
    for run in runs:
        for word in run:
            holding = [r for r in own if word in r]
            if holding and all(r - run for r in holding):
                out.add(word)
    return out
