"""A repeat in other words told by its values (pure): the same subject, the same values of every
kind and nothing else the structure can tell apart.

"Netflix costs me $18 a month" / "I pay 18 dollars monthly for Netflix", "Violet uses Bitwarden as
her password manager" / "Violet keeps her passwords in Bitwarden" share few words, so neither the
token rules nor the slot rules read them, and a sentence embedding reads a repeat and a change
alike. What they do share is every value: the same name, number, date or identifier, none added
or dropped, no negation or relation on one side only. That is a repeat when the wording is another
(a near copy with one word swapped, "my passport expires in 2029" / "my driver's license expires in
2029", is read by the token rules: the swapped word is the attribute) and the values name the thing
(a name or an identifier) or the statements share an attribute word ("The gym opens at 6am" / "My
alarm goes off at 6am" share a clock time only: two facts).
"""

from __future__ import annotations

import re

from memctl.core.text import CJK_RANGES
from memctl.policy.apart import additive, subject_relations
from memctl.policy.distinct import Values, lower_words, values_of
from memctl.policy.facts import announces_change
from memctl.policy.statement import attribute_words, owner_free, qualifier_differs, read_statement, reworded

_KINDS = ("identifiers", "numbers", "dates", "names")
_CJK = re.compile(f"[{CJK_RANGES}]")
_LATIN = re.compile(r"[A-Za-z][\w.@-]*")


def _values(v: Values, text: str) -> set[tuple[str, str]]:
    """Every value of a statement by kind (a capitalised word also written in lower case is no name)."""
    lower = lower_words(text)
    return {(kind, x) for kind in _KINDS for x in getattr(v, kind) if not (kind == "names" and x in lower)}


def restates_values(old: str, new: str, owner: str | None = None) -> bool:
    """Whether `new` says the values of `old` again in other words, of the same subject."""
    a, b = owner_free(old, owner), owner_free(new, owner)
    va, vb = values_of(a), values_of(b)
    same = _values(va, a)
    if not same or same != _values(vb, b) or va.negated != vb.negated:
        return False
    if subject_relations(old, owner) != subject_relations(new, owner) or announces_change(new) != announces_change(old):
        return False
    if additive(new) or _other_latin_words(a, b):
        return False
    sa, sb = read_statement(old, owner), read_statement(new, owner)
    named = any(kind in ("names", "identifiers") for kind, _ in same)
    shared = attribute_words(old, owner) & attribute_words(new, owner)
    if not (named or shared) or qualifier_differs(sa, sb, set(sa.slot & sb.slot)):
        return False
    return reworded(a, b)  # last, quadratic in the words: a near copy is for the token rules


def _other_latin_words(a: str, b: str) -> bool:
    """In Chinese text a Latin word is a name, a brand or a handle: each side writing one the other
    does not ("GitHub 是 dongqiang-dev" / "GitLab 的账号是 dongqiang") names another thing."""
    if not (_CJK.search(a) and _CJK.search(b)):
        return False
    left = {w.casefold() for w in _LATIN.findall(a)}
    right = {w.casefold() for w in _LATIN.findall(b)}
    return bool(left - right and right - left)
