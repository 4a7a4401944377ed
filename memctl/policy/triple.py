"""A statement read as subject, attribute and value, in English and Chinese (pure, no I/O).

"My phone is an iPhone 13": subject the owner, attribute "my phone is", value "an iPhone 13".
"Carol is my new manager": attribute "is my new manager", value "Carol". "I drive a Honda
Civic": attribute "I drive", value "a Honda Civic". "婉清对虾过敏": attribute "我对过敏" is
read by the clause shape, value "虾". The reading is by sentence shape (a copula, a possessed noun,
a main verb and its object, a colon), never by words of any data set: the write decision compares the
two attributes and the two values with a sentence embedding ("lives in" / "is based in" read alike,
"grocery budget" / "dining-out budget" do not), so a change (same attribute, another value) is told
from another fact (another attribute) and from a repeat (the same value in other words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memctl.core.text import CJK_RANGES
from memctl.policy.facts import names
from memctl.policy.statement import owner_free

_CJK = re.compile(f"[{CJK_RANGES}]")
_COPULA = r"(?:is|are|am|was|were|'s|'re|'m|’s|’m|’re)"
# "X's/my/our NOUN... is VALUE": the possessed noun phrase and the copula are the attribute. Linear on
# hostile text: the first owner word is the one (atomic: a later one finds no copula an earlier one
# missed), a blank run is tried from its start only, the copula commits to the first one after the
# noun (on one line a value always follows it) and the value to the end of the line.
_POSSESSED = re.compile(rf"^(?>(?P<attr>(?>.*?\b(?:(?i:my|our|his|her|their|the)|[A-Z][a-z]+(?:'s|’s))\s)"
                        rf".+?)(?<!\s)\s++{_COPULA}\s++)(?P<value>.++)$")
# "VALUE is my/our NOUN": "Dr. Huang is my dentist", "Alliant is my bank" (a blank run is tried from
# its start only, the blanks and the rest of the line are taken whole: linear on hostile text).
_INVERTED = re.compile(rf"^(?P<value>.+?)(?<!\s)\s++{_COPULA}\s++(?P<attr>(?:now\s++)?(?i:my|our)\s.++)$")
# "I/we VERB [PREPOSITION] VALUE": the subject, the verb and its particle are the attribute.
_SUBJECT = r"(?:I|We|we|i|(?!(?:My|Our|The|His|Her|Their|It|This|That)\b)[A-Z][a-z]+)"
_VERBAL = re.compile(
    rf"^(?P<attr>{_SUBJECT}(?:\s+(?:{_COPULA}|do|does|don't|doesn't|did|didn't|have|has|had|now|still|also|usually|"
    r"always|never|not|no longer|just|only|will|would|can|am|'ll|'ve|'d))*\s+[a-z]+(?:ed|s|ing)?"
    r"(?:\s+(?:in|at|on|to|from|with|for|by|of|as|into|up|out|off|about|like))?)\s+(?P<value>.+)$")
_COLON = re.compile(r"^(?P<attr>[^:：]{1,40}?)(?<!\d)[:：](?!\d)\s*(?P<value>.+)$")
# Chinese: "X的ATTR是VALUE", "ATTR在/叫/用VALUE", "X VERB VALUE".
# The first marker of the highest rank that leaves a value after it splits the clause.
_ZH_MARKERS = ("是", "叫", "用", "住在", "在", "到", "为", "成", "了")
_ZH_INVERTED = re.compile(r"^(?P<value>.+?)是(?P<attr>我的.+|我们的.+)$")
# A statement's shape is read in its opening characters: the attribute opens it, and a value longer
# than the embedder reads (256 word pieces) compares no better. The bound keeps a hostile text of one
# long line with many copulas and a line break after them (each copula tries the rest of the line) fast.
_WINDOW = 1000
# "Note 1: ...", "Room 4: ...": a numbered thing's label opening the text is no attribute of the statement.
_LABEL = re.compile(r"^[A-Z][a-z]+\s+\d+\s*[:：]\s*(?=\S)")


@dataclass(frozen=True)
class Triple:
    """A statement's attribute (the value masked out) and its value; both as text to embed."""

    attribute: str
    value: str


def _strip(text: str) -> str:
    return text.strip().rstrip(".!。！").strip()


_CONTRACTIONS = ((r"\b(I|i)['’]m\b", r"\1 am"), (r"\b(we|they|you)['’]re\b", r"\1 are"),
                 (r"\b(it|that|there|he|she)['’]s\b", r"\1 is"), (r"n['’]t\b", " not"),
                 (r"\bI (is|was)\b", "I am"), (r"\bI has\b", "I have"), (r"\bI does\b", "I do"))


def _expanded(text: str) -> str:
    for pattern, repl in _CONTRACTIONS:
        text = re.sub(pattern, repl, text, flags=re.IGNORECASE)
    return text.replace("ca not", "can not").replace("wo not", "will not")


def _english(text: str) -> Triple:
    text = _expanded(text)
    for pattern in (_COLON, _INVERTED, _POSSESSED, _VERBAL):
        m = pattern.match(text)
        if m and m.group("value").strip() and m.group("attr").strip():
            return Triple(_strip(m.group("attr")), _strip(m.group("value")))
    return Triple(text, text)


def _chinese(text: str) -> Triple:
    for pattern in (_COLON, _ZH_INVERTED):
        m = pattern.match(text)
        if m and m.group("value").strip() and m.group("attr").strip():
            return Triple(_strip(m.group("attr")), _strip(m.group("value")))
    for marker in _ZH_MARKERS:
        at = text.find(marker, 1)
        if at > 0 and _strip(text[at + len(marker):]):
            return Triple(text[:at + len(marker)], _strip(text[at + len(marker):]))
    return Triple(text, text)


@lru_cache(maxsize=16384)  # a pure reading of the text: the write decision reads the same neighbours add after add
def read_triple(text: str, owner: str | None = None) -> Triple:
    """The attribute and the value of a statement (the owner's own name read as the first person);
    a statement of no known shape is its own attribute and value."""
    plain = _LABEL.sub("", _strip(owner_free(text, owner)))
    plain = re.split(r"[;；,，](?=\s*\S)", plain)[0] if len(plain) > 60 else plain
    plain = plain[:_WINDOW]
    return _chinese(plain) if _CJK.search(plain) else _english(plain)


def of_two_people(old: str, new: str) -> bool:
    """Whether two statements name each its own person as the one they are about and share names only
    in what they say of them: "Jonas moved to Porto" / "Elena lives in Porto" are two people's homes,
    not one home changed (the shared city made them "the same subject")."""
    a, b = read_triple(old), read_triple(new)
    if a.attribute == a.value or b.attribute == b.value:
        return False  # a statement of no known shape: whom it is about is not read
    who_a, who_b = names(a.attribute), names(b.attribute)
    return bool(who_a) and bool(who_b) and not who_a & who_b
