"""Statements as subject, attribute and value: what tells a change from another fact (pure).

"My phone is an iPhone 13" and "my sister lives in Lyon" name a subject (the owner, or someone
related to them, or a named person), an attribute (the words the two statements of one slot share:
"plate", "budget", "dentist", "yoga") and a value (the names, numbers, dates and other words that
fill the slot). The owner's own name is the first person: in Wendy's memories "Wendy's team" and
"our team" are one subject. Two statements of the same subject about the same attribute with
another value are a change; the same value again is a repeat; another subject, or the attribute
with another qualifier ("grocery budget" / "dining-out budget"), is another fact. The word lists
are English and Chinese grammar (pronouns, function words), not about any data set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from memctl.core.text import CJK_RANGES, stem
from memctl.policy.distinct import Values, values_of, without_emails
from memctl.policy.facts import (
    THING_WORDS,
    announces_change,
    is_occurrence,
    labelled_things,
    moved_thing,
    moved_to,
    relations,
)
from memctl.policy.facts import names as capitalised_names
from memctl.policy.measures import COUNT, comparable, number_kinds
from memctl.policy.when import absolute_dates

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_CJK_RUN = re.compile(f"[{CJK_RANGES}]+")
_FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves i'm i've i'll i'd we're we've".split())
_STOP = frozenset(stem(w) for w in """a an the and or but of to in on at by for from with without into onto about as
    is are am was were be been being has have had do does did will would can could should may might must shall
    it its this that these those there here he she they them his her their him hers theirs you your yours
    i me my mine we us our ours who whom which what when where why how not no never
    now new newly currently still again anymore any more just also too very really so then than since after
    before instead every each per all some both other another one last next this that
    got get gets getting go goes going went gone take takes took make makes made put keep keeps kept
    switched switch changed change moved move started start stopped stop became become use uses used using
    like likes thing things lot lots bit way ways time times day days week weeks month months year years
    please okay ok yes yeah actually basically mr mrs ms dr pm""".split()) | _FIRST_PERSON
# Chinese: characters that carry grammar, not a slot (pronouns, particles, copulas, measure words).
ZH_STOP = frozenset("我你他她它们的了是在和与也都还就又很再不没把被给让从到对向跟叫有个一这那每上下里现改成")


SLOT_SHARE = 0.2  # the share of their content words two statements of one slot have in common


@dataclass(frozen=True)
class Statement:
    """A statement read for the write decision."""

    subject: frozenset[str]  # relations ("sister") and named people it speaks of; empty: the owner
    slot: frozenset[str]  # content words (English stems, Chinese character pairs)
    values: Values
    words: tuple[str, ...]  # the content words in order (to read a slot word's qualifier)


def owner_free(text: str, owner: str | None) -> str:
    """The text with the owner's own name read as the first person ("Wendy's team" -> "my team")."""
    if not owner:
        return text
    name = re.escape(owner.strip())
    text = re.sub(rf"(?i)\b{name}(?:'s|’s)\b", "my", text) if name else text
    text = re.sub(rf"(?i)(?<![@.])\b{name}\b(?![.\w+-]*@)", "I", text) if name else text  # not in an email address
    return text.replace(owner, "我") if re.search(f"[{CJK_RANGES}]", owner) else text


def _content(text: str, lead: bool = False) -> list[str]:
    text = without_emails(text)  # an email address is a value, never a slot word
    words = [stem(re.sub(r"'s?$", "", w.lower()).strip("'-")) for w in _WORD.findall(text.replace("\u2019", "'"))]
    english = [w for w in words if len(w) > 1 and w not in _STOP and not w.isdigit()]
    pairs = []
    for n, run in enumerate(_CJK_RUN.findall(text)):
        kept = "".join(ch for ch in run if ch not in ZH_STOP)
        # a leading pair is the subject (`lead`: only when the text opens with it, not after grammar words)
        subject = n == 0 and not (lead and set(run[:2]) & ZH_STOP)
        pairs += [kept[i:i + 2] for i in range(len(kept) - 1) if i or not subject]
    return english + pairs


def content_words(text: str) -> list[str]:
    """The content words of a text (English stems, Chinese character pairs), grammar words left out."""
    return _content(text)


# A verb that says who holds a relation to the subject names that relation as the attribute: "Sophie
# reports to Jenna" says who her boss is, "丽娜向李姐汇报" who her 领导 is, "married to Tom" who her husband is.
_RELATION_VERBS = (
    (re.compile(r"(?i)\breport(?:s|ed|ing)?\s+(?:directly\s+)?to\b|向.{1,8}?汇报"),
     frozenset({"boss", "manag", "supervisor", "领导", "上司", "老板", "经理"})),
    (re.compile(r"(?i)\bmarried\s+to\b|嫁给|娶了"), frozenset({"husband", "wife", "spous", "老公", "老婆", "丈夫", "妻子"})),
    (re.compile(r"(?i)\brent(?:s|ed|ing)?\s+from\b"), frozenset({"landlord"})),
)


# One role said by another word ("my GP" / "my doctor", "my attorney" / "my lawyer"): English vocabulary.
_ROLE_WORDS = {stem(a): stem(b) for a, b in (
    ("gp", "doctor"), ("physician", "doctor"), ("pcp", "doctor"), ("attorney", "lawyer"),
    ("counselor", "therapist"), ("counsellor", "therapist"), ("psychotherapist", "therapist"),
    ("vet", "veterinarian"), ("boss", "manager"), ("supervisor", "manager"))}


def role_words(words: set[str]) -> set[str]:
    """The roles the words name in one word each: a synonym's common word, and for an agent noun in
    -ist the field it works in ("therapist" therapy, "pianist" piano, "guitarist" guitar)."""
    out = {_ROLE_WORDS[w] for w in words if w in _ROLE_WORDS}
    for word in (w for w in words | out if w.endswith("ist") and len(w) > 6):
        out |= {stem(word[:-3] + "y"), word[:-3] + "o", word[:-3]}
    return out


def attribute_words(text: str, owner: str | None = None) -> set[str]:
    """The content words a statement may name its attribute with: those of its slot, and in Chinese
    the pair that opens the text after grammar words ("我们年会定在..." names 年会; the slot leaves
    out the opening pair, a subject such as a name); a capitalised Latin word in Chinese text is a
    name or a brand, a subject or a value, never the attribute. A relation a verb says who holds
    ("reports to", "married to": `_RELATION_VERBS`) is an attribute word too."""
    plain = owner_free(text, owner)
    said = {word for verb, words in _RELATION_VERBS if verb.search(plain) for word in words}
    if not re.search(f"[{CJK_RANGES}]", plain):
        slot = set(read_statement(text, owner).slot)
        return slot | role_words(slot) | said
    return set(_content(re.sub(r"[A-Z][A-Za-z0-9-]*", " ", plain), lead=True)) | said  # a Latin name is a value


def opening_pair(text: str) -> str | None:
    """The Chinese character pair a text opens with, when it opens with one holding no grammar
    character ("小新摔坏了" 小新; "我的..." none)."""
    run = _CJK_RUN.match(text)
    head = run.group()[:2] if run else ""
    return head if len(head) == 2 and not set(head) & ZH_STOP else None


@lru_cache(maxsize=16384)  # a pure reading of the text: the write decision reads the same neighbours add after add
def read_statement(text: str, owner: str | None = None) -> Statement:
    """Subject, slot and values of one statement (the owner's name read as the first person)."""
    plain = owner_free(text, owner)
    values = values_of(plain)
    people = {n for n in values.names if n.casefold() in _people_in(plain)}
    words = [w for w in _content(plain) if w not in people]
    return Statement(subject=frozenset(relations(plain) | people), slot=frozenset(words), values=values,
                     words=tuple(words))


def _people_in(text: str) -> set[str]:
    """Names used as a subject: a capitalised word opening a clause before a verb-like word or a
    possessive ("Sophie reports", "Max's plate"); "Dr. Huang is my dentist" names the value."""
    found = re.findall(r"(?:^|[.;,!?]\s+|\band\s+)([A-Z][a-z]+)(?:'s\b|\s+(?!is\b|was\b|has\b)(?:[a-z]+s|[a-z]+ed)\b)",
                       text)
    return {n.casefold() for n in found}


def qualifier_differs(a: Statement, b: Statement, shared: set[str]) -> bool:
    """A shared slot word qualified differently on each side ("grocery budget" / "dining-out budget",
    "买菜预算" / "吃饭预算"): the word before it in each text, missing from the other text."""
    for word in shared:
        before_a = {q for i, w in enumerate(a.words) if w == word and (q := _qualifier(a.words, i, shared)) and not _when(q)}
        before_b = {q for i, w in enumerate(b.words) if w == word and (q := _qualifier(b.words, i, shared)) and not _when(q)}
        if before_a and before_b and not before_a & before_b and not before_a & b.slot and not before_b & a.slot:
            return True
    return False


def _when(word: str) -> bool:
    """A word saying when ("today", "Monday"): it tells when a statement was said, no thing it is of."""
    return bool(values_of(word).dates)


def _overlap(first: str, second: str) -> bool:
    """Two Chinese character pairs read from one run, the second starting where the first ends."""
    return bool(_CJK_RUN.fullmatch(first + second)) and first[-1] == second[0]


def _qualifier(words: tuple[str, ...], i: int, shared: set[str]) -> str | None:
    """The word before the slot word at `i`. Chinese is read as overlapping character pairs, so a word
    is the run of shared pairs it belongs to (钢琴, 琴课: 钢琴课), and what qualifies it is the pair that
    ends before the run (周二晚上钢琴课: 二晚), not the pair straddling its first character (晚钢)."""
    while i > 0 and words[i - 1] in shared and _overlap(words[i - 1], words[i]):
        i -= 1
    if i > 0 and _overlap(words[i - 1], words[i]):
        i -= 1
        return words[i - 1] if i > 0 and _overlap(words[i - 1], words[i]) else None
    return words[i - 1] if i > 0 else None


_NAME_RUN = re.compile(r"[A-Z][\w'-]*(?:\.?[ \t]+[A-Z][\w'-]*)*")  # "Alliant Credit Union", "Dr. Lee"


def _name_written_out(longer: str, shorter: str, a: Values, b: Values) -> bool:
    """Only the names differ, and one side names a part of the other's (Alliant / Alliant Credit Union):
    one name written short and in full, not a new value. Each run of capitalised words in the `longer`
    text that holds a name the `shorter` one never says must hold a whole name of the shorter text:
    "Bob Smith" / "Bob" is one person; "Bob and Carol" / "Bob" is a list that lost a member, and so is
    "Bob Smith and Carol Smith" / "Bob Smith" (the shared surname is not Carol's whole name)."""
    if any(getattr(a, kind) != getattr(b, kind) for kind in ("numbers", "dates")) or a.negated != b.negated:
        return False
    shared = a.names & b.names
    if not shared or not (a.names < b.names or b.names < a.names):
        return False
    extra = a.names ^ b.names
    short_runs = [run for run in _name_runs(shorter, shared) if run]
    return all(any(whole <= run for whole in short_runs) for run in _name_runs(longer, a.names | b.names) if run & extra)


def _name_runs(text: str, names: frozenset[str] | set[str]) -> list[set[str]]:
    """The names each run of capitalised words says ("Dr. Lee", "Alliant Credit Union")."""
    return [{w.casefold() for w in re.findall(r"[\w'-]+", m.group())} & names for m in _NAME_RUN.finditer(text)]


_NAMED = re.compile(r"(?i)\b(?:named|called)\s+([A-Z][\w'-]*)")


def _only_a_name_introduced(old: str, new: str, a: Values, b: Values) -> bool:
    """The one value that differs is a name only one side says, and it names a thing there ("a cat
    named Salem", "a dog called Rex"): no value of the other side is replaced."""
    if any(getattr(a, kind) != getattr(b, kind) for kind in ("numbers", "dates")) or a.negated != b.negated:
        return False
    lone, text = (b.names, new) if not a.names else (a.names, old) if not b.names else (frozenset(), "")
    return bool(lone) and lone <= {n.casefold() for n in _NAMED.findall(text)}


def _values_differ(a: Values, b: Values) -> bool:
    return any(getattr(a, kind) != getattr(b, kind) for kind in ("numbers", "dates", "names")) or a.negated != b.negated


# A new value added beside the old one, not in its place ("I speak some German too", "我还养了一只仓鼠").
_ADDITIVE = re.compile(r"(?i)\b(?:too|also|as well|another|a second|additionally|besides)\b|还|也|另外|又")
_PAST_ACT = re.compile(r"(?i)\b(?:paid|spent|bought|went|visited|ran|ate|met|saw|had)\b|了")


def slot_relation(old: str, new: str, owner: str | None = None) -> str | None:
    """"change" (same subject and attribute, another value), "same" (the same value again), or
    None (another fact, or nothing the structure can tell). A value added "too" is another fact, and
    so is another day of something that happened or happens (an occurrence, not a slot)."""
    a, b = read_statement(old, owner), read_statement(new, owner)
    if a.subject != b.subject or a.values.identifiers != b.values.identifiers or _ADDITIVE.search(new):
        return None
    if a.values.dates and b.values.dates and a.values.dates != b.values.dates and not _is_stated_day(old, new):
        return None
    shared = set(a.slot & b.slot)
    if not shared or len(shared) < SLOT_SHARE * len(a.slot | b.slot) or qualifier_differs(a, b, shared):
        return None
    longer, shorter = (old, new) if b.values.names < a.values.names else (new, old)
    if _values_differ(a.values, b.values) and _name_written_out(owner_free(longer, owner), owner_free(shorter, owner),
                                                                 a.values, b.values):
        return "same" if b.values.names < a.values.names else None  # "Alliant Credit Union" / "Alliant"
    if _only_a_name_introduced(old, new, a.values, b.values):
        return None  # "allergic to cats" / "has a cat named Salem": the name is the new thing's, no old value's
    if _values_differ(a.values, b.values):  # other words alone are no new value: "another pottery project"
        replaced = value_replaced(a.values, b.values, old, new) and not measures_another_attribute(old, new, owner)
        return "change" if replaced or announces_change(new) else None
    return "same" if _has_values(a.values) else None


def _number_kind(number: str) -> str:
    """What a number measures by its form alone (a number word, "two"): money, a clock time, a share or a count."""
    if number[:1] in "$€£¥₹":
        return "money"
    return "clock" if ":" in number else "share" if number.endswith("%") else "count"


def _kinds(v: Values, text: str) -> dict[str, frozenset[str]]:
    """A statement's values by kind, numbers split by what they measure (policy/measures.py: a model
    year, a distance, a dose are three kinds)."""
    out = {"identifiers": v.identifiers, "dates": v.dates, "names": v.names}
    measured = number_kinds(text)
    for number in v.numbers:
        kind = measured.get(number) or _number_kind(number)
        out[kind] = out.get(kind, frozenset()) | {number}
    return out


def _pairs_of_kinds(left: dict[str, frozenset[str]], right: dict[str, frozenset[str]]) -> list[tuple[frozenset[str], frozenset[str]]]:
    """For each kind of value either side names, the two sides' values that may be values of it."""
    return [(comparable(left, kind), comparable(right, kind)) for kind in sorted(left.keys() | right.keys())]


def _swapped_kinds(left: dict[str, frozenset[str]], right: dict[str, frozenset[str]]) -> list[str]:
    """The kinds of value each side names one the other does not (a value swapped for another)."""
    kinds = sorted(left.keys() | right.keys())
    return [kind for kind, (x, y) in zip(kinds, _pairs_of_kinds(left, right)) if x - y and y - x]


def value_replaced(a: Values, b: Values, old: str = "", new: str = "") -> bool:
    """A value of one kind in place of another of that kind ("iPhone 13" / "Pixel 8", "$30" / "$35"), or
    the statement negated: a new value. A value one side adds where the other names none of its
    kind ("my car is a Toyota" / "my car is silver", "the class is on Tuesday" / "it costs $18", "a
    2019 Outback" / "62,000 miles on it") is another attribute said, not the old value replaced."""
    return a.negated != b.negated or any(
        left and right and left != right for left, right in _pairs_of_kinds(_kinds(a, old), _kinds(b, new)))


def measures_another_attribute(old: str, new: str, owner: str | None = None) -> bool:
    """Each statement names a number or an identifier of a kind the other names none of (nor a bare
    count, which may be any measure said without its unit), and no value of one kind is swapped for another of it: two
    attributes of one thing, each said with its own value ("Isla's yoga class is Tuesday at 7pm" /
    "... costs $18 a session", "a 2019 Subaru Outback" / "62,000 miles on it"), not a new value."""
    a, b = read_statement(old, owner), read_statement(new, owner)
    left, right = _kinds(a.values, old), _kinds(b.values, new)
    if a.values.negated != b.values.negated or _swapped_kinds(left, right):
        return False
    return _lone_kind(left, right, recurring(old)) and _lone_kind(right, left, recurring(new))


def _lone_kind(one: dict[str, frozenset[str]], other: dict[str, frozenset[str]], schedule: bool = False) -> bool:
    """`one` names a number or an identifier of a kind `other` names nothing comparable to (a name may
    be the subject, a date when something happened: "sold it last week"; a day said as a habit, "on
    Thursdays", is the thing's schedule, a value of its own)."""
    if other.get(COUNT):
        return False
    skipped = ("names", COUNT) if schedule else ("names", "dates", COUNT)
    return any(values and not comparable(other, kind) for kind, values in one.items() if kind not in skipped)


_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_RECURRING = re.compile(rf"\b(?:every\s+{_DAY}|{_DAY}s)\b|每(?:个)?(?:周|星期|礼拜)[一二三四五六日天]", re.IGNORECASE)


def recurring(text: str) -> bool:
    """Whether a text names a day of the week as a habit ("on Thursdays", "every Monday", 每周三): a
    schedule, not the day something happened."""
    return bool(_RECURRING.search(text))


OTHER_WORDING = 0.5  # the share of words two statements say in one order, below which the wording is another
_UNIT = re.compile(rf"[a-z][a-z'-]*|\d+|[{CJK_RANGES}]")


def reworded(a: str, b: str) -> bool:
    """Whether two texts are said in other words: under half of their words (Chinese by character)
    in one order, as the token rules compare them. A near copy is for the token rules."""
    units_a, units_b = (_units(t) for t in (a, b))
    return SequenceMatcher(None, units_a, units_b, autojunk=False).ratio() < OTHER_WORDING


def _units(text: str) -> list[str]:
    return [stem(w) for w in _UNIT.findall(text.casefold())]


def swaps_a_value(old: str, new: str, owner: str | None = None) -> bool:
    """An English statement of the same named people (the caller compares the relations each is
    about: "my brother, Ken" / "my wife Aiko" as an emergency contact are values) naming an attribute word of the other with a value of
    one kind in place of another, each side naming one the other does not ("My car insurance is with
    Geico, $140/month" / "Geico renewal came in at $172 a month", "My laptop is a MacBook Pro" / "The
    MacBook died, so I'm on a ThinkPad"; a code both name is such a word, "B12 was 180" / "B12 came back
    at 420"), or the statement negated: a change said in other words, too
    few of them shared for `slot_relation` (a near copy with a value swapped, "Bob's laptop is a
    ThinkPad X1" / "... a MacBook Air", is for the token rules: two things unless it says it
    changed). Not in Chinese, whose content words are character pairs:
    one pair shared (这个月的电费 / 这个月的燃气费) is no sign of one attribute."""
    if re.search(f"[{CJK_RANGES}]", old + new):
        return False
    a, b = read_statement(old, owner), read_statement(new, owner)
    shared = attribute_words(old, owner) & attribute_words(new, owner) | (a.values.identifiers & b.values.identifiers)
    if a.subject - a.values.relations != b.subject - b.values.relations or not shared:
        return False
    ids_a, ids_b = a.values.identifiers, b.values.identifiers
    if ids_a and ids_b and ids_a != ids_b and not _identifiers_are_values(old, new, shared):
        return False
    if qualifier_differs(a, b, set(a.slot & b.slot) - _value_labels(old, new, ids_a != ids_b)):
        return False
    swapped = _swapped_kinds(_kinds(a.values, old), _kinds(b.values, new))
    if swapped == ["dates"] and _relative_times_only(old, new, a.values, b.values):
        return False  # "attended a parade last week" / "... a conference this month": two times, two things
    return bool(a.values.negated != b.values.negated or swapped) and reworded(owner_free(old, owner), owner_free(new, owner))


def _relative_times_only(old: str, new: str, a: Values, b: Values) -> bool:
    """The dates swapped are all said from when the text was said ("last week", "this month"), no date
    of a calendar, and one text tells of something that happened then (an occurrence)."""
    calendar = {value for text in (old, new) for _, value in absolute_dates(text)}
    return not (a.dates | b.dates) & calendar and (is_occurrence(old) or is_occurrence(new))


def _identifiers_are_values(old: str, new: str, shared: set[str]) -> bool:
    """Identifiers, not the same on both sides, that are values of one thing both
    statements speak of: a word that may label a numbered thing is shared and labels no identifier
    of either ("my desk is 5-02" / "... desk ... spot 3-17", "the Cairo flight leaves from Terminal 3" /
    "... flight to Cairo departs from Terminal 1"), and no name of that thing swapped ("the flight to
    Rome" / "... to Cairo" are two flights). "Flight UA12" / "flight UA14", "locker 12" / "locker 14"
    label the thing itself: two things."""
    a, b = read_statement(old).values, read_statement(new).values
    if not (a.names <= b.names or b.names <= a.names):
        return False
    return bool(shared & THING_WORDS - labelled_things(old) - labelled_things(new))


def _value_labels(old: str, new: str, swapped: bool) -> frozenset[str]:
    """The words labelling identifiers swapped as values ("Terminal" of "Terminal 1" / "Terminal 3"):
    part of the value, so the word before them qualifies no attribute ("departs from" / "leaves from")."""
    return labelled_things(old) | labelled_things(new) if swapped else frozenset()


def _is_stated_day(old: str, new: str) -> bool:
    """The day is the value of a stated slot in both ("the kickoff is on 2 February", "每周二上课"), not the day an
    occurrence happened ("paid $89 in January") or happens ("dentist appointment on 3 May")."""
    stated = re.compile(r"(?i)\b(?:is|are|was)\s+(?:now\s+)?(?:on|at|in|due|set|every)?\b|['’]s\s+(?:now\s+)?(?:on|at|in|due|set|every)\b"
                        r"|[:：]|是|在|定在|改到|约在"
                        r"|每个?(?:周|星期|礼拜)")  # 每周二 is "every Tuesday": a recurring schedule is a slot
    return bool(stated.search(old) and stated.search(new)) and not (_PAST_ACT.search(old) or _PAST_ACT.search(new))


def _has_values(v: Values) -> bool:
    return bool(v.numbers or v.dates or v.names or v.identifiers)


def shares_slot(old: str, new: str, owner: str | None = None) -> bool:
    """Whether two statements speak of one slot at all (enough content words in common): a negation in
    one of two statements about other things ("doesn't drink coffee" / "has a green tea") is no conflict."""
    a, b = read_statement(old, owner), read_statement(new, owner)
    shared = a.slot & b.slot
    return bool(shared) and len(shared) >= SLOT_SHARE * len(a.slot | b.slot)


# A word written with a capital, inside or after a digit too ("LastPass", "1Password", "Linear"): a name.
# Each run of word characters and hyphens is read once, from its first word character to its end (a
# search for the capital from every word start of a long hyphenated run read the rest of it: quadratic).
_WORD_RUN = re.compile(r"(?<![\w-])-*+(\w[\w-]*+)")
_CAPITAL = re.compile(r"[A-Z]")
_SENTENCE_END = re.compile(r"[.!?]\s+")  # what a sentence's first word follows


def _capitalised(text: str, opening: bool = False) -> set[str]:
    """The words of a text written with a capital (`opening`: the one that opens a sentence too)."""
    openings = {0} | {m.end() for m in _SENTENCE_END.finditer(text)}  # one pass: linear in the text
    runs = (m for m in _WORD_RUN.finditer(text) if _CAPITAL.search(m.group(1)))
    found = {m.group(1) for m in runs if opening or m.start(1) not in openings}
    return {word for word in found if not values_of(word).dates}  # "Friday", "May": a day, not a name


def moves_the_value(old: str, new: str, owner: str | None = None) -> bool:
    """The newer English text moves something of the same subject to a new value of the kind the older
    one states, in place of the older's ("tracks tasks in Jira" / "migrated all their tickets over to
    Linear", "takes 10 mg" / "bumped his dose up to 20 mg", "is a senior engineer" / "got promoted to
    staff engineer"): a change of the older's slot said with a verb of change, not another fact."""
    plain_old, plain_new = owner_free(old, owner), owner_free(new, owner)
    target = moved_to(plain_new)
    if target is None:
        return False
    chinese = [bool(re.search(f"[{CJK_RANGES}]", text)) for text in (old, new)]
    if chinese == [True, True]:  # Chinese: a value, or the older's thing after 把
        return _value_moved(plain_old, plain_new, target) or _thing_moved(plain_old, plain_new, target)
    if any(chinese):  # two languages: a value moved in one says nothing of what the other's value is of
        return _thing_moved(plain_old, plain_new, target)
    if _another_person(plain_old, plain_new) or _another_person(plain_new, plain_old):
        return False  # "Tim moved to Bergen" after "I live in Oslo": another person moved
    return (_value_moved(plain_old, plain_new, target) or _qualifier_moved(plain_old, plain_new, target)
            or _thing_moved(plain_old, plain_new, target))


def _another_person(text: str, other: str) -> bool:
    """The text is about a named person the other never names (no pronoun, "We moved", nor relation,
    "Doctor upped"; "Dr. Kim's office moved my cleaning" after "... with Dr. Kim" names no other)."""
    named = {word.casefold() for word in _capitalised(other, opening=True)}
    people = _people_in(text) & {name.casefold() for name in capitalised_names(text)}  # "The students left": none
    return any(not relations(name) and name not in named for name in people - _FIRST_PERSON)


def _value_moved(old: str, new: str, target: str) -> bool:
    """The target names a value of a kind the older text names, and the older's value of it is gone
    (a number of what it measures: "减到了60公斤" moves a weight, never "5公里", a distance)."""
    a, b, moved = values_of(old), values_of(new), values_of(target)
    for kind in ("identifiers", "dates"):
        if getattr(moved, kind) - getattr(a, kind) and getattr(a, kind) - getattr(b, kind):
            return True
    if _number_moved(_kinds(a, old), _kinds(b, new), _kinds(moved, target)):
        return True
    names_old, names_new = _capitalised(old), _capitalised(new)
    return bool(_capitalised(target, opening=True) - names_old and names_old - names_new)


_NOT_NUMBERS = ("identifiers", "dates", "names")  # the keys of `_kinds` that are no number


def _number_moved(old: dict[str, frozenset[str]], new: dict[str, frozenset[str]],
                  moved: dict[str, frozenset[str]]) -> bool:
    """A number the target names, new to the older text, in place of the older's number of what it
    measures, gone from the newer; a number said with no unit ("减到68了") may be of any measure."""
    for kind, values in moved.items():
        if kind in _NOT_NUMBERS:
            continue
        before = _any_number(old) if kind == COUNT else comparable(old, kind)
        if values - before and before - (_any_number(new) if kind == COUNT else comparable(new, kind)):
            return True
    return False


def _any_number(kinds: dict[str, frozenset[str]]) -> frozenset[str]:
    return frozenset().union(*(values for kind, values in kinds.items() if kind not in _NOT_NUMBERS))


def _qualifier_moved(old: str, new: str, target: str) -> bool:
    """The target says the older text's thing with another word beside it ("senior software engineer"
    / "staff engineer"), the older's word for it gone from the newer text."""
    moved, said, now = set(_content(target)), set(_content(old)), set(_content(new))
    return bool(moved & said and moved - said and said - now)


def _thing_moved(old: str, new: str, target: str) -> bool:
    """The verb of change moves the older text's thing, each of its words one the older says, to a
    value the older does not say ("eats Hill's kibble" / "the vet switched Biscuit to a salmon formula",
    "piano lesson is Thursdays" / "moved piano lessons to Mondays", "爱奇艺会员是连续包月" / "把爱奇艺改成了年卡")."""
    thing = moved_thing(new)
    if thing is None:
        return False
    moved, said, to = set(_content(thing)), set(_content(old)), set(_content(target))
    if re.search(f"[{CJK_RANGES}]", thing):
        return bool(moved & said) and target not in old  # character pairs: one the older says
    return bool(moved) and moved <= said and bool(to - said)


# "now" / "instead" / "new" said in a clause of the newer text: what holds from then on ("he lives alone now").
_NOW_SAID = re.compile(r"(?i)\b(?:now|instead|these days|nowadays|new)\b")
_CLAUSE_BREAK = re.compile(r"(?i)[,;:()\u2013\u2014]|\s(?:and|but|so|because)\s")


def says_it_now(old: str, new: str, owner: str | None = None) -> bool:
    """A clause of the newer English text says what holds now ("now", "instead", "new") with a word of
    the older's predicate (or its role said another way, "GP" / "doctor") and words the older does not
    say, while words of the older are gone from it ("drives a 2015 Civic" / "traded in the Civic and now
    drives a RAV4", "lives with two roommates" / "... and he lives alone now", "Dr. Patel is my doctor" /
    "... so my new GP is Dr. Nguyen"): the older's slot with another value, not another fact. Two
    Chinese texts are read by character (`_says_it_now_zh`); two languages say nothing of one slot."""
    plain_old, plain_new = owner_free(old, owner), owner_free(new, owner)
    chinese = [bool(re.search(f"[{CJK_RANGES}]", text)) for text in (plain_old, plain_new)]
    if all(chinese):
        return _says_it_now_zh(plain_old, plain_new)
    if any(chinese) or not _NOW_SAID.search(plain_new):
        return False
    if _another_person(plain_old, plain_new) or _another_person(plain_new, plain_old):
        return False
    said = set(_content(plain_old))
    for clause in _CLAUSE_BREAK.split(plain_new):
        now = set(_content(clause))
        one_slot = (now | role_words(now)) & (said | role_words(said))
        if _NOW_SAID.search(clause) and one_slot and now - said and said - now:
            return True
    return False


# What holds from now on, in Chinese: 现在 (now), 以后 (from now on), 如今, 目前, 已经 (already), 不再 (no longer).
_ZH_NOW_SAID = re.compile(r"现在|以后|如今|目前|已经|不再")
_ZH_CLAUSE = re.compile(r"[，,；;。！!？?]")


def _says_it_now_zh(old: str, new: str) -> bool:
    """A clause of the newer Chinese text says what holds now (现在, 以后, 已经 ...) with a character of
    the older's predicate, characters the older does not say, and leaves out some of the older's
    ("高翔出差一般坐国航" / "高翔现在基本只坐东航", "德华的家庭医生是王医生" / "...现在签的是社区的李医生");
    the name both open with is the subject, not the predicate."""
    opening = next((n for n, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    said = _zh_chars(old[opening:])
    for clause in _ZH_CLAUSE.split(new[opening:]):
        if _ZH_NOW_SAID.search(clause):
            now = _zh_chars(_ZH_NOW_SAID.sub("", clause))
            if now & said and now - said and said - now:
                return True
    return False


def _zh_chars(text: str) -> set[str]:
    """The Chinese characters of a text that carry content (no grammar character: ZH_STOP)."""
    return {ch for run in _CJK_RUN.findall(text) for ch in run if ch not in ZH_STOP}
