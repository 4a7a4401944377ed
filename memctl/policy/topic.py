"""What a query is about, from its text and the kinds (pure): its shape, and the kinds it names.

Relevance is calibrated per shape of query, because the signals mean different things in each:

- a *question* ("where does Hank live?") names what it asks about, so the share of its words a
  memory holds (keyword coverage) says a lot;
- a *task* ("schedule maintenance for my car") says what to do, and only a word or two of it says
  what about;
- a *dialogue* (a few lines of a conversation given as the query, as an agent does when it recalls
  for the turn it is answering) holds dozens of words, most about nothing stored: the share of
  words means little, and the meaning (the cosines) carries the signal.

A kind (memctl/data/kinds.toml, schemas/*.toml) may list the words that name it, per language
(`words = { en = ["car", "vehicle"], zh = ["汽车"] }`): a query that says one of them is about the
kind, and so is a memory of that kind or one that says one of its words.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Iterable, Literal, Mapping, Sequence

from memctl.core.text import is_cjk, search_terms

Shape = Literal["question", "task", "dialogue"]
SHAPES: tuple[Shape, ...] = ("question", "task", "dialogue")
MAX_LINES = 8  # the lines of a dialogue whose cosines relevance reads (the last ones)
DIALOGUE_WORDS = 40  # a query longer than this many words (CJK: characters / 2) reads as dialogue
_NAME_CHARS = re.compile(r"[\w .'-]+")
_QUESTION_OPENERS = frozenset(
    """what when where who whom whose which why how is are was were do does did can could should would
    will shall have has had am may might""".split())
_ZH_QUESTION = ("吗", "呢", "什么", "哪", "谁", "怎么", "怎样", "如何", "为什么", "几", "多少", "是否",
                "是不是", "有没有", "有没", "能不能", "可不可以", "多久", "多大", "多远", "么")

# A task's frame: its opening verb (after "please"), followed by a determiner, a pronoun or a particle
_FRAME = re.compile(r"(?i)^\s*(?:please\s+)?(?!(?:i|we|you|it|he|she|they|let)\b)[a-z]+(?=\s+(?:a|an|the|my|our|your|his|"
                    r"her|their|its|me|us|him|them|this|that|these|those|some|more|any|all|up|off|out|down|back|over|for|to)\b)")

MAX_KINDS = 1000
MAX_KIND_WORDS = 4 * 64  # the words of a kind, every language together
# kind -> (its words as stem sequences, its CJK words as text)
Lexicon = Mapping[str, tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]]


def query_shape(text: str) -> Shape:
    """`dialogue` for several lines of conversation or a long passage, `question` for a question
    (a question mark, an interrogative first word, a Chinese question particle), else `task`."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) >= 2 and (sum(map(_speaker, lines)) >= 2 or len(lines) >= 3):
        return "dialogue"
    if _length(text) > DIALOGUE_WORDS:
        return "dialogue"
    folded = unicodedata.normalize("NFKC", text).strip()
    first = folded.split(maxsplit=1)[0].casefold().strip("',.") if folded else ""
    if "?" in folded or first in _QUESTION_OPENERS or first.split("'")[0] in _QUESTION_OPENERS:
        return "question"
    if any(mark in folded for mark in _ZH_QUESTION):
        return "question"
    return "task"


def without_frame(text: str) -> str:
    """A task without its frame: the verb it opens with, when a determiner, pronoun or particle
    follows it ("Reschedule my surfing lesson", "Sign me up for a 10K", "Block off the day"). The
    frame says what to do, not what about, and a memory saying it in passing ("the rescheduled
    trip", "renews in June") is no more about the task than any other; the words of the task's
    object say what it is about. Any other text is returned as it is (a question, a dialogue, a
    task opening with a name or a noun: "Refill Liam's prescription", "Lisinopril refill")."""
    if query_shape(text) != "task":
        return text
    folded = unicodedata.normalize("NFKC", text)
    match = _FRAME.match(folded)
    return folded[match.end():] if match else text


def dialogue_lines(text: str) -> list[str]:
    """The last MAX_LINES non-empty lines of a dialogue, each stripped; none for a single line (a
    long passage is read whole)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-MAX_LINES:] if len(lines) >= 2 else []


def _speaker(line: str) -> bool:
    """A line said by someone ("Kate: ...", "用户：..."): at most 30 characters of a name (letters,
    digits, spaces, . ' -) before the first colon, whitespace around them, and something after it.
    Checked around the colon, not by a pattern whose whitespace and name overlap: that one tried
    each split of a long run of spaces (a query line of 8,000 spaces took about 40 s)."""
    at = min((i for i in (line.find(":"), line.find("：")) if i >= 0), default=-1)
    if at < 0 or not line[at + 1:].strip():
        return False
    before = line[:at]
    name = before.strip()
    return " " in before if not name else len(name) <= 30 and _NAME_CHARS.fullmatch(name) is not None


def _length(text: str) -> float:
    """Words, counting two CJK characters as one."""
    cjk = sum(1 for c in text if is_cjk(c))
    return len(re.findall(r"[^\W\d_]+|\d+", "".join(" " if is_cjk(c) else c for c in text))) + cjk / 2


def lexicon(words_of: Mapping[str, Mapping[str, Sequence[str]]]) -> dict[str, tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]]:
    """The kinds' words (kind -> language -> words) in the form `kinds_in` matches: each word's stems,
    or its text when it is written in CJK characters (matched inside the text: Chinese has no spaces)."""
    out = {}
    for kind, by_language in words_of.items():
        stems: list[tuple[str, ...]] = []
        cjk: list[str] = []
        for word in (w for words in by_language.values() for w in words):
            text = unicodedata.normalize("NFKC", word).casefold()
            if any(is_cjk(c) for c in text):
                cjk.append(text)
            elif search_terms(text, "query"):
                stems.append(tuple(search_terms(text, "query")))
        if stems or cjk:
            out[kind] = (tuple(dict.fromkeys(stems)), tuple(dict.fromkeys(cjk)))
    return out


def checked_lexicon(value: Any, most: int = MAX_KIND_WORDS) -> dict[str, tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]]:
    """A lexicon read back from JSON (a cache: store/kindwords.py), checked; ValueError when it is not
    one `lexicon` could have made (wrong shape, or more or longer words than a kind, `most` in all
    its languages, may list)."""
    if not isinstance(value, dict) or len(value) > MAX_KINDS:
        raise ValueError("not a lexicon")
    out = {}
    for kind, entry in value.items():
        stems, cjk = entry
        phrases = tuple(tuple(_short(s) for s in phrase) for phrase in stems)
        words = tuple(_short(w) for w in cjk)
        if len(phrases) + len(words) > most or any(not p or len(p) > 8 for p in phrases):
            raise ValueError("not a lexicon")
        out[_short(kind)] = (phrases, words)
    return out


def _short(text: Any) -> str:
    if not isinstance(text, str) or not text or len(text) > 40:
        raise ValueError("not a lexicon")
    return text


def kinds_in(texts: Iterable[str], words: Lexicon) -> frozenset[str]:
    """The kinds whose words any of `texts` says ("my car" -> vehicle; "房贷" -> contract)."""
    return frozenset(kind_words_in(texts, words))


def kind_words_in(texts: Iterable[str], words: Lexicon) -> dict[str, list[str]]:
    """Each kind whose words any of `texts` says, with the words it says: a phrase as its stems
    joined by spaces, a CJK word as written ("my motorcycle" -> vehicle: ["motorcycl"])."""
    joined = unicodedata.normalize("NFKC", "\n".join(t for t in texts if t)).casefold()
    if not joined.strip():
        return {}
    terms = search_terms(joined, "query")
    present = set(terms)
    found = {}
    for kind, (stems, cjk) in words.items():
        said = [" ".join(phrase) for phrase in stems if all(s in present for s in phrase) and in_order(phrase, terms)]
        said += [w for w in cjk if w in joined]
        if said:
            found[kind] = said
    return found


def in_order(phrase: tuple[str, ...], terms: Sequence[str]) -> bool:
    """Whether the stems of a phrase occur one after the other in `terms` (one stem: anywhere)."""
    if len(phrase) == 1:
        return True
    width = len(phrase)
    return any(tuple(terms[i:i + width]) == phrase for i in range(len(terms) - width + 1))
