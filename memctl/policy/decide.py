"""The write decision: ADD / UPDATE / SUPERSEDE / NOOP for a candidate against similar memories.

Cosine similarity finds memories a candidate may be about, but it cannot tell a
repeat from a change ("Bob likes jazz" / "Bob dislikes jazz" score 0.88), so
after the similarity match the texts are compared token by token,
deterministically. Pure: the caller computes the cosines.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from difflib import SequenceMatcher
from itertools import pairwise
from typing import Literal

from pydantic import BaseModel, Field

from memctl.core.text import CJK_RANGES, stem
from memctl.core.textcache import text_cache
from memctl.policy.apart import additive, apart_reason, roles_reversed, subject_relations
from memctl.policy.converse import same_relation
from memctl.policy.facts import (
    NAMED_VALUES,
    announces_change,
    attribute_of,
    is_occurrence,
    names,
    names_other_things,
    relations,
    same_subject,
)
from memctl.policy.pairs import reading
from memctl.policy.restate import picks_one, restates
from memctl.policy.statement import moves_the_value, says_it_now, shares_slot, slot_relation, swaps_a_value
from memctl.policy.triple import of_two_people
from memctl.policy.when import absolute_dates

Relation = Literal["same", "less", "more", "changed", "different"]
SAME_SLOT_COSINE = 0.55  # a repeat told by its values alone must also read alike
Action = Literal["add", "noop", "update", "supersede"]
Opcode = tuple[str, int, int, int, int]  # difflib: (tag, old start, old end, new start, new end)

_CJK = CJK_RANGES
_CJK_CHAR = re.compile(f"([{_CJK}])")
_TOKEN = re.compile(
    r"(?P<num>\d+(?:,\d{3})*(?:[./:-]\d+)*(?:st|nd|rd|th)?)"
    rf"|(?P<cjk>[{_CJK}])"
    r"|(?P<word>[^\W\d_]+(?:'[^\W\d_]+)*)(?P<sign>(?:\+\+|#)(?!\w))?"
)
_FILLERS = frozenset(
    "a an the also really actually basically just indeed please 的 了 呢 吧 啊".split()
)
# Words whose swap alone does not change a fact. Directional prepositions (to/from, before/after,
# with/without), copulas (is/was: tense) and negations are deliberately not here.
_COPULAS = frozenset({"is", "are", "am", "was", "were"})
_FUNCTION_WORDS = frozenset(stem(w) for w in "a an the on in at every each per of and his her their its this that some very all".split())
_CONTRACTIONS = {"m": "am", "re": "are", "ve": "have", "ll": "will", "d": "would"}
_NT_BASES = {"ca": "can", "wo": "will", "sha": "shall"}


def _canon_number(raw: str) -> str:
    """A number or date as a value: no thousands commas, ordinals or leading zeros in date parts."""
    raw = re.sub(r"(st|nd|rd|th)$", "", raw.replace(",", ""))
    parts = re.split(r"([/:-])", raw)
    return "".join(p.lstrip("0") or "0" if p.isdigit() else p for p in parts)


def _expand_word(word: str) -> list[str]:
    """Split contractions so "doesn't" compares like "does not"."""
    if word == "cannot":
        return ["can", "not"]
    if word.endswith("n't"):
        base = _NT_BASES.get(word[:-3], word[:-3])
        return [base, "not"] if base else ["not"]
    base, _, suffix = word.partition("'")
    return [base] + ([_CONTRACTIONS[suffix]] if suffix in _CONTRACTIONS else [])


@text_cache(short=8192, long=512)  # bounded in bytes: a long-lived server reads texts of any length
def _token_pairs(text: str) -> tuple[tuple[str, str], ...]:
    """(normalised token, surface form) pairs; the surface form is kept for readable reasons.
    Cached: the write decision reads the same stored texts again for every candidate of their owner."""
    text = _CJK_CHAR.sub(r" \1 ", text.casefold().replace("\u2019", "'").replace("\u2018", "'"))
    out: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(text):
        if match.group("num"):
            out.append((_canon_number(match.group("num")), match.group("num")))
        elif match.group("cjk"):
            out.append((match.group("cjk"), match.group("cjk")))
        elif match.group("sign"):  # C++, C#, F#: the sign is part of the name ("C dev" is another language)
            out.append((match.group("word") + match.group("sign"), match.group("word") + match.group("sign")))
        else:
            out.extend((stem(w), w) for w in _expand_word(match.group("word")) if w)
    return tuple(pair for pair in out if pair[0] not in _FILLERS and pair[1] not in _FILLERS)


def tokens(text: str) -> list[str]:
    """Normalised content tokens of a text: what the decision rules compare."""
    return [token for token, _ in _token_pairs(text)]


def normalise(text: str) -> str:
    """Casefolded, punctuation-free, filler-free, lightly stemmed text (CJK runs unspaced)."""
    return _join_surface(tokens(text))


@text_cache(short=65536, long=2048)  # every candidate is compared with all its owner's memories of its type
def fingerprint(text: str) -> str:
    """A stable hash of the normalised text: equal fingerprints are provable repeats."""
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()[:16]


_NEGATIONS = frozenset(
    stem(w)
    for w in "not no never none nobody nothing neither nor without dislikes hates"
    " formerly previously former anymore stopped quit ex 不 没 无 非 别 未 曾".split()
)
_BEFORE_NOW = frozenset(stem(w) for w in ("previous", "former"))
_USED, _TO = stem("used"), stem("to")  # "used to" is a negation of the present; "used" is the stem of "uses" too
_ANTONYM_PAIRS = [
    ("likes", "dislikes"), ("likes", "hates"), ("loves", "hates"), ("loves", "dislikes"),
    ("prefers", "avoids"), ("enabled", "disabled"), ("enable", "disable"), ("allow", "deny"),
    ("allow", "forbid"), ("accept", "reject"), ("true", "false"), ("yes", "no"),
    ("always", "never"), ("increase", "decrease"), ("more", "less"), ("higher", "lower"),
    ("high", "low"), ("before", "after"), ("include", "exclude"), ("open", "closed"),
    ("start", "stop"), ("add", "remove"), ("on", "off"), ("pass", "fail"), ("early", "late"),
    ("light", "dark"), ("public", "private"), ("required", "optional"), ("good", "bad"),
    ("agree", "disagree"), ("max", "min"), ("maximum", "minimum"), ("best", "worst"),
]
_ANTONYMS = frozenset(
    frozenset((stem(a), stem(b))) for a, b in _ANTONYM_PAIRS
)
_OPPOSITES = {w: frozenset().union(*(p - {w} or p for p in _ANTONYMS if w in p)) for p in _ANTONYMS for w in p}
# CJK text is compared by characters, so its antonyms are matched as substrings.
_CJK_ANTONYMS = [("喜欢", "讨厌"), ("开启", "关闭"), ("打开", "关闭"), ("允许", "禁止"),
                 ("增加", "减少"), ("支持", "反对"), ("同意", "反对"), ("总是", "从不")]


def _is_number(token: str) -> bool:
    return token[:1].isdigit()


def _has_antonym_swap(removed: list[str], added: list[str]) -> bool:
    """True when a removed token and an added token are opposites (likes -> dislikes)."""
    added_words = set(added)  # a lookup a removed word, not every pair of words (two long texts)
    if any(_OPPOSITES.get(r, frozenset()) & added_words for r in set(removed)):
        return True
    old, new = "".join(removed), "".join(added)
    return any((a in old and b in new) or (b in old and a in new) for a, b in _CJK_ANTONYMS)


def antonym_swap(old: str, new: str) -> bool:
    """Whether two texts differ by a pair of opposite words ("likes" / "dislikes", "开启" / "关闭")."""
    return _has_antonym_swap(tokens(old), tokens(new))


def _diff_ops(old: list[str], new: list[str]) -> list[Opcode]:
    """The non-equal opcodes turning `old` into `new`."""
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    return [op for op in matcher.get_opcodes() if op[0] != "equal"]


def _flips_polarity(ops: list[Opcode], old: list[str], new: list[str]) -> bool:
    """A negation added or removed inside the statement (not in a trailing extra clause)."""
    for _, i1, i2, j1, j2 in ops:
        trailing = i2 == len(old) and j2 == len(new)
        if not trailing and _negations(old, i1, i2) != _negations(new, j1, j2):
            return True
    return False


def _negated_kept(ops: list[Opcode], old: list[str], new: list[str]) -> bool:
    """What a negation denies is said on the other side: the first two content words after it (the
    verb and its object) are there ("doesn't drink coffee" / "drinks coffee again"), not replaced by
    another ("不喝咖啡" / "每天喝一杯绿茶": both hold)."""
    for _, i1, i2, j1, j2 in ops:
        here, there = _negations(old, i1, i2), _negations(new, j1, j2)
        if here == there or (i2 == len(old) and j2 == len(new)):
            continue  # no negation added or removed here, or in a clause added at the end
        denied, end, other = (old, i2, new) if here > there else (new, j2, old)
        after = [t for t in denied[end:] if t not in _FUNCTION_WORDS and t not in _NEGATIONS][:2]
        return all(t in other for t in after)
    return True


def flips_polarity(old: str, new: str) -> bool:
    """True when a negation is added or removed inside the statement ("eats meat" / "doesn't eat
    meat"), not in a clause one of them adds at the end ("..., no sugar")."""
    old_t, new_t = tokens(old), tokens(new)
    return _flips_polarity(_diff_ops(old_t, new_t), old_t, new_t)


def _negations(toks: list[str], start: int = 0, end: int | None = None) -> int:
    """The negation words among toks[start:end] ("used to" counts, read in the whole list: "she uses
    Vim" negates nothing, and "I use Vim" / "I used to use Vim" inserts "to use", a negation)."""
    used_to = {k for n, (a, b) in enumerate(pairwise(toks)) if a == _USED and b == _TO for k in (n, n + 1)}
    span = range(start, len(toks) if end is None else end)
    return sum((toks[k] in _NEGATIONS and not _says_when(toks, k)) or k in used_to for k in span)


# "the previous month", "a former summer": a time before now, said of when something happened, not of
# a state that no longer holds ("formerly lived in Oslo", "her former boss").
_TIME_WORDS = frozenset(stem(w) for w in "day night morning evening week weekend month year summer winter spring "
                                         "autumn fall season semester term".split())


def _says_when(toks: list[str], k: int) -> bool:
    return toks[k] in _BEFORE_NOW and k + 1 < len(toks) and toks[k + 1] in _TIME_WORDS


def _replaced_value(ops: list[Opcode], old: list[str], new: list[str]) -> str | None:
    """What replaced a value in an otherwise matching statement: "number", "antonym", "word" (a small
    swap), or None."""
    removed = [t for _, i1, i2, _, _ in ops for t in old[i1:i2]]
    added = [t for _, _, _, j1, j2 in ops for t in new[j1:j2]]
    if any(map(_is_number, removed)) and any(map(_is_number, added)):
        return "number"
    if _has_antonym_swap(removed, added):
        return "antonym"
    equal = len(old) - len(removed)
    return "word" if equal >= 2 and max(len(removed), len(added)) <= equal else None


def _same_thing(old: str, new: str, replaced: str) -> bool:
    """Whether a replaced value is a new value of the same thing, not another thing.

    Different identifiers (flight, order, item numbers) name different things; two past
    occurrences (Gina asked on Monday, Gina asked today) are two facts unless the newer one announces
    a change; a swapped word counts only in an attribute that holds one value at a time (where
    someone lives, works, what they use or prefer), a number only outside occurrences."""
    if names_other_things(old, new):
        return False
    if replaced == "antonym":
        return True
    if is_occurrence(old) and is_occurrence(new) and not announces_change(new):
        return False
    attribute = attribute_of(new)
    if _other_thing(old, new):
        return False  # another person or place named, where a name is not the value: another thing
    if relations(old) != relations(new):
        return False  # "my sister lives in Lyon" / "my brother lives in Lyon": two people
    if two_occurrences(old, new):
        return False  # "meeting with Anna on 1 May" / "... on 13 May": two meetings, unless it says it moved
    if replaced == "number":
        return only_numbers_changed(old, new)  # a quote at 5.2% and a contract at 4.9% are two things
    if attribute == "schedule" and _participants_swapped(old, new):
        return False  # "appointment with the allergist" / "... with the dermatologist": two appointments
    return attribute is not None and attribute == attribute_of(old)


_WITH = re.compile(r"(?i)\bwith\s+(?:(?:the|a|an|my|our|his|her|their|your)\s+)?([a-z][\w'-]*)")


def _participants_swapped(old: str, new: str) -> bool:
    """Each text has an event with someone the other does not name (who a meeting or an appointment
    is with tells which one it is, as a name does)."""
    a, b = {stem(w) for w in _WITH.findall(old)}, {stem(w) for w in _WITH.findall(new)}
    return bool(a and b) and not a & b


_WEEKDAY = re.compile(r"(?i)\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|星期[一二三四五六日天]|周[一二三四五六日]")
_DAY_VALUE = re.compile(r"(?i)\b(?:is|are|was|were|'s|be)\s+(?:now\s+|still\s+)?(?:on|at|due|set for|scheduled for|"
                        r"planned for|every|in)\b|(?:改到|改在|改|定在|是在|在|是)\s*(?:\d|周|星期)")


def _days(text: str) -> set[str]:
    return {value for _, value in absolute_dates(text)} | {w.casefold().rstrip("s") for w in _WEEKDAY.findall(text)}


def two_occurrences(old: str, new: str, weekdays: bool = True) -> bool:
    """Each names a day the other does not, for something that happens on it, and the newer does not
    say it moved ("dentist appointment on 3 May" / "... on 10 June"): two occurrences, not a new value
    (`weekdays` False: dates only; a weekday may be a recurring schedule, "book club meets on Tuesdays")."""
    swapped = _days_swapped(old, new) if weekdays else _dates_swapped(old, new)
    return swapped and not (announces_change(new) or (_day_is_the_value(old) and _day_is_the_value(new)))


def _dates_swapped(old: str, new: str) -> bool:
    a, b = {value for _, value in absolute_dates(old)}, {value for _, value in absolute_dates(new)}
    return bool(a - b and b - a)


def _days_swapped(old: str, new: str) -> bool:
    """Each text names a day the other does not ("on 1 May" / "on 13 May", "Monday" / "Friday")."""
    a, b = _days(old), _days(new)
    return bool(a - b and b - a)


# A day that comes back every week ("Tuesdays", "every Monday", "weekly", 每周五) is a schedule's value.
_RECURRING = re.compile(r"(?i)\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days|every\s+(?:mon|tues|wednes|thurs|fri|"
                        r"satur|sun)day|weekly)\b|每个?(?:周|星期|礼拜)")
_COPULA_DAY = re.compile(r"(?i)\b(?:is|are|was|were|'s)\s+(?:now\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day")


def _day_is_the_value(text: str) -> bool:
    """The day is what the statement states ("the meeting is on Friday", "piano is Tuesdays"), or a
    day that comes back every week ("therapy on Fridays", "周报每周五交"), not when an occurrence happens
    ("meeting with Anna about the budget on 1 May")."""
    return bool(_DAY_VALUE.search(text) or _RECURRING.search(text) or _COPULA_DAY.search(text))


def _other_thing(old: str, new: str) -> bool:
    """Texts that name different things (identifiers, or people and places where a name is not the
    value, or each its own person the value is said of): similar, never in conflict."""
    return names_other_things(old, new) or (names(old) != names(new)
                                            and (attribute_of(new) not in NAMED_VALUES or of_two_people(old, new)))


def only_numbers_changed(old: str, new: str) -> bool:
    """True when every token that differs between the texts is a number or a date part."""
    old_t, new_t = tokens(old), tokens(new)
    ops = _diff_ops(old_t, new_t)
    changed = [t for _, i1, i2, j1, j2 in ops for t in (*old_t[i1:i2], *new_t[j1:j2])]
    return all(_is_number(t) or t in _FUNCTION_WORDS for t in changed)


def compare_texts(old: str, new: str) -> Relation:
    """How `new` relates to `old`: same, says less, adds detail, changes a value, or different."""
    old_t, new_t = tokens(old), tokens(new)
    if old_t == new_t:
        return "same"
    ops = _diff_ops(old_t, new_t)
    if sum(i2 - i1 for _, i1, i2, _, _ in ops) == len(old_t):
        return "different"  # nothing in common
    if _flips_polarity(ops, old_t, new_t) and _negated_kept(ops, old_t, new_t):
        return "changed"
    touched = [t for _, i1, i2, j1, j2 in ops for t in (*old_t[i1:i2], *new_t[j1:j2])]
    if all(t in _FUNCTION_WORDS for t in touched):
        return "same"  # only function words differ: "on Friday mornings" / "every Friday morning"
    if set(touched) <= _COPULAS and {"was", "were"} & set(touched) and {"is", "are", "am"} & set(touched):
        return "changed"  # "Alice is the lead" / "Alice was the lead": the state began or ended
    kinds = {op[0] for op in ops}
    if kinds == {"insert"}:
        return "more" if not names_other_things(old, new) else "different"
    if kinds == {"delete"}:
        return "less" if not names_other_things(old, new) else "different"
    if _possession_swapped(ops, old_t, old):
        return "different"
    replaced = _replaced_value(ops, old_t, new_t)
    return "changed" if replaced and _same_thing(old, new, replaced) else "different"


_POSSESSORS = frozenset({"my", "our", "his", "her", "their", "your"})


def _possession_swapped(ops: list[Opcode], old: list[str], text: str) -> bool:
    """The word the statement opens with swapped, or the one right after a possessor, and the rest
    said again with its values ("Mark's laptop runs Ubuntu 22.04" / "Mark's desktop runs ...", "my rent
    is due on the 1st" / "my car payment is due ...", "The gym costs $30" / "The pool costs $30"): the
    statement is about another thing, not a new value of the same thing. ("Bob is my manager" /
    "Carol is my manager" names no value after the swap: the name may be the value.)"""
    if not _one_replace(ops) or ops[0][1] > 1 or len(old) - ops[0][2] < 2:
        return False
    if ops[0][1] == 0:
        return any(map(_is_number, old[ops[0][2]:]))
    owner = re.escape(old[0])
    return old[0] in _POSSESSORS or re.search(rf"(?i)\b{owner}\w*'s\b|^{owner}的", text) is not None


def one_word_swapped(old: str, new: str) -> bool:
    """The texts differ in one small swap of words and nothing else ("I pay $45 a month for internet" /
    "... for my phone"): with the same values on both sides, the swapped words are what tells the
    two apart, not a repeat in other words."""
    old_t, new_t = tokens(old), tokens(new)
    ops = _diff_ops(old_t, new_t)
    return _one_replace(ops) and _replaced_value(ops, old_t, new_t) == "word"


def _one_replace(ops: list[Opcode]) -> bool:
    """The two texts differ in one run of words put in place of another, and nothing else."""
    return len(ops) == 1 and ops[0][0] == "replace"


def describe_change(old: str, new: str) -> str:
    """A short human summary of the first difference, e.g. "'16' -> '15'"."""
    old_p, new_p = _token_pairs(old), _token_pairs(new)
    for _, i1, i2, j1, j2 in _diff_ops([t for t, _ in old_p], [t for t, _ in new_p]):
        before = _join_surface([w for _, w in old_p[i1:i2]]) or "-"
        after = _join_surface([w for _, w in new_p[j1:j2]]) or "-"
        return f"{before!r} -> {after!r}"
    return "no difference"


def _join_surface(words: list[str]) -> str:
    return re.sub(f"(?<=[{_CJK}]) (?=[{_CJK}])", "", " ".join(words))


def announces_change_of(old: str, new: str) -> bool:
    """The newer text announces a new value of the attribute the older one states, for the same
    subject: "Hank moved to Shanghai" after "Hank lives in Beijing"."""
    if not announces_change(new):  # the cheap test first: most texts announce nothing
        return False
    attribute = attribute_of(new)
    return (attribute is not None and attribute == attribute_of(old)
            and same_subject(old, new) and not of_two_people(old, new) and not names_other_things(old, new))


def looks_conflicting(old: str, new: str, owner: str | None = None) -> bool:
    """A weaker signal than `changed`: opposite polarity or an antonym across two related texts, or
    a change announced for the attribute the older one states ("moved to" after "lives in")."""
    old_t, new_t = tokens(old), tokens(new)
    if compare_texts(old, new) == "changed":
        return True
    if names_other_things(old, new):
        return False
    if announces_change_of(old, new):
        return True
    if not shares_slot(old, new, owner):
        return False  # a negation or an antonym in statements about other things is no conflict
    if bool(_negations(old_t)) != bool(_negations(new_t)):
        return True
    return _has_antonym_swap(old_t, new_t)


class Candidate(BaseModel):
    """A memory that passed the gate and is about to be written (`history`: its key keeps every
    version, so a new value never supersedes at write time)."""

    text: str
    type: str
    key: str | None = None
    history: bool = False
    owner: str | None = None  # the user whose memory it is: their name is the first person


class Neighbor(BaseModel):
    """A stored memory the candidate may be about, with its cosine to the candidate."""

    id: str
    text: str
    type: str
    key: str | None = None
    cosine: float
    created: datetime | None = None
    confidence: float = 1.0
    frame_cosine: float | None = None  # cosine of the two frames, values masked (policy/pairs.py); None: not read
    ml_cosines: dict[str, float] | None = None  # the multilingual model's cosines of pairs.ml_pairs; None: not read


class Decision(BaseModel):
    """What to do with a candidate; `text` is what to store on update (None: the candidate's)."""

    action: Action
    target: str | None = None
    similar: list[str] = Field(default_factory=list)
    conflicts_with: list[str] = Field(default_factory=list)
    reason: str
    decided_by: Literal["rules", "llm", "none"] = "rules"
    text: str | None = None


_PRECEDENCE: dict[str, int] = {"noop": 0, "update": 1, "supersede": 2}


def _same_key(a: str | None, b: str | None) -> bool:
    return bool(a and b) and a.strip().casefold() == b.strip().casefold()  # type: ignore[union-attr]


def _judge(candidate: Candidate, old: Neighbor, threshold: float) -> tuple[Action | None, str]:
    """The rule-based action against one neighbour, or None when the rules cannot decide."""
    if old.type != candidate.type:
        return None, ""
    relation = compare_texts(old.text, candidate.text)
    repeat = _said_again(candidate, old, relation)
    if repeat:
        return "noop", repeat
    if relations(old.text) != relations(candidate.text):
        return None, ""  # "Mona flies to Cairo" / "Mona's sister flies to Cairo": another person
    same_key = _same_key(candidate.key, old.key)
    if (candidate.key and old.key and not same_key) or not (same_key or old.cosine >= threshold):
        return None, ""  # different explicit keys are different facts; too far apart to match
    if same_key and candidate.history and relation != "less":
        return None, ""  # a history key keeps every version: the new one is added beside the old
    if relation == "changed" and candidate.type == "event" and not (same_key or announces_change(candidate.text)):
        return None, ""  # an event is its own occurrence unless it says it moved
    return _by_relation(candidate, old, relation, same_key)


def _said_again(candidate: Candidate, old: Neighbor, relation: Relation) -> str:
    """Why the candidate is a repeat of the old memory whatever its key or cosine, or "": the same
    content, its values said again in other words, or one relation of two people from the other side."""
    if relation == "same":
        return f"same content as {old.id} after normalisation"
    if _restated(candidate, old):
        return f"says the values of {old.id} again, of the same predicate, in other words"
    if not (candidate.key or old.key) and same_relation(old.text, candidate.text):
        return f"says the relation of two people in {old.id} again, from the other side"
    return ""


def _by_relation(candidate: Candidate, old: Neighbor, relation: Relation, same_key: bool) -> tuple[Action | None, str]:
    """The action the texts' relation tells, for a neighbour of the candidate's subject close enough
    (or of its key)."""
    if relation == "less" and picks_one(old.text, candidate.text, candidate.owner):
        return None, ""  # "pills at 7 am, bed at 9 pm" / "pills at 9 pm": which word goes with the value is not told
    if relation == "less":
        return "noop", f"says nothing that {old.id} does not already say"
    if relation == "more" and additive(candidate.text):
        return None, ""  # "taking Organic Chemistry" / "taking the Organic Chemistry lab as well": another one beside
    if relation == "more":
        return "update", f"keeps the facts of {old.id} and adds detail"
    if relation == "changed" and not same_key and _apart(candidate, old):
        return None, ""  # another person, a value added beside, two occurrences: two facts
    if relation == "changed":
        return "supersede", f"changes a value of {old.id}: {describe_change(old.text, candidate.text)}"
    if same_key:
        return "supersede", f"same key {candidate.key!r} as {old.id} with a different value"
    if (slot_relation(old.text, candidate.text, candidate.owner) == "same" and old.cosine >= SAME_SLOT_COSINE
            and not one_word_swapped(old.text, candidate.text) and not roles_reversed(old.text, candidate.text, candidate.owner)):
        return "noop", f"states the same values of the same subject and attribute as {old.id}"
    return None, ""


def _restated(candidate: Candidate, old: Neighbor) -> bool:
    """The candidate says the old memory's values again of the same predicate (policy/restate.py),
    with no key on either side and no opposite words or negation added or removed."""
    if candidate.key or old.key or old.cosine < SAME_SLOT_COSINE:
        return False
    return restates(old.text, candidate.text, candidate.owner) and not (
        antonym_swap(old.text, candidate.text) or flips_polarity(old.text, candidate.text))


def _ordered(candidate: Candidate, neighbors: list[Neighbor]) -> list[Neighbor]:
    """Same key first, then most similar, then id: a deterministic order for ties."""
    return sorted(neighbors, key=lambda n: (not _same_key(candidate.key, n.key), -n.cosine, n.id))


def decide(
    candidate: Candidate,
    neighbors: list[Neighbor],
    *,
    duplicate_threshold: float = 0.85,
    related_threshold: float = 0.55,
) -> Decision:
    """Decide ADD / UPDATE / SUPERSEDE / NOOP by rules; a NOOP is only returned for provable repeats."""
    ordered = _ordered(candidate, neighbors)
    judged = [(n, *_judge(candidate, n, duplicate_threshold)) for n in ordered]
    decided = [(n, a, r) for n, a, r in judged if a is not None]
    # min() is stable, so among equal actions the first in `ordered` (same key, closest) wins.
    best = min(decided, key=lambda d: _PRECEDENCE[d[1]], default=None)
    target = best[0].id if best else None
    related = [n for n in ordered if n.id != target
               and (n.cosine >= related_threshold or _same_key(candidate.key, n.key))]
    related_ids = [n.id for n in related]
    conflicts = [n.id for n, action, _ in judged if n.id != target and (
        action == "supersede" or (_weak_conflict(candidate, n, n.id in related_ids) and not _apart(candidate, n)))]
    if best is None:
        return _by_model(candidate, ordered, related_ids, conflicts)
    old, action, reason = best
    return Decision(action=action, target=old.id, similar=related_ids,
                    conflicts_with=conflicts, reason=reason,
                    text=candidate.text if action == "update" else None)


def _weak_conflict(candidate: Candidate, n: Neighbor, related: bool) -> bool:
    """A possible conflict by a weaker signal than a supersede: a negation or an antonym across two
    related texts, a change announced, or the same slot with another value."""
    return ((related and looks_conflicting(n.text, candidate.text, candidate.owner) and not _other_thing(n.text, candidate.text))
            or announces_change_of(n.text, candidate.text)
            or (n.type == candidate.type and moves_the_value(n.text, candidate.text, candidate.owner))
            or (n.type == candidate.type and says_it_now(n.text, candidate.text, candidate.owner))
            or (n.type == candidate.type and slot_relation(n.text, candidate.text, candidate.owner) == "change")
            or (n.type == candidate.type and swaps_a_value(n.text, candidate.text, candidate.owner)
                and subject_relations(n.text, candidate.owner) == subject_relations(candidate.text, candidate.owner)
                and not two_occurrences(n.text, candidate.text)))


def _apart(candidate: Candidate, n: Neighbor) -> bool:
    """The structure says two facts that both hold (policy/apart.py), unless they share a key."""
    opposite = antonym_swap(n.text, candidate.text) or flips_polarity(n.text, candidate.text)
    return not _same_key(candidate.key, n.key) and apart_reason(n.text, candidate.text, candidate.owner, opposite) is not None


def _by_model(candidate: Candidate, ordered: list[Neighbor], related: list[str], conflicts: list[str]) -> Decision:
    """When no rule decides: the fitted pair model's reading of the neighbours whose frames were
    compared (a repeat in other words is a NOOP of the closest one; a change is linked as a possible
    conflict, never superseded on the model's word alone, nor linked where the rules read two
    occurrences)."""
    readings = [(n, reading(n.text, candidate.text, candidate.owner, n.cosine, n.frame_cosine, n.ml_cosines))
                for n in ordered if n.frame_cosine is not None and n.type == candidate.type and not n.key]
    repeat = next((n for n, r in readings if r == "duplicate" and n.id not in conflicts
                   and not _attribute_swapped(n.text, candidate.text)
                   and not roles_reversed(n.text, candidate.text, candidate.owner)), None)
    if repeat is not None and not candidate.key:
        return Decision(action="noop", target=repeat.id, similar=[i for i in related if i != repeat.id],
                        conflicts_with=conflicts, reason=f"says what {repeat.id} says in other words (pair model)")
    conflicts = [*conflicts, *(n.id for n, r in readings if r == "change" and n.id not in conflicts
                               and not _apart(candidate, n) and not two_occurrences(n.text, candidate.text, weekdays=False))]
    return Decision(action="add", similar=related, conflicts_with=conflicts, reason=_add_reason(related, conflicts))


def _attribute_swapped(old: str, new: str) -> bool:
    """Texts alike but for one word swapped, the same values on both sides ("I live in Denver" / "I
    was born in Denver"): the swapped word is the attribute, so no repeat to drop. Chinese is
    compared by character, and one run swapped there is as often the same thing said another way
    ("开小鹏P7" / "的车是小鹏的P7"): only a thing swapped tells two facts apart there."""
    if not one_word_swapped(old, new):
        return False
    return not _CJK_CHAR.search(old + new) or _thing_swapped(old, new)


def _thing_swapped(old: str, new: str) -> bool:
    """The Chinese run swapped is the thing after a possessor on both sides, a pronoun or a name with
    的 ("我的身份证2029年到期" / "我的护照2029年到期", "李明的..." / "李明的...", "韩雪家的冰箱" /
    "韩雪家的洗衣机"; "我的车是..." / "我开..." is none), or the thing the texts open with, its value
    right after it ("身份证2029年到期" / "护照2029年到期"; "宇航开小鹏P7" / "我的车是小鹏的P7" opens with
    two people), or a word of two characters or more for another, the same number after it on both
    sides ("张伟每月房租3000" / "张伟每月车贷3000"; "开" / "车是" is a verb said another way)."""
    old_t, new_t = tokens(old), tokens(new)
    [(_, i1, i2, j1, j2)] = _diff_ops(old_t, new_t)
    if i1 == 0:
        return any(map(_is_number, old_t[i2:i2 + 1])) and any(map(_is_number, new_t[j2:j2 + 1]))
    if min(i2 - i1, j2 - j1) >= 2 and any(map(_is_number, old_t[i2:])):
        return True
    owner = re.escape("".join(old_t[:i1]))
    return i1 <= 4 and all(re.match(rf"(?i){owner}的", text) for text in (old, new))


def _add_reason(related: list[str], conflicts: list[str]) -> str:
    if conflicts:
        return f"new fact; possibly conflicts with {', '.join(conflicts)}"
    if related:
        return f"similar to {', '.join(related)} but not provably the same fact"
    return "no similar memory"


def is_ambiguous(decision: Decision) -> bool:
    """An add the rules made only for lack of proof while similar memories exist: worth an LLM."""
    return decision.action == "add" and decision.decided_by == "rules" and bool(
        decision.similar or decision.conflicts_with
    )


_PROMPT = """You maintain an AI agent's long-term memory.
Decide how a NEW memory relates to the EXISTING memories.

1. Extract the facts the new memory states.
2. Compare them with each existing memory.
3. Decide exactly one action:
   - ADD: the new memory states a fact that is not stored yet (also when it only looks similar).
   - UPDATE: it is the same fact as one existing memory with extra detail;
     put the merged text in "text".
   - SUPERSEDE: it gives a new value of the same attribute of the same subject as one existing
     memory (a changed value, a negation): that memory is retired and the new one is stored.
     Another person ("my sister" / "my brother"), another thing (another invoice, flight, day)
     is ADD, not SUPERSEDE.
   - NOOP: one existing memory already says everything the new one says.
Never answer NOOP when the new memory holds any fact the target does not.

Answer with one JSON object and nothing else:
{{"action": "ADD" | "UPDATE" | "SUPERSEDE" | "NOOP", "target": "<existing id, or null for ADD>",
 "text": "<merged text, only for UPDATE>", "reason": "<one sentence>"}}

NEW MEMORY (type {type}, key {key}):
{text}

EXISTING MEMORIES:
{existing}
"""


def llm_decision_prompt(candidate: Candidate, neighbors: list[Neighbor]) -> str:
    """The extract-compare-decide prompt asking an LLM for a JSON decision."""
    lines = [
        f"- id {n.id} (type {n.type}, key {n.key or '-'}, similarity {n.cosine:.2f}): "
        + json.dumps(n.text, ensure_ascii=False)
        for n in _ordered(candidate, neighbors)
    ]
    return _PROMPT.format(
        type=candidate.type,
        key=candidate.key or "-",
        text=json.dumps(candidate.text, ensure_ascii=False),
        existing="\n".join(lines) or "(none)",
    )


_LLM_ACTIONS: dict[str, Action] = {
    "ADD": "add", "UPDATE": "update", "SUPERSEDE": "supersede", "DELETE": "supersede", "NOOP": "noop",
}


def _first_json_object(output: str) -> dict | None:
    """The first JSON object with an "action" in the output, wherever it sits (fence, prose)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", output):
        try:
            obj, _ = decoder.raw_decode(output, match.start())
        except ValueError:
            continue
        if isinstance(obj, dict) and "action" in obj:
            return obj
    return None


def _clean_target(raw: object) -> str | None:
    if raw is None or (isinstance(raw, str) and raw.strip().casefold() in ("", "null", "none")):
        return None
    return str(raw).strip()


def parse_llm_decision(output: str, neighbors: list[Neighbor]) -> Decision | None:
    """Turn an LLM's answer into a Decision; None when malformed so the caller falls back to rules."""
    obj = _first_json_object(output)
    if obj is None:
        return None
    action = _LLM_ACTIONS.get(str(obj.get("action", "")).strip().upper())
    target = _clean_target(obj.get("target"))
    ids = [n.id for n in neighbors]
    if action is None or (target is not None and target not in ids):
        return None
    if action != "add" and target is None:
        return None
    text = obj.get("text") if action == "update" else None
    raw_reason = obj.get("reason")
    reason = raw_reason if isinstance(raw_reason, str) else ""
    return Decision(
        action=action,
        target=None if action == "add" else target,
        similar=[i for i in ids if i != target or action == "add"],
        reason=" ".join(reason.split()) or f"llm answered {action}",
        decided_by="llm",
        text=text.strip() if isinstance(text, str) and text.strip() else None,
    )
