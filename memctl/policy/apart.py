"""A confident structural reading that two similar statements are two facts (pure, no I/O).

The write decision links a new memory to a stored one as a possible conflict on weak signals (a
shared slot word with another value, a negation somewhere, the pair model's "change"). Linking two
facts that both hold is the most harmful error (an agent then doubts a true fact), so a reading of
the sentences' structure vetoes those weak links when it says the two are apart:

- another person is the subject: the relation the sentence is about ("my sister lives in Lyon" /
  "my brother lives in Lyon", "Alice" / "Alice's mother is a retired teacher"), where the texts
  also name other relations; a relation that is the attribute, its value a name ("my boss is
  Mark", "我男朋友叫李航"), is not a subject;
- a value added beside the stored one ("I speak some German too", "我还养了一只仓鼠");
- two occurrences (past actions: "Bob visited Paris in 2019" / "Bob visited Rome in 2021"), unless
  the newer one announces a change or negates;
- another object of an activity ("Brian reads The Economist" / "Brian reads The Atlantic"): two
  English statements of a verb and its object, neither stating a value with a copula ("my phone
  is ...") nor an attribute that holds one value at a time (where someone lives or works, what
  they use or prefer: policy/facts.py), with the same numbers and dates and no opposite words;
- another purpose or setting: two English statements each saying what they are for or where they
  hold, sharing no word of it ("uses Postgres for storage" / "uses Redis for caching", "window seats
  on flights" / "aisle seats on trains").

The word lists are English and Chinese grammar (determiners, copulas, additive particles), not words
of any data set.
"""

from __future__ import annotations

import re

from memctl.core.text import stem
from memctl.policy.distinct import flips_polarity, values_of
from memctl.policy.facts import announces_change, attribute_of, is_occurrence, moved_thing, relations
from memctl.policy.statement import ZH_STOP, content_words, owner_free, role_words

_ADDITIVE_EN = re.compile(r"(?i)\b(?:too|also|as well|another|a second|additionally|besides)\b")
# Chinese: 也 / 另外 / 又 add a value; 还 does when it comes before a verb of having or doing ("还会说",
# "还养了"), not in "还剩" (still left) or "还是" (still is / or).
_ADDITIVE_ZH = re.compile(r"也|另外|又|还(?=[会有养买学要在做喜爱能])")
_ZH_CLAUSE = re.compile(r"[，,；;。！!？?]")
# A relative who does something for someone else ("医生给梁爽加量了", "女儿给我买了个智能手机"): the
# statement is about the one it is done for, not about the relative.
_FOR_SOMEONE = re.compile(r"^(?:给|帮|替|让|把|通知)")
_LEAD_WORDS = frozenset("my our his her their the a an and older younger elder eldest little big new".split())
_NAME_VALUE = re.compile(r"^\s*(?:is|was|'s|’s|=|:)\s+(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z]")
# A copula stating a value ("my phone is ...", "Offsite location: ..."); "I'm learning Rust" is an
# activity (a copula before a verb in -ing), not a state.
_STATES = re.compile(r"(?i)(?:\b(?:is|are|am|was|were)\b|['’](?:s|re|m)\b)(?!\s+(?:still\s+|now\s+)?[a-z]+ing\b)|:")
_COPULAS = frozenset("is are am was were be has have had".split())
_NOW = re.compile(r"(?i)\b(?:now|instead|anymore|any more|from now on|these days)\b")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_ZH_LEAD = re.compile(r"^(?:我们|我|[\u4e00-\u9fff]{1,3}?的)?")


def _english_subject(text: str) -> tuple[set[str], str]:
    """The relations in the leading noun phrase of an English statement ("Tara's son", "my older
    sister", "Harvey and his wife"), and the text after it."""
    end = 0
    for m in re.finditer(r"[A-Za-z][A-Za-z'’-]*", text):
        word = m.group().casefold()
        base = re.sub(r"['’]s?$", "", word)
        related = bool(relations(base) or relations(text[:m.end()]) - relations(text[:m.start()]))  # "my boy"
        if not (base in _LEAD_WORDS or related or base == "i" or m.group()[0].isupper()):
            break
        end = m.end()
        if related and base == word:
            break  # "my sister" ends the phrase; "my sister's car" goes on
    return relations(text[:end]), text[end:]


def _chinese_subject(text: str) -> tuple[set[str], str]:
    """The relation a Chinese statement opens with (after the owner, a name or "X的"), and the rest."""
    rest = text[_ZH_LEAD.match(text).end():]  # type: ignore[union-attr]
    for rel in _in_order(relations(text), text):
        for part in (text, rest):
            at = part.find(rel)
            after = part[at + len(rel):]
            if 0 <= at <= 3 and not re.search(r"[是叫在和跟给让把对向]", part[:at]) and not _FOR_SOMEONE.match(after):
                return {rel}, after
    return set(), rest


def _in_order(found: set[str], text: str) -> list[str]:
    """The relations a Chinese text says, first said first (never in set order), leaving out one whose
    last characters begin another said further ("我姐" in "我姐姐" / "我姐夫": the relative is 姐姐 / 姐夫)."""
    span = {r: (text.find(r), text.find(r) + len(r)) for r in found}
    kept = [r for r in found if not any(span[r][0] < span[o][0] < span[r][1] < span[o][1] for o in found)]
    return sorted(kept, key=lambda r: (span[r][0], -len(r), r))


def subject_relations(text: str, owner: str | None = None) -> set[str]:
    """The relations a statement is about as its subject ("my sister" in "my sister lives in Lyon");
    none when the relation is the attribute and a name its value ("my boss is Mark", "我男朋友叫李航")."""
    plain = owner_free(text, owner).strip()
    found, after = _chinese_subject(plain) if re.search(r"[\u4e00-\u9fff]", plain[:6]) else _english_subject(plain)
    if not found:
        return set()
    if _NAME_VALUE.match(after) or re.match(r"^\s*(?:叫|是|名叫|姓)", after):
        return set()  # the relation is the attribute, its value a name
    return found


# A verb right after the subject phrase, its object the owner or the owner's thing ("bumped his dose up").
# The owner as the object: "me", "my dose" (the owner's name read as the first person), or a pronoun with
# no noun after it ("moved her to the late shift").
_ACTED_ON = re.compile(
    r"^\s*[a-z]+(?:ed|s)\s+(?:(?P<owner>me\b|us\b|I\b|(?:my|our)\s+[a-z]|(?:him|her|them)"
    r"(?=\s+(?:to|into|onto|up|down|over|off|out|back|from)\b|\s*[.,;!]|\s*$))"
    r"|(?:my|our|his|her|their|the)\s+(?P<thing>[a-z-]+(?:\s+[a-z-]+)?))")


def acts_on_the_owner(text: str, other: str, owner: str | None = None) -> bool:
    """The relation an English statement opens with does something to the owner or to a thing of
    theirs the other text speaks of ("Raj's doctor bumped his lisinopril up" after "Raj takes
    lisinopril", "my manager moved me to the night shift"): the statement is about the owner's value,
    not about the relative, who is only the agent of the change."""
    plain = owner_free(text, owner).strip()
    if _CJK.search(plain):
        return False
    found, after = _english_subject(plain)
    if not found:
        return False
    acted = _ACTED_ON.match(after)
    if acted is None:  # a verb of change moving a thing the other names ("the teacher moved piano lessons to ...")
        moved = moved_thing(after, opening=True)
        return moved is not None and bool(set(content_words(moved)) & set(content_words(other)))
    return bool(acted.group("owner")) or bool(set(content_words(acted.group("thing"))) & set(content_words(other)))


def _subjects_differ(old: str, new: str, owner: str | None) -> bool:
    """Each text is about another person: the relations they are about differ, and neither is only
    the agent acting on the owner (`acts_on_the_owner`)."""
    first = set() if acts_on_the_owner(old, new, owner) else subject_relations(old, owner)
    second = set() if acts_on_the_owner(new, old, owner) else subject_relations(new, owner)
    if not (first and second) and (_named_there(old, new, owner) or _named_there(new, old, owner)):
        return False  # "Sophie's daughter Emma attends ..." / "Emma transferred ...": Emma is the daughter
    return first != second


def _named_there(text: str, other: str, owner: str | None) -> bool:
    """The relation an English text is about has its name right after it ("my daughter Emma"), and the
    other text opens with that name as its subject, no relation of its own."""
    plain, plain_other = owner_free(text, owner).strip(), owner_free(other, owner).strip()
    if _CJK.search(plain + plain_other) or subject_relations(other, owner):
        return False
    found, after = _english_subject(plain)
    named = re.match(r"\s+([A-Z][a-z]+)\b", after) if found else None
    return named is not None and re.match(rf"{named.group(1)}\b(?!['’])", plain_other) is not None


def roles_reversed(old: str, new: str, owner: str | None = None) -> bool:
    """One English statement's subject is a relation said after the same verb in the other, whose
    subject is the owner ("I owe my brother $500" / "my brother owes me $200", "I text my sister every
    day" / "my sister texts me"): the two hold their roles the other way round, two facts."""
    if _CJK.search(old + new):
        return _zh_roles_reversed(owner_free(old, owner).strip(), owner_free(new, owner).strip())
    first, after_first = _english_subject(owner_free(old, owner).strip())
    second, after_second = _english_subject(owner_free(new, owner).strip())
    if bool(first) == bool(second):
        return False
    verb, other_verb = (re.findall(r"^\s*([a-z]+)", after) for after in (after_first, after_second))
    if not (verb and other_verb) or stem(verb[0]) != stem(other_verb[0]) or verb[0] in _COPULAS:
        return False  # a copula says one role both ways: "my dentist is Dr. Patel" / "Dr. Huang is my dentist"
    related, other_rest = (first, after_second) if first else (second, after_first)
    return bool(related & relations(other_rest))


def _zh_roles_reversed(old: str, new: str) -> bool:
    """One Chinese text opens with the owner (我), a verb of one or two characters and another person;
    the other opens with that person, the same verb and the owner ("我欠老张..." / "老张欠我...", "我请小李
    吃饭" / "小李请我吃饭"): the two hold their roles the other way round."""
    for mine, theirs in ((old, new), (new, old)):
        if not mine.startswith("我"):
            continue
        for at in (m.start() for m in re.finditer("我", theirs[:7]) if m.start() > 1):
            for cut in (1, 2):
                person, verb = theirs[:at - cut], theirs[at - cut:at]
                if len(person) >= 1 and _CJK.match(verb) and mine.startswith(f"我{verb}{person}"):
                    return True
    return False


def additive(text: str) -> bool:
    """Whether a statement adds a value beside another ("too", "also", "还会", "也"); in Chinese, in its
    first clause ("我还养了一只仓鼠"), not in a later one that tells what else followed a change
    ("金鑫把笔记全导到 Obsidian 了，账号也注销了")."""
    return bool(_ADDITIVE_EN.search(text) or _ADDITIVE_ZH.search(_ZH_CLAUSE.split(text, maxsplit=1)[0]))


def apart_reason(old: str, new: str, owner: str | None = None, opposite: bool = False) -> str | None:
    """Why the structure says two statements are two facts that both hold, or None (`opposite`: the
    texts differ by opposite words or a negation, as the caller reads them: "likes" / "dislikes",
    "stopped drinking" / "drinks")."""
    a, b = owner_free(old, owner), owner_free(new, owner)
    flip = opposite or flips_polarity(a, b)
    if _subjects_differ(old, new, owner) and relations(a) != relations(b):
        return "another person is the subject"
    if roles_reversed(old, new, owner):
        return "the roles are reversed"
    if flip or announces_change(new):
        return None
    if additive(new):
        return "a value added beside the stored one"
    if is_occurrence(a) and is_occurrence(b):
        return "two occurrences"
    if _another_object(a, b):
        return "another object of an activity"
    if _another_scope(a, b):
        return "another purpose or setting"
    if _another_thing_owned(a, b) or _another_thing_of_theirs(a, b):
        return "another thing of the owner's"
    if _another_place_of_the_thing(a, b):
        return "another place of the thing"
    return None


# The place a thing is of, said inside the subject, before its copula ("rental car in Lisbon is a Fiat").
_PLACED_THING = re.compile(r"^[^.;,!?]*?\b[a-z]+\s+(?:in|at)\s+((?:[A-Z][\w-]*\s*)+?)\s*(?:is|are|was|were)\b")


def _another_place_of_the_thing(a: str, b: str) -> bool:
    """Both English statements say the place of the thing they are about before the copula, and the
    places differ ("my rental car in Lisbon is a Fiat 500" / "my rental car in Porto is a Renault Clio",
    "my hotel in Rome is booked for May 3-6" / "my hotel in Florence is ..."): one thing in each place."""
    first, second = _PLACED_THING.match(a), _PLACED_THING.match(b)
    if first is None or second is None:
        return False
    one, other = first.group(1).strip(), second.group(1).strip()
    return one.casefold() != other.casefold() and one not in b and other not in a


# The thing an English statement opens with, owned by the first person: "my iPad runs ..." iPad.
_OWNED = re.compile(r"(?i)^\s*(?:my|our)\s+((?:[\w-]+\s+){0,2}?[\w-]+)(?=\s+(?:is|are|was|runs|has|have|costs|takes)\b|['’])")


def _another_thing_owned(a: str, b: str) -> bool:
    """Both English statements open with a thing of the owner's, and the two share no word, nor is either
    word said in the other text, nor one role said another way ("my iPad runs iPadOS 17" / "my iPhone runs
    iOS 17", "my GP" / "my doctor" is one role): two things, each with its own value."""
    first, second = _OWNED.match(a), _OWNED.match(b)
    if _CJK.search(a + b) or first is None or second is None:
        return False
    one, other = set(content_words(first.group(1))), set(content_words(second.group(1)))
    if not one or not other or one & set(content_words(b)) or other & set(content_words(a)):
        return False
    return not (role_words(one) | one) & (role_words(other) | other)


# A Chinese statement opening with its possessor and 的 ("我的", "卢敏的", "晓峰最喜欢的"), then the thing
# it is about, up to a grammar character (是, 有, 在 ...: statement.ZH_STOP), a digit or a Latin letter.
_ZH_POSSESSED = re.compile(r"^([\u4e00-\u9fff]{1,6}?)的([\u4e00-\u9fff]+)")


def _zh_thing(text: str) -> tuple[str, str] | None:
    """The possessor and the thing a Chinese statement opens with ("我的信用卡尾号4421": 我, 信用卡尾号)."""
    found = _ZH_POSSESSED.match(text.strip())
    if found is None:
        return None
    thing = re.split(f"[{''.join(ZH_STOP)}]", found.group(2), maxsplit=1)[0]
    return (found.group(1), thing) if len(thing) >= 2 else None


def _another_thing_of_theirs(a: str, b: str) -> bool:
    """Both Chinese statements open with one possessor's thing, and neither thing is said in the
    other's and the two open with other characters ("我的信用卡尾号..." / "我的储蓄卡尾号...", "他的工作邮箱
    是..." / "他的私人邮箱是...", "...最喜欢的水果是芒果" / "...的冰淇淋口味是芒果"; "我的领导" / "我的直属领导"
    is one): two things."""
    first, second = _zh_thing(a), _zh_thing(b)
    if first is None or second is None or first[0] != second[0]:
        return False
    one, other = first[1], second[1]
    return one[:2] != other[:2] and one not in other and other not in one  # "借记卡尾号" / "借记卡换了": one card


# What a statement is for, or where it applies ("uses Postgres for storage", "prefers window seats on
# flights"): the one or two words after "for" / "on" (and a determiner), a day or an ordinal not included.
_SCOPE = re.compile(r"(?i)\b(?:for|on)\s+((?:(?:the|a|an|my|our|his|her|their|its)\s+)?[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)")
_ORDINAL = re.compile(r"(?i)^(?:first|second|third|fourth|fifth|last|final|next|\d+(?:st|nd|rd|th))$")


def _scopes(text: str) -> set[str]:
    """The content words of what a statement is for or where it holds (no day, date or ordinal)."""
    words = {w for phrase in _SCOPE.findall(text) for w in content_words(phrase) if not _ORDINAL.match(w)}
    return {w for w in words if not values_of(w).dates}


def _another_scope(a: str, b: str) -> bool:
    """Both English statements say what they are for or where they hold, and the two share no word of
    it ("Theo's repo uses Postgres for storage" / "... Redis for caching", "window seats on flights" /
    "aisle seats on trains"): two facts that both hold, each in its own setting."""
    if _CJK.search(a + b):
        return False
    first, second = _scopes(a), _scopes(b)
    return bool(first and second) and not first & second


def _another_object(a: str, b: str) -> bool:
    if _CJK.search(a + b) or _STATES.search(a) or _STATES.search(b) or _NOW.search(b):
        return False
    if attribute_of(a) is not None or attribute_of(b) is not None:
        return False
    va, vb = values_of(a), values_of(b)
    return va.numbers == vb.numbers and va.dates == vb.dates
