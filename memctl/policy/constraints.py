"""Constraints that ride along (pure): a constraint (an allergy, a diet, a medical condition, an
access need, a budget rule) comes with any request in the domain it bites in, whatever the
request's words: "Recommend a Thai restaurant" brings "I'm allergic to peanuts, badly".

The domains are data (memctl/data/constraints.toml): per domain, the words of a request in it and
the words that make a memory one of its constraints, in each language, and the typed kinds that are
its constraints. Words match by stem, in order, stop words kept ("at most" is two words, not
"most"; "check in" not "check"), or inside the text for Chinese.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from memctl.core.kindwords import check_words
from memctl.core.models import Memory
from memctl.core.text import raw_terms, stem
from memctl.policy.topic import Lexicon, in_order

MAX_DOMAINS = 64
WRITTEN_AS_TEXT = frozenset({"zh", "ja", "ko"})  # languages whose words are matched inside the text


@dataclass(frozen=True)
class Domains:
    """The domains constraints bite in: what a request in each says, what its constraints say."""

    description: Mapping[str, str]
    requests: Lexicon
    constraints: Lexicon
    kinds: Mapping[str, frozenset[str]]
    words: Mapping[str, tuple[str, ...]]  # each domain's constraint words, to look candidates up by


def read_domains(tables: Mapping[str, Any]) -> Domains:
    """The domains of a parsed constraints.toml; a table that does not read is left out."""
    description, requests, constraints, kinds, words = {}, {}, {}, {}, {}
    for name, table in list(tables.items())[:MAX_DOMAINS]:
        try:
            said, asked = check_words(table.get("constraints", {})), check_words(table.get("requests", {}))
            typed = table.get("kinds", [])
            if not isinstance(typed, list) or not all(isinstance(k, str) for k in typed):
                raise ValueError("kinds: a list of kind names")
        except (ValueError, AttributeError):
            continue
        description[name] = str(table.get("description", name))[:200]
        requests[name], constraints[name] = asked, said
        kinds[name] = frozenset(typed)
        words[name] = tuple(w for ws in said.values() for w in ws)
    return Domains(description, _lexicon(requests), _lexicon(constraints), kinds, words)


def _lexicon(by_domain: Mapping[str, Mapping[str, Sequence[str]]]) -> Lexicon:
    """The words in the form `kinds_in` matches, told apart by their language rather than by their
    characters (telling a CJK character costs every recall a pattern compiled: core/patterns.py)."""
    out = {}
    for name, by_language in by_domain.items():
        stems: list[tuple[str, ...]] = []
        text: list[str] = []
        for language, words in by_language.items():
            for word in words:
                folded = unicodedata.normalize("NFKC", word).casefold()
                if language in WRITTEN_AS_TEXT:
                    text.append(folded)
                elif words_of(folded):
                    stems.append(tuple(words_of(folded)))
        out[name] = (tuple(dict.fromkeys(stems)), tuple(dict.fromkeys(text)))
    return out


def words_of(text: str) -> list[str]:
    """The stems of every word of a text, stop words kept: a phrase's words are all matched, so
    "at most" does not match "most of the cooking"."""
    return [stem(term) for term, _, _ in raw_terms(text, False)]


def said(texts: Sequence[str], words: Lexicon) -> frozenset[str]:
    """The domains whose words any of `texts` says: a phrase's stems one after the other, or a
    Chinese word inside the text."""
    joined = unicodedata.normalize("NFKC", "\n".join(t for t in texts if t)).casefold()
    if not joined.strip():
        return frozenset()
    terms = words_of(joined)
    present = set(terms)
    return frozenset(name for name, (stems, cjk) in words.items()
                     if any(all(s in present for s in p) and in_order(p, terms) for p in stems)
                     or any(w in joined for w in cjk))


def request_domains(query: str, domains: Domains) -> frozenset[str]:
    """The domains a request is in ("a Thai restaurant": food, outings)."""
    return said([query], domains.requests)


def asked_about(query: str, domains: Domains) -> frozenset[str]:
    """The domains whose constraint words a query says ("what am I allergic to?": food, medical)."""
    return said([query], domains.constraints)


def constraint_domains(memory: Memory, domains: Domains) -> frozenset[str]:
    """The domains a memory is a constraint of: its kind is one of a domain's, it says one of the
    domain's constraint words, or it is of type `constraint` and says a request word of it: where
    it bites ("Dinners out stay under $40": food; "snacks for him on hikes and trips": travel)."""
    texts = [memory.body, memory.description or "", " ".join(memory.tags)]
    found = {name for name, typed in domains.kinds.items() if memory.kind and memory.kind in typed}
    found |= said(texts, domains.constraints)
    if memory.type == "constraint":
        found |= said(texts, domains.requests)
    return frozenset(found)


def riding_along(memory: Memory, wanted: frozenset[str], domains: Domains) -> str | None:
    """Why the memory comes with a request in the `wanted` domains ("a constraint on food: ..."),
    or None when it is no constraint of any of them."""
    common = sorted(constraint_domains(memory, domains) & wanted)
    if not common:
        return None
    return "constraint on " + ", ".join(f"{d} ({domains.description[d]})" for d in common)
