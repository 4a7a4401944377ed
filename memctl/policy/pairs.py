"""A (stored, new) pair of statements as a handful of numbers, and the fitted model that reads them
as a change, a distinct fact or a duplicate (pure: the caller supplies the cosines).

Rules prove the easy cases (the same words again, one value swapped in an otherwise equal
sentence); "my phone is an iPhone 13" / "I switched to a Pixel 8" or "I'm vegetarian" / "Sarah
doesn't eat meat" share too few words for any rule. A sentence embedding reads their meaning, but
a change and a repeat read alike (0.8 either way), so two cosines are given: of the full texts and
of their frames, the texts with every value (number, date, identifier, name) masked. A frame that
reads alike with other values is a change; the same values again is a repeat; another frame is
another fact. The weights are fitted by `bench/decision_fit.py` on the benchmark's dev split
(policy/decision_fit.py); the features are grammar and values, never words of any data set.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Mapping

from memctl.core.text import CJK_RANGES
from memctl.policy.apart import subject_relations
from memctl.policy.decision_fit import FIT, FIT_ML, ML_MODEL, MODEL
from memctl.policy.distinct import (
    DIFFERENT_PEOPLE,
    Values,
    canonical_values,
    distinct_reason,
    flips_polarity,
    read_alike,
    values_of,
)
from memctl.policy.facts import IDENTIFIER, announces_change, attribute_of, relations
from memctl.policy.statement import (
    SLOT_SHARE,
    Statement,
    attribute_words,
    content_words,
    measures_another_attribute,
    opening_pair,
    owner_free,
    qualifier_differs,
    read_statement,
)
from memctl.policy.triple import read_triple
from memctl.policy.when import absolute_dates

LABELS = ("change", "distinct", "duplicate")
# The probability the model must give before its reading acts: the lowest floor (of 0.5 .. 0.8) at which
# the dev split's cross-validated figures (bench/decision_fit.py) merge at most 2% of the distinct pairs
# (with the frame features: 0.7 merges 1.9%); a change is only linked, never superseded, and no floor
# links under 2% (0.8: 3.9%), so it keeps the highest. A wrong NOOP loses a fact: merging stays in budget.
DUPLICATE_FLOOR = 0.7
CHANGE_FLOOR = 0.8
MASK = "X"
# A number with the letters glued to it ("ab12cd", "5%"), or a Chinese one before its counter ("三十五岁").
# Each part starts only where its run of letters or numerals starts: a try from inside a run would have
# started at the run's first character, so the matches are the same, and a long run is read once, not
# from each of its characters (a planted memory of 8,000 letters cost 3.5 s here).
_NUMBERS = re.compile(r"(?:(?<![A-Za-z])[A-Za-z]+)?[$€£¥₹]?\d+(?:[.,:/-]\d+)*[A-Za-z]*%?"
                      r"|(?<![零一二两三四五六七八九十百千万])[零一二两三四五六七八九十百千万]+(?=[号日月岁点元块度年个次分])")
_CAPITALISED = re.compile(r"(?<=[^.!?\s])(\s+)[A-Z][A-Za-z0-9-]*")
_CJK = re.compile(f"[{CJK_RANGES}]")
# A new situation stated by grammar: the Chinese clause-final 了 ("分手了", "毕业了", "不用了": what held
# before no longer does), "no longer" / "anymore" / "not ... any more" in English.
_NEW_STATE = re.compile(r"了(?=[，。！,.!；;]|$)|(?i:\bno longer\b|\bany ?more\b)")
_ADDITIVE = re.compile(r"(?i)\b(?:too|also|as well|another|a second|additionally|besides)\b|还|也|另外|又")


@lru_cache(maxsize=16384)  # a pure reading of the text: the write decision reads the same neighbours add after add
def frame(text: str, owner: str | None = None) -> str:
    """The statement with its values masked: identifiers, dates, numbers, and names inside the
    sentence (a capitalised word after its first word) each become one placeholder; the owner's own
    name is the first person ("Max's plate" is "my plate")."""
    text = owner_free(text, owner)
    for phrase, _ in sorted(absolute_dates(text), key=lambda d: -len(d[0])):
        text = text.replace(phrase, MASK)
    text = IDENTIFIER.sub(MASK, text)
    text = _NUMBERS.sub(MASK, text)
    text = _CAPITALISED.sub(lambda m: m.group(1) + MASK, text)
    return re.sub(rf"{MASK}(?:[\s,]*{MASK})+", MASK, text)


def _char_grams(text: str) -> set[str]:
    folded = re.sub(r"\s+", " ", text.casefold())
    return {folded[i:i + 2] for i in range(len(folded) - 1)}


def _jaccard(a: set[str] | frozenset[str], b: set[str] | frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _value_sets(v: Values) -> dict[str, frozenset[str]]:
    return {"identifiers": v.identifiers, "numbers": v.numbers, "dates": v.dates, "names": v.names}


def _value_features(a: Values, b: Values) -> dict[str, float]:
    """How the values compare: kinds both name and agree on, kinds both name and swap, kinds one adds."""
    same = swapped = one_side = 0
    for kind, left in _value_sets(a).items():
        right = _value_sets(b)[kind]
        if left and right:
            same += left == right
            swapped += left != right
        elif left or right:
            one_side += 1
    pooled_a = frozenset().union(*_value_sets(a).values())
    pooled_b = frozenset().union(*_value_sets(b).values())
    return {"values_same": float(same), "values_swapped": float(swapped), "values_one_side": float(one_side),
            "values_jaccard": _jaccard(pooled_a, pooled_b),
            "values_covered": float(bool(pooled_a | pooled_b) and (pooled_a <= pooled_b or pooled_b <= pooled_a)),
            "values_none": float(not (pooled_a | pooled_b)),
            "identifiers_differ": float(a.identifiers != b.identifiers)}


@dataclass(frozen=True)
class PairFeatures:
    """The numbers the fitted model reads, by name."""

    values: dict[str, float]


def pair_features(old: str, new: str, owner: str | None, cosines: Mapping[str, float]) -> PairFeatures:
    """The features of a pair: the given cosines ("cos": full texts, "frame": values masked) and what
    the texts' structure says (subjects, slot words, values, negation, relations, a change announced)."""
    a, b = _read_alike(read_statement(old, owner), read_statement(new, owner), old, new)
    shared = a.slot & b.slot
    slot_share = len(shared) / len(a.slot | b.slot) if a.slot | b.slot else 0.0
    cos, frame_cos = float(cosines.get("cos", 0.0)), float(cosines.get("frame", 0.0))
    out = {
        "cos": cos, "frame": frame_cos, "frame_gain": frame_cos - cos,
        "slot_share": slot_share, "slot_shared": float(slot_share >= SLOT_SHARE),
        "chars": _jaccard(_char_grams(old), _char_grams(new)),
        "subject_differs": float(a.subject != b.subject),
        "relations_differ": float(relations(old) != relations(new)),
        "negation_flip": float(a.values.negated != b.values.negated and flips_polarity(old, new)),
        "negation_differs": float(a.values.negated != b.values.negated),
        "announces": float(announces_change(new)),
        "additive": float(bool(_ADDITIVE.search(new))),
        "zh": float(bool(_CJK.search(old + new))),
        "qualifier_differs": float(bool(shared) and qualifier_differs(a, b, set(shared))),
        **_value_features(a.values, b.values),
        **_frame_features(old, new, owner, a, b),
        **_triple_features(old, new, owner),
        **_novelty_features(owner_free(old, owner), owner_free(new, owner), a, b),
        **{k: float(v) for k, v in cosines.items() if k.startswith("ml_")},
    }
    return PairFeatures(out)


def _read_alike(a: Statement, b: Statement, old: str, new: str) -> tuple[Statement, Statement]:
    va, vb = read_alike(a.values, b.values, old, new)
    return replace(a, values=va), replace(b, values=vb)


def _pooled(v: Values) -> frozenset[str]:
    return frozenset().union(*_value_sets(v).values())


def _novel(values: frozenset[str], words: frozenset[str], other: Values, other_text: str) -> tuple[float, float]:
    """The share of one side's values, and of its content words, the other text says nowhere (a
    value is said when the other names it or writes it, in any case: "Alliant" / "alliant")."""
    folded, pooled, said = canonical_values(other_text).casefold(), _pooled(other), _words(other_text)
    missing = [v for v in values if v not in pooled and v.casefold() not in folded]
    unsaid = [w for w in words if w not in said and w not in folded]
    return len(missing) / max(len(values), 1), len(unsaid) / max(len(words), 1)


def _novelty_features(old: str, new: str, a: Statement, b: Statement) -> dict[str, float]:
    """What each side says that the other text does not say anywhere, by value and by content word:
    a repeat in other words names its values again ("Alliant is my bank" / "I bank with Alliant");
    a change brings a value the old text never says, and drops one ("Jira" / "Linear")."""
    new_values, new_words = _novel(_pooled(b.values), b.slot, a.values, old)
    old_values, old_words = _novel(_pooled(a.values), a.slot, b.values, new)
    state = float(bool(_NEW_STATE.search(new)) and not _NEW_STATE.search(old))
    return {"new_values_novel": new_values, "old_values_lost": old_values, "new_words_novel": new_words,
            "old_words_lost": old_words, "novel_both": float(new_values > 0 and old_values > 0), "new_state": state}


def _words(text: str) -> set[str]:
    return set(content_words(text)) | set(_CJK.findall(text))


def _triple_features(old: str, new: str, owner: str | None) -> dict[str, float]:
    """How the attributes (values masked) and the values of the two statements compare word by word
    (policy/triple.py): one attribute with another value is a change, another attribute another fact."""
    a, b = read_triple(old, owner), read_triple(new, owner)
    attr_a, attr_b = _words(frame(a.attribute, owner)), _words(frame(b.attribute, owner))
    value_a, value_b = _words(a.value), _words(b.value)
    return {"attr_words": _jaccard(attr_a, attr_b) if attr_a | attr_b else 1.0,
            "value_words": _jaccard(value_a, value_b) if value_a | value_b else 1.0,
            "attr_equal": float(attr_a == attr_b and bool(attr_a)),
            "both_read": float(a.attribute != a.value and b.attribute != b.value),
            "attr_differs": len(attr_a ^ attr_b) / max(len(attr_a | attr_b), 1),
            "value_overlap": float(bool(value_a & value_b))}


def ml_pairs(old: str, new: str, owner: str | None) -> dict[str, tuple[str, str]]:
    """The text pairs whose multilingual cosines the second fit reads: the statements, their frames,
    their attributes (values masked) and their values."""
    a, b = read_triple(old, owner), read_triple(new, owner)
    return {"ml_cos": (old, new), "ml_frame": (frame(old, owner), frame(new, owner)),
            "ml_attr": (frame(a.attribute, owner), frame(b.attribute, owner)), "ml_value": (a.value, b.value)}


def _frame_features(old: str, new: str, owner: str | None, a: Statement, b: Statement) -> dict[str, float]:
    """How the frames (values masked) compare in words and characters, and what each side says the
    other does not: the attribute is what the frames share, the value what is left over."""
    fa, fb = read_statement(frame(old, owner), owner).slot, read_statement(frame(new, owner), owner).slot
    only_old, only_new = a.slot - b.slot, b.slot - a.slot
    return {"frame_words": _jaccard(fa, fb), "frame_chars": _jaccard(_char_grams(frame(old, owner)), _char_grams(frame(new, owner))),
            "only_old": len(only_old) / max(len(a.slot), 1), "only_new": len(only_new) / max(len(b.slot), 1),
            "both_owner": float(not a.subject and not b.subject),
            "length_ratio": min(len(old), len(new)) / max(len(old), len(new), 1)}


Fit = Mapping[str, tuple[tuple[str, ...], tuple[float, ...]]]


def fitted_for(model: str) -> bool:
    """Whether the shipped fit reads this embedding model's cosines (another model's are another scale)."""
    return model == MODEL


# The longest text the second fit reads (its cosines come from the multilingual model, whose engine
# embeds a whole text at about 1 ms CPU a character: the 24 texts of three framed neighbours of 2,000
# characters took 30 s of one add). The fit was made on statements (the decision bench's are at most
# 143 characters); a longer memory is decided by the shipped fit, as an import decides.
ML_TEXT_CHARS = 400


def reads_multilingual(old: str, new: str) -> bool:
    """Whether the second fit may read this pair (both texts statement-sized: ML_TEXT_CHARS)."""
    return max(len(old), len(new)) <= ML_TEXT_CHARS


def multilingual_fit_for(identity: str) -> bool:
    """Whether the second fit reads the cosines of the model of this identity ("multilingual-e5-small-q4@...")."""
    return identity.startswith(ML_MODEL)


def probabilities(features: PairFeatures, fit: Fit | None = None) -> dict[str, float] | None:
    """P(change), P(distinct), P(duplicate) by the fitted multinomial logistic model (`fit`: per label,
    feature names and a weight each then the intercept; by default the multilingual fit when its
    cosines were given, else the write model's); None when the fit needs a feature not given."""
    if fit is None:
        fit = FIT_ML if "ml_cos" in features.values else FIT
    scores = {}
    for label in LABELS:
        names, weights = fit[label]
        if any(n not in features.values for n in names):
            return None
        scores[label] = sum(w * features.values[n] for n, w in zip(names, weights)) + weights[-1]
    top = max(scores.values())
    exp = {k: math.exp(v - top) for k, v in scores.items()}
    total = sum(exp.values())
    return {k: v / total for k, v in exp.items()}


def reading(old: str, new: str, owner: str | None, cosine: float, frame_cosine: float,
            more: Mapping[str, float] | None = None) -> str | None:
    """"duplicate" or "change" when the fitted model reads the pair so above its floor, else None
    (`more`: the multilingual cosines of `ml_pairs`, when that model was asked). A duplicate must
    name no value the other contradicts (policy/distinct.py: never merge two facts); a change must
    be about the same people and things (no other identifier or relation). Either must be of one
    attribute (`may_be_one_slot`), not merely of one person; a text announcing a change the other
    does not is never its repeat."""
    if not may_be_one_slot(old, new, owner):
        return None
    prob = probabilities(pair_features(old, new, owner, {"cos": cosine, "frame": frame_cosine, **(more or {})}))
    if prob is None:
        return None
    if (prob["duplicate"] >= DUPLICATE_FLOOR and _no_distinct(old, new, owner)
            and shares_anything(old, new, owner) and not _announces_alone(old, new)):
        return "duplicate"
    return "change" if (prob["change"] >= CHANGE_FLOOR and same_people_and_things(old, new, owner)
                        and not measures_another_attribute(old, new, owner)) else None


def same_people_and_things(old: str, new: str, owner: str | None = None) -> bool:
    """Whether a change may be read: the statements are about the same person (the relation each is
    about as its subject, policy/apart.py: "my sister" / "my brother" are two people, while a relative
    named elsewhere in the sentence, "换了个iPhone 15，华为给我妈用了", is not whom it is about) and name
    no other identifier."""
    return subject_relations(old, owner) == subject_relations(new, owner) and not _other_ids(old, new)


def _no_distinct(old: str, new: str, owner: str | None) -> bool:
    """No value of one side contradicts the other (policy/distinct.py), a relation that only one side
    names and neither is about aside ("My manager is Bob Chen" / "I report to Bob Chen", "周婷的男朋友叫
    李伟" / "我对象是李伟": the relation is the attribute, said in other words); two relations named
    ("my manager" / "my mentor") stay two facts."""
    why = distinct_reason(owner_free(old, owner), owner_free(new, owner))
    if why is None:
        return True
    one_sided = not (relations(old) and relations(new))
    return why.startswith(DIFFERENT_PEOPLE) and one_sided and subject_relations(old, owner) == subject_relations(new, owner)


def _announces_alone(old: str, new: str) -> bool:
    """The newer text says a value changed and the older one states it ("I live in Porto" / "I moved
    back from Porto"): news, never a repeat to drop."""
    return announces_change(new) and not announces_change(old)


def may_be_one_slot(old: str, new: str, owner: str | None = None) -> bool:
    """Whether the model may read a pair: the two statements can be of one attribute.

    The model reads a pair's meaning through its cosines, and the (multilingual) cosines of any two
    statements of one person read alike ("Hank likes jazz" / "Hank 搬到了上海" at 0.73), so it would
    link a person's every fact as a change of every other. Of one attribute are statements that
    name the same single-valued attribute (policy/facts.py: "lives in" / "搬到" are residence); in
    one language also two that share a content word, or where neither names such an attribute ("my
    car is a Golf" / "I drive a Civic"). Across languages no word is shared: only the attribute
    tells; one attribute named on one side only, or two different ones, with no word in common, are
    two facts (a birthday / where one lives)."""
    first, second = attribute_of(old), attribute_of(new)
    if first is not None and first == second:
        return True
    if bool(_CJK.search(old)) != bool(_CJK.search(new)):
        return False
    return (first == second or bool(attribute_words(old, owner) & attribute_words(new, owner))
            or _made_topic(old, new, owner) or _same_measured_values(old, new, owner))


def _same_measured_values(old: str, new: str, owner: str | None) -> bool:
    """Both texts name the same numbers, dates and identifiers, at least one, and no other."""
    old, new = owner_free(old, owner), owner_free(new, owner)
    a, b = read_alike(values_of(old), values_of(new), old, new)
    kinds = ("identifiers", "numbers", "dates")
    return any(getattr(a, k) for k in kinds) and all(getattr(a, k) == getattr(b, k) for k in kinds)


def _made_topic(old: str, new: str, owner: str | None) -> bool:
    """The newer Chinese text opens with a word the older one says after its own opening: the stored
    value made the topic of what happened to it ("我的笔记本是联想小新" / "小新摔坏了，公司给配了台MacBook
    Air", "最近在看《三体》" / "三体看完了"). attribute_words leaves a text's opening pair out (a subject,
    such as a name), so the two shared no word."""
    a, b = owner_free(old, owner), owner_free(new, owner)
    head = opening_pair(b) if _CJK.search(a) else None
    return head is not None and head in a[1:] and not a.startswith(head)


def shares_anything(old: str, new: str, owner: str | None = None) -> bool:
    """Whether two statements have anything in common: an attribute both name, a content word or a
    value. A repeat in other words the model may merge (a NOOP drops the new text) must share one:
    "I'm a nurse" / "I volunteer at the animal shelter" share nothing, and read alike only as two
    facts about one person do."""
    first = attribute_of(old)
    if first is not None and first == attribute_of(new):
        return True
    if attribute_words(old, owner) & attribute_words(new, owner):
        return True
    old, new = owner_free(old, owner), owner_free(new, owner)
    a, b = read_alike(values_of(old), values_of(new), old, new)
    return any(getattr(a, kind) & getattr(b, kind) for kind in ("identifiers", "numbers", "dates", "names"))


def _other_ids(old: str, new: str) -> bool:
    a, b = values_of(old).identifiers, values_of(new).identifiers
    return bool(a and b) and a != b
