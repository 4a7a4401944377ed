"""The signals recall's relevance reads, gathered from the search index and the hits (the model that
turns them into a relevance is policy/relevance.py): raw cosines and their gaps, keyword coverage,
the names a query says that no memory it can see holds, and the kinds a query and a hit are about."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Collection, Iterable, Mapping, Sequence

from memctl.core.models import Hit, Memory
from memctl.core.text import is_cjk, text_language
from memctl.policy.relevance import HitSignals, QueryFacts
from memctl.policy.topic import Lexicon, checked_lexicon, kind_words_in, kinds_in, lexicon, query_shape, without_frame
from memctl.store.repository import SearchIndex

Run = Sequence[tuple[str, float]]
MAX_NAMES = 8  # names of one query looked up (a dialogue may hold many)


def query_facts(query: str, search: SearchIndex, pool: Collection[str], keyword: bool, words: Lexicon,
                topics: Lexicon | None = None, candidates: Iterable[Memory] = ()) -> QueryFacts:
    """The query's language, shape, whether it names something the memories it can see never
    mention (looked up by keyword among them: a name, or a relative named by the relation in none
    of its words, 我哥 / 哥哥 / brother: search/relations.py), the kinds and everyday topics it names,
    and how many of the recall's candidates say each of those topics. How much of it the store holds
    and the topics it names are read of a task's object, without its frame (policy/topic.without_frame)."""
    absent, acronyms, held, held_all, char_held = False, False, 1.0, 1.0, None
    language, about = text_language(query), without_frame(query)  # a task's object, not its frame
    kinds, unheld = kind_words_in([query], words), frozenset[str]()
    if keyword:
        absent, acronyms = absent_names(query, search, pool)
        unheld = unheld_kinds(kinds, search, pool)
        held = round(search.query_coverage(about), 6)
        held_all = round(search.query_coverage(about, plain=True), 6)
        if language == "zh":
            char_held = round(search.query_coverage(characters(query)), 6)
    topics = topics or {}
    named = kinds_in([about], topics)
    return QueryFacts(language=language, shape=query_shape(query), absent=absent, absent_acronyms=acronyms,
                      held=held, held_all=held_all, char_held=char_held, kinds=frozenset(kinds),
                      unheld_kinds=unheld, topics=named,
                      topic_spread=spread(candidates, asked(named, topics)))


def unheld_kinds(kinds: Mapping[str, Sequence[str]], search: SearchIndex, pool: Collection[str]) -> frozenset[str]:
    """The kinds of `kinds` (kind -> the query's words naming it) whose words no memory of `pool`
    says: the store may hold that kind of thing (a car), not the one the query names (a motorcycle)."""
    return frozenset(kind for kind, said in kinds.items() if not any(search.keyword_search(w, 1, pool) for w in said))


def absent_names(query: str, search: SearchIndex, pool: Collection[str]) -> tuple[bool, bool]:
    """(whether the query names something no memory of `pool` mentions: a name, a place a Chinese
    query names (`places`), a relative by none of its words, a name's relative no memory says with
    the name; whether each such thing is a
    name written in capitals, an acronym: IRS, HMRC, HR, search/specificity.acronyms)."""
    from memctl.search.relations import relation_terms
    from memctl.search.specificity import acronyms, name_terms

    said = name_terms(query, speakers=False)
    missing = {name for name in sorted(said)[:MAX_NAMES] if not search.keyword_search(name, 1, pool)}
    missing |= {place for place in sorted(places(query))[:MAX_NAMES] if not search.keyword_search(place, 1, pool)}
    others = any(not any(search.keyword_search(w, 1, pool) for w in words)
                 for words in sorted(relation_terms(query))[:MAX_NAMES]) or any(
        not held_with(search, owner, words, pool) for owner, words in owned(query, said))
    return bool(missing) or others, bool(missing) and not others and missing <= acronyms(query)


def places(query: str) -> set[str]:
    """The places a Chinese query names (search/cjkplaces.py); none for text with no CJK."""
    if query.isascii():
        return set()
    from memctl.search.cjkplaces import chinese_places

    return chinese_places(query)


def owned(query: str, said: Collection[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The relations the query names after the possessive of a name it says ("Greg's mother"):
    (the owner's name, the relation's words), at most `MAX_NAMES` (search/relations.owned_relations)."""
    from memctl.search.relations import owned_relations

    return sorted((owner, words) for owner, words in owned_relations(query, said) if owner in said)[:MAX_NAMES]


def held_with(search: SearchIndex, owner: str, words: Sequence[str], pool: Collection[str]) -> bool:
    """Whether a memory of `pool` says both the name and one of the relation's words (Greg and his
    mother: a store knowing Greg and someone's mother may still know nothing of Greg's)."""
    with_owner = [i for i, _ in search.keyword_search(owner, max(len(pool), 1), pool)]
    return bool(with_owner) and any(search.keyword_search(w, 1, with_owner) for w in words)


def line_runs(search: SearchIndex, query: str, facts: QueryFacts, ids: Sequence[str],
              runs: Sequence[tuple[str, Run]]) -> list[tuple[str, dict[str, list[float]]]]:
    """For a dialogue, each model's cosine of each of its lines to each hit (policy/topic.dialogue_lines),
    by the models the recall's runs came from; none for another shape, a language no fitted model
    reads the lines of (policy/relevance.reads_lines), or a search that cannot."""
    from memctl.policy.relevance import reads_lines
    from memctl.policy.topic import dialogue_lines
    from memctl.store.repository import LineSearch

    wanted = facts.shape == "dialogue" and bool(runs) and reads_lines(facts.language)
    lines = dialogue_lines(query) if wanted else []
    if not lines or not isinstance(search, LineSearch):
        return []
    return search.line_runs(lines, ids, {identity for identity, _ in runs})


def characters(text: str) -> str:
    """The text with a space after every CJK character: the keyword index then reads each one alone
    (it indexes single CJK characters beside the pairs)."""
    return "".join(f"{c} " if is_cjk(c) else c for c in text)


def hit_signals(query: str, hits: Sequence[Hit], runs: Sequence[tuple[str, Run]],
                coverage: Mapping[str, float] | None, words: Lexicon,
                char_coverage: Mapping[str, float] | None = None, topics: Lexicon | None = None,
                lines: Sequence[tuple[str, Mapping[str, Sequence[float]]]] = ()) -> list[HitSignals]:
    """Each hit's signals (`topics`: the part of the topic lexicon the query names, `asked`; `lines`:
    (identity, id -> each dialogue line's cosine) per model). A hit names someone else when it says a
    name or a relative (我男朋友: search/relations.py) the query does not; it holds a name of several
    common words only when it says all of them (search/specificity.part_names). A hit a model's run did not
    return scored below everything it did: it gets the run's lowest cosine."""
    from memctl.search.relations import relation_terms, says_relation, unasked
    from memctl.search.specificity import common_name_runs, name_terms, other_names, part_names, says_name

    said, phrases = name_terms(query, speakers=False), common_name_runs(query)
    relatives = owned(query, said)
    out = []
    for hit in hits:
        # Greg's mother is named by a hit saying Greg only with a word of the relation; the Forth
        # Bridge by one saying the whole name, not the Bridge Club's bridge
        naming = said - {owner for owner, words in relatives if not says_relation(hit.content, words)}
        naming -= part_names(hit.content, phrases)
        cosines, gaps, tops = {}, {}, {}
        for identity, run in runs:
            cosine = _cosine(hit.id, run)
            cosines[identity], gaps[identity] = cosine, cosine - _best_other(hit.id, run)
            tops[identity] = run[0][1] if run else cosine
        out.append(HitSignals(cosines=cosines, gaps=gaps, tops=tops,
                              lines={identity: by_id[hit.id] for identity, by_id in lines if hit.id in by_id},
                              coverage=None if coverage is None else round(coverage.get(hit.id, 0.0), 6),
                              char_coverage=None if char_coverage is None else round(char_coverage.get(hit.id, 0.0), 6),
                              names_other=bool(other_names(hit.content, said) or unasked(relation_terms(hit.content), query)), named=says_name(hit.content, naming),
                              kinds=memory_kinds(hit.memory, words) if hit.memory is not None else frozenset(),
                              declared=declared_kinds(hit.memory, words) if hit.memory is not None else frozenset(),
                              topics=memory_topics(hit.memory, topics or {}) if hit.memory is not None else frozenset()))
    return out


def _cosine(doc_id: str, run: Run) -> float:
    return next((c for i, c in run if i == doc_id), run[-1][1] if run else 0.0)


def _best_other(doc_id: str, run: Run) -> float:
    """The best cosine of another candidate (0 when there is none)."""
    return next((c for i, c in run if i != doc_id), 0.0)


def memory_kinds(memory: Memory, words: Lexicon) -> frozenset[str]:
    """The kinds a memory is about: its own, and those whose words it says (in its text, name or
    description too)."""
    said = kinds_in([memory.body, memory.name or "", memory.description or ""], words)
    return said | declared_kinds(memory, words)


def asked(named: Collection[str], topics: Lexicon) -> Lexicon:
    """The part of the topic lexicon a query names (what its hits are looked at for)."""
    return {topic: topics[topic] for topic in named if topic in topics}


def spread(candidates: Iterable[Memory], topics: Lexicon) -> dict[str, int]:
    """How many of the memories say each topic (a topic every other memory says tells little)."""
    counts: Counter[str] = Counter()
    if topics:
        for memory in candidates:
            counts.update(memory_topics(memory, topics))
    return dict(counts)


def memory_topics(memory: Memory, topics: Lexicon) -> frozenset[str]:
    """The everyday topics a memory's text says words of (its body, name and description)."""
    return kinds_in([memory.body, memory.name or "", memory.description or ""], topics) if topics else frozenset()


def declared_kinds(memory: Memory, words: Lexicon) -> frozenset[str]:
    """The kinds a memory declares: its kind, and those its tags, key or subtype name."""
    said = kinds_in([" ".join(memory.tags), (memory.key or "").replace(".", " "), memory.subtype or ""], words)
    return said | {memory.kind} if memory.kind else said


def kind_lexicon(cache: Path | None, root: Path | None, schemas: dict[str, Any]) -> Lexicon:
    """The words that name each kind, as `kinds_in` matches them, from the cache when it is current."""
    from memctl.store.kindwords import cached

    return cached(cache, root, schemas, lexicon, checked_lexicon)


def topic_lexicon(cache: Path | None) -> Lexicon:
    """The words that name each everyday topic (the shipped memctl/data/topics.toml), as `kinds_in`
    matches them, from the cache when it is current."""
    from memctl.store.topicwords import MAX_TOPIC_WORDS, cached

    return cached(cache, lexicon, lambda value: checked_lexicon(value, MAX_TOPIC_WORDS))
