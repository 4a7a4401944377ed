"""A repeat in other words told by its values and its predicate (pure).

"Netflix costs me $17.99 a month" / "I pay $17.99 monthly for Netflix", "Adam's email is
adam@reyes.dev" / "Reach Adam at adam [at] reyes [dot] dev" share few words, so the token rules do
not read them as one fact. What they share is every value, once each is written one way
(`distinct.canonical_values`: amounts, clock times, dates, spelled digits, obfuscated addresses,
model years; and here how often: "a month", "monthly", "/mo"). The same values are not enough: "the
lease starts in March" / "March is when the lease ends" says another fact of them (a NOOP would drop
it). So the predicate must agree too: every content word of the new text that is not a value is a
word of the stored one (or an attribute word its verb names: "married to" says who the wife is).
Only a contact value (an email address, a phone number of seven digits or more) says which attribute
it is by itself ("reach me at ..." is the number again).
"""

from __future__ import annotations

import re

from memctl.core.text import CJK_RANGES
from memctl.policy.apart import additive, subject_relations
from memctl.policy.distinct import Values, canonical_values, lower_words, plain_addresses, values_of
from memctl.policy.facts import announces_change
from memctl.policy.statement import ZH_STOP, attribute_words, content_words, owner_free

_KINDS = ("identifiers", "numbers", "dates", "names")
_FREQUENCY = re.compile(r"(?i)(?<!\bfor\s)\b(?:a|per|each|every|an|one|times\s+a)\s+(day|week|month|year|hour)\b"
                        r"|\b(dai|week|month|year|hour)ly\b|\b(annual)ly\b|/\s?(mo|month|wk|week|yr|year|day|hr|hour)\b")
_FREQUENCY_UNIT = {"dai": "day", "annual": "year", "mo": "month", "wk": "week", "yr": "year", "hr": "hour"}
_CJK = re.compile(f"[{CJK_RANGES}]")
# A Chinese value's unit right after it ("5号", "3月", "58元"), and how often ("每个月", "每年").
_ZH_UNIT = r"(?:[年月日号时点分秒元块岁次个天周层楼度斤]|公里|公斤|毫克|毫升|分钟|小时)*"
_ZH_FREQUENCY = re.compile(r"每个?(月|年|天|日|(?:周|星期|礼拜)(?![一二三四五六日天]))")  # 每周二 is a weekday
_ZH_FREQUENCY_UNIT = {"月": "month", "年": "year", "天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week"}
# A run of characters other than blanks, Chinese and its punctuation with a digit in it, whole, and its
# unit; tried from a run's start only (each start read the rest of a long run: quadratic with no digit).
_RUN = rf"[^\s{CJK_RANGES}，。：；！？、（）]"
_VALUE_RUN = re.compile(rf"(?<!{_RUN})(?={_RUN}*?\d){_RUN}+{_ZH_UNIT}")
_PHONE = re.compile(r"\d{7,}")
_PAST = re.compile(r"(?i)\b(?:was|were|used to|had been|no longer)\b(?!\s+born\b)")  # "my rent was $900" no longer holds


def _past(text: str) -> bool:
    return bool(_PAST.search(text))


def _frequencies(text: str) -> set[tuple[str, str]]:
    """How often a value holds ("a month", "monthly", "/mo" are one), as values of kind "per"."""
    found = set()
    for m in _FREQUENCY.finditer(text):
        unit = next(g for g in m.groups() if g).casefold()
        found.add(("per", _FREQUENCY_UNIT.get(unit, unit)))
    return found | {("per", _ZH_FREQUENCY_UNIT[m.group(1)]) for m in _ZH_FREQUENCY.finditer(text)}


def _values(v: Values, text: str) -> set[tuple[str, str]]:
    """Every value of a statement by kind (a capitalised word also written in lower case is no name)."""
    lower = lower_words(text)
    named = {(kind, x) for kind in _KINDS for x in getattr(v, kind) if not (kind == "names" and x in lower)}
    return named | _frequencies(text)


def _sort(value: tuple[str, str]) -> str:
    """A value's sort: a clock time, an amount of money and a count are no one sort of number."""
    kind, x = value
    if kind != "numbers":
        return kind
    return "clock" if _CLOCK.match(x) else "money" if _AMOUNT.match(x) else "count"


def _picks_one(left: set[tuple[str, str]], right: set[tuple[str, str]]) -> bool:
    """Whether the stored text holds another value of a sort the new text says one of ("pills at 7 am,
    bed at 9 pm" / "pills at 9 pm"): which of its words goes with the value is then not told."""
    said = {_sort(v) for v in right}
    return any(_sort(v) in said for v in left - right if v[0] != "names")


def _contact(values: set[tuple[str, str]]) -> bool:
    """An email address or a phone number among the values: it tells the attribute by itself."""
    return any((kind == "names" and "@" in x) or (kind == "numbers" and _PHONE.fullmatch(x)) for kind, x in values)


# Words that a kind of value says by itself: paying is what an amount of money is for ("Netflix costs
# me $18" / "I pay $18 for Netflix"), a part of the day what a clock time is in ("9:30 a.m." / "every
# morning at half past nine"). Beside such a value the stored text says them too.
_AMOUNT_WORDS = frozenset(content_words("pay pays paying cost costs charge charges"))
_DAY_PART_WORDS = frozenset(content_words("morning mornings evening evenings afternoon afternoons night nights"))
_AMOUNT = re.compile(r"^[$€£¥₹]")
_CLOCK = re.compile(r"^\d{1,2}:\d\d$")
# That a date or a clock time is a time is said by the value itself ("约的时间：四月十五日" / "4月15号约了").
_WHEN_WORDS = frozenset(content_words("time date"))
_ZH_WHEN = re.compile(r"时间|日期")


# One attribute said by other words ("born" / "date of birth", "expires" / "valid until", 交 / 付):
# each is written as the first before the predicates are compared.
_SAME_ATTRIBUTE = tuple((re.compile(pattern), word) for pattern, word in (
    (r"(?i)\bdate of birth\b|\bbirth ?(?:day|date)s?\b", "born"),
    (r"(?i)\b(?:valid|good) (?:until|through|till)\b|\bexpir(?:y|ation)(?: date)?\b", "expires"),
    (r"(?i)\bemployed (?:at|by)\b|\bemployee (?:of|at)\b|\bemployee\b", "works"),
    (r"(?i)\bflights?\b", "flies"),
    (r"(?i)\bsubscription\b", "subscribes"),
    (r"(?i)\bcell(?:phone)?\b|\bmobile\b", "phone"),
    (r"有效期至|有效期到|有效至|到期日", "到期"),
    (r"航班|班机|坐飞机|飞机", "飞"),
    (r"付", "交"),
))
_MONTHS = frozenset(content_words("january february march april may june july august september october november "
                                  "december jan feb mar apr jun jul aug sep sept oct nov dec"))


def _same_attribute(text: str) -> str:
    for pattern, word in _SAME_ATTRIBUTE:
        text = pattern.sub(word, text)
    return text


def _when(values: set[tuple[str, str]]) -> bool:
    return any(kind == "dates" or (kind == "numbers" and _CLOCK.match(x)) for kind, x in values)


def _said_by_values(values: set[tuple[str, str]]) -> frozenset[str]:
    numbers = [x for kind, x in values if kind == "numbers"]
    money = _AMOUNT_WORDS if any(_AMOUNT.match(x) for x in numbers) else frozenset()
    when = _WHEN_WORDS if _when(values) else frozenset()
    return money | when | (_DAY_PART_WORDS if any(_CLOCK.match(x) for x in numbers) else frozenset())


def _predicate(text: str, values: set[tuple[str, str]]) -> set[str]:
    """The content words of a statement that are no value: what it says of its values. Chinese is
    read by character ("每月5号交房租" / "每个月五号交的房租" say 房 租 交), not by pair: a sentence
    said in another order has other pairs."""
    plain = _ZH_FREQUENCY.sub(" ", _FREQUENCY.sub(" ", _VALUE_RUN.sub(" ", canonical_values(text))))
    plain = _same_attribute(_ZH_WHEN.sub(" ", plain) if _when(values) else plain)
    named = {x for kind, x in values if kind == "names"}
    months = _MONTHS if any(kind == "dates" for kind, _ in values) else frozenset()  # "9 Jan" is the date
    words = {w for w in content_words(plain) if not _CJK.match(w) and w not in months}
    chinese = {c for c in plain if _CJK.match(c) and c not in ZH_STOP}
    return {w for w in words if w not in named and not named & {w, w + "s"}} | chinese


def _by_character(words: set[str]) -> set[str]:
    """Chinese words as their characters, grammar characters left out; other words as they are."""
    return {part for w in words for part in (set(w) - ZH_STOP if _CJK.match(w) else {w})}


def picks_one(old: str, new: str, owner: str | None = None) -> bool:
    """Whether `old` holds another value of a sort `new` says one of (see _picks_one)."""
    a, b = owner_free(plain_addresses(old), owner), owner_free(plain_addresses(new), owner)
    return _picks_one(_values(values_of(a), a), _values(values_of(b), b))


def restates(old: str, new: str, owner: str | None = None) -> bool:
    """Whether `new` says again values of `old` (every value of it, none new) of the same subject, with
    the same predicate, in other words."""
    a, b = owner_free(plain_addresses(old), owner), owner_free(plain_addresses(new), owner)
    va, vb = values_of(a), values_of(b)
    left, right = _values(va, a), _values(vb, b)
    if not right or not right <= left or not any(kind != "names" or "@" in x for kind, x in right):
        return False  # a name alone names the thing, not what is said of it
    if _picks_one(left, right):
        return False
    if va.negated != vb.negated or va.relations - vb.relations or additive(new) or _past(a) != _past(b):
        return False
    if vb.relations - va.relations - attribute_words(old, owner):
        return False
    if subject_relations(old, owner) != subject_relations(new, owner) or announces_change(new) or announces_change(old):
        return False
    if _contact(right):
        return True
    said, implied = _by_character(attribute_words(old, owner)) | _predicate(a, left), _said_by_values(right)
    own = _predicate(b, right) - implied  # "I pay $5000 a month" alone says not what for
    return bool(own or (_predicate(b, right) and any(kind == "names" for kind, _ in right))) and own <= said
