"""Recall: filter the memories a query may see, rank them by keyword + embedding, return typed hits."""

from __future__ import annotations

import functools
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from pydantic import BaseModel, Field

from memctl import clock
from memctl.config import Config, RecallSettings
from memctl.core.access import Access
from memctl.core.declare import declared_filters, parse
from memctl.core.models import Hit, Memory, session_key
from memctl.core.requests import RECALL_STATUSES, RecallRequest
from memctl.policy.rank import Scored, final_score, fuse, order_conflicts
from memctl.policy.relevance import QueryFacts, annotate, hold_back, model_family, on_topic_line
from memctl.policy.timeline import order_by_date, time_order, time_window
from memctl.policy.topic import Lexicon, without_frame
from memctl.policy.turns import best_of, by_turns, turns
from memctl.policy.validity import force_label, in_force
from memctl.store.filters import MemoryFilter, scope_filter
from memctl.store.repository import ReadsAndUsage, SearchIndex

if TYPE_CHECKING:  # checks are loaded only when a hit is a typed memory
    from memctl.policy.checks import Finding
    from memctl.policy.constraints import Domains
    from memctl.services.checks import CheckService

POOL = 100  # candidates taken from each retriever before fusion
MAX_CONSTRAINTS = 50  # candidate constraints looked at for one request (by keyword, and of type constraint)
COSINE_SHARE = 0.75  # by meaning: a newer conflicting hit whose cosine is this share of the older's is found too
LIFT_SHARE = 0.1  # a newer conflicting hit is lifted over an older one only if the query finds it too (newer_first)
STATUSES = RECALL_STATUSES
RecallQuery = RecallRequest  # the request recall takes (core/requests.py declares it for every surface)


def memory_filter(q: RecallRequest, access: Access | None = None,
                  members: Mapping[str, Mapping[str, str]] | None = None) -> MemoryFilter:
    """The filter part of a request (whose memories: store/filters.py), every name checked (a name
    is a path component on disk); `members` makes a member's projects theirs. A request field
    declared with `Spelled(filter=FIELD)` filters on that memory field (core/declare.py)."""
    return scope_filter(members or {}, q.users, q.projects, q.session, types=tuple(q.types), tags=tuple(q.tags),
                        since=q.since, until=q.until, status=q.status, scopes=tuple(q.scopes), access=access,
                        fields=declared_filters(q))


def parse_query(query: str, options: dict[str, Any]) -> RecallRequest:
    """Options to a RecallRequest; a bad or unknown one is a one-line usage error."""
    return parse(RecallRequest, {"query": query, **options}, "recall")


class RecallResult(BaseModel):
    """The hits of one recall, best first, how many memories were considered, and how many of the
    top k were held back below `min_relevance`."""

    query: str
    mode: str
    hits: list[Hit]
    considered: int
    held_back: int = 0
    min_relevance: float = 0.0
    order: str | None = None  # "newest" / "oldest": the query asked when, and the hits on topic are in date order
    findings: list[dict[str, Any]] = Field(default_factory=list)  # checks the hits take part in

    def to_data(self, explain: bool = False) -> dict[str, Any]:
        """The `recall --json` data (with each hit's component scores when `explain`)."""
        hits = []
        for hit in self.hits:
            data = hit.model_dump(mode="json", exclude={"components", "memory"})
            if explain:
                data["explain"] = hit.components
            hits.append(data)
        data = {"query": self.query, "mode": self.mode, "considered": self.considered, "hits": hits,
                "held_back": self.held_back, "min_relevance": self.min_relevance,
                **({"order": self.order} if self.order else {})}
        return {**data, "findings": self.findings} if self.findings else data


class RecallService:
    """Hybrid recall over a repository and its search index."""

    def __init__(self, repo: ReadsAndUsage, search: SearchIndex, config: Config, access: Access | None = None,
                 checks: "Callable[[], CheckService] | None" = None, words: Callable[[], Lexicon] | None = None,
                 topics: Callable[[], Lexicon] | None = None) -> None:
        self.repo = repo
        self.search = search
        self.config = config
        self.access = access
        self.checks = checks  # built on first use: findings bring the memories they involve (services/checks.py)
        self.words = words  # the words that name each kind (policy/topic.py), read when a recall needs them
        self.topics = topics  # the words that name everyday topics (store/topicwords.py), likewise

    def _session_owner(self, q: RecallRequest) -> str | None:
        """Whose session a recall runs in (its first user, else project, else the actor): usage counts
        sessions by owner, so two people's sessions of one name are two sessions to promotion."""
        if q.users:
            return f"users/{q.users[0]}"
        if q.projects:
            return f"projects/{q.projects[0]}"
        return f"users/{self.access.actor}" if self.access is not None else None

    def recall(self, q: RecallQuery) -> RecallResult:
        """Rank the candidate memories for `q.query` and return the top k hits (only what the actor may see)."""
        now = clock.now()
        k, mode = q.k or self.config.recall.k, q.mode or self.config.recall.mode
        q = q.model_copy(update={"k": k, "mode": mode})
        pool = self.repo.candidates(memory_filter(q, self.access, self.config.members), now)
        keyword: list[tuple[str, float]] = []
        runs: list[tuple[str, list[tuple[str, float]]]] = []
        if q.mode == "hybrid":
            keyword, runs = self.search.hybrid_runs(q.query, POOL, pool)
        elif q.mode == "keyword":
            keyword = self.search.keyword_search(q.query, POOL, pool)
        else:
            runs = self.search.semantic_runs(q.query, POOL, pool)
        weights = self.config.recall
        fused = fuse(keyword, runs[0][1] if runs else [], weights, [run for _, run in runs[1:]])
        by_id = {s.id: self.repo.load(pool[s.id]) for s in fused if s.id in pool}
        life = self.config.lifecycle
        history = frozenset(m.key for m in by_id.values() if m.key and life.keys.get(m.key, life.key_policy) == "history")
        in_force_states = frozenset(self.config.facts.in_force)
        hits = rank([s for s in fused if s.id in by_id], by_id, weights, now, k, in_force_states, q.session)
        threshold = weights.min_relevance if q.min_relevance is None else q.min_relevance
        hits = self._relevance(q, hits, runs, pool, by_id.values())
        hits = newer_first(hits, on_topic_line(threshold), history, now, in_force_states)
        hits, held = hold_back(hits, threshold)
        order, before = time_order(q.query)
        if order is not None:
            hits = order_by_date(hits, order, on_topic_line(threshold), before, time_window(q.query))
        hits = self._with_parts(hits, q, now, in_force_states)
        hits = self._with_constraints(q, hits, pool, now, in_force_states)
        hits, findings = self._with_findings(hits, held, q, now, in_force_states)
        if q.record_usage and hits:
            self.repo.record_usage([h.id for h in hits], now, session_key(q.session, self._session_owner(q)))
        return RecallResult(query=q.query, mode=mode, hits=hits, considered=len(pool), held_back=len(held),
                            min_relevance=threshold, order=order, findings=[f.to_data() for f in findings])

    def _with_findings(self, hits: list[Hit], held: list[Hit], q: RecallQuery, now: datetime,
                       in_force_states: frozenset[str]) -> tuple[list[Hit], list["Finding"]]:
        """The hits followed by the other memories of the findings they take part in (a trip brings the
        passport that expires too soon), as linked hits that are never held back; and those findings.
        Nothing is evaluated unless a hit is a typed memory."""
        ranked = [h.memory for h in [*hits, *held] if h.memory is not None]
        if self.checks is None or not any(m.kind for m in ranked):
            return hits, []
        findings = self.checks().touching(ranked)
        out, shown = list(hits), {h.id for h in hits}
        for finding in findings:
            anchor = next((i for i in finding.memories if i in shown), finding.memories[0])
            for memory_id in finding.memories:
                if memory_id not in shown:
                    shown.add(memory_id)
                    out.append(to_hit(self.repo.get(memory_id), 0.0, {}, now, in_force_states,
                                      linked_to=anchor if anchor != memory_id else finding.memories[-1]))
        return out, findings

    def _relevance(self, q: RecallQuery, hits: list[Hit], runs: list[tuple[str, list[tuple[str, float]]]],
                   pool: Mapping[str, Any], candidates: Iterable[Memory] = ()) -> list[Hit]:
        """The hits with calibrated relevance, from each model's cosines, keyword coverage, the names
        the query says and the kinds and topics it is about (services/signals.py, policy/relevance.py)."""
        from memctl.services.signals import asked, characters, hit_signals, line_runs, query_facts

        keyword, candidates = q.mode != "semantic", tuple(candidates)
        ids = [h.id for h in hits]
        coverage = self.search.keyword_coverage(without_frame(q.query), ids) if keyword else None
        words = self.words() if self.words is not None else {}
        topics = self.topics() if self.topics is not None else {}
        facts = query_facts(q.query, self.search, pool, keyword, words, topics, candidates)
        chars = self.search.keyword_coverage(characters(q.query), ids) if facts.char_held is not None else None
        lines = line_runs(self.search, q.query, facts, ids, runs)
        signals = hit_signals(q.query, hits, runs, coverage, words, chars, asked(facts.topics, topics), lines)
        judged = annotate(hits, signals, facts)
        if not reads_turns(q.query, facts, runs):
            return judged
        return best_of(judged, [self._turn_relevance(q, turn, hits, pool, candidates) for turn in turns(q.query)])

    def _turn_relevance(self, q: RecallQuery, turn: str, hits: list[Hit], pool: Mapping[str, Any],
                        candidates: Iterable[Memory]) -> list[Hit]:
        """The hits judged with one turn of a dialogue as the query (policy/turns.py): the turn's own
        cosines over the candidates, its coverage, names, kinds and topics."""
        runs: list[tuple[str, list[tuple[str, float]]]] = []
        if q.mode != "keyword":
            runs = self.search.semantic_runs(turn, POOL, pool)
        return self._relevance(q.model_copy(update={"query": turn}), hits, runs, pool, candidates)

    def _with_constraints(self, q: RecallQuery, hits: list[Hit], pool: Mapping[str, Any], now: datetime,
                          in_force_states: frozenset[str]) -> list[Hit]:
        """The hits followed by the constraints of the request's domains they lack (a restaurant
        brings the peanut allergy, a trip the wheelchair), whatever their words; each says why. A
        lookup ("who is my eye doctor?") brings only the constraints it asks about (policy/lookup.py).
        A question about things in general ("what does a goat eat?": policy/lookup.is_general) brings
        none. Candidates: the memories of type constraint and those the domains' constraint words find."""
        from memctl.policy.constraints import asked_about, request_domains, riding_along
        from memctl.policy.lookup import is_general, is_lookup

        domains = _domains()
        wanted = request_domains(q.query, domains)
        if wanted and is_general(q.query):  # read only then: a query in no domain compiles no pattern of it
            wanted = frozenset()
        if wanted and is_lookup(q.query):
            wanted &= asked_about(q.query, domains)
        if not wanted or not pool:
            return hits
        words = " ".join(dict.fromkeys(w for d in sorted(wanted) for w in domains.words[d]))
        found = [i for i, _ in self.search.keyword_search(words, MAX_CONSTRAINTS, pool)]
        typed = self.repo.candidates(replace(memory_filter(q, self.access, self.config.members), types=("constraint",)), now)
        shown, out = {h.id for h in hits}, list(hits)
        for memory_id in dict.fromkeys([*found, *sorted(typed)[:MAX_CONSTRAINTS]]):
            if memory_id in shown or memory_id not in pool:
                continue
            memory = self.repo.load(pool[memory_id])
            why = riding_along(memory, wanted, domains) if in_force(memory, now, in_force_states) else None
            if why is not None:
                shown.add(memory_id)
                out.append(to_hit(memory, 0.0, {"constraint": 1.0}, now, in_force_states).model_copy(update={"constraint": why}))
        return out

    def _with_parts(self, hits: list[Hit], q: RecallQuery, now: datetime, in_force_states: frozenset[str]) -> list[Hit]:
        """Each hit followed by the rest of its family (its whole and the whole's other parts, or its
        parts) that the recall did not return: a trip comes with its flights and hotel, as linked hits.
        Only hits scoring at least `parts_min_share` of the best bring their family."""
        known, best = self.repo.wholes(), max((h.score for h in hits), default=0.0)
        strong = [h for h in hits if h.score >= self.config.recall.parts_min_share * best]
        wholes = {h.part_of or h.id: None for h in strong if h.part_of or h.id in known}
        if not wholes:
            return hits
        family = self.repo.candidates(replace(memory_filter(q, self.access, self.config.members), family=tuple(sorted(wholes))), now)
        members = sorted((self.repo.load(handle) for handle in family.values()), key=lambda m: (m.created, m.id))
        out, shown = [], {h.id for h in hits}
        for hit in hits:
            out.append(hit)
            whole = hit.part_of or hit.id
            for m in members if whole in wholes else ():
                if m.id not in shown and (m.id == whole or m.part_of == whole):
                    shown.add(m.id)
                    out.append(to_hit(m, 0.0, {}, now, in_force_states, linked_to=hit.id))
        return out


def reads_turns(query: str, facts: QueryFacts, runs: list[tuple[str, list[tuple[str, float]]]]) -> bool:
    """Whether a dialogue's hits are judged by its turns too (policy/turns.by_turns), and some model
    of the recall reads the query's language by its meaning: a short Chinese line's cosines by the
    English-only shipped model say little (search/embedders.reads_language)."""
    from memctl.search.embedders import reads_language

    return by_turns(query, facts) and any(reads_language(model_family(i), facts.language) for i, _ in runs)


@functools.lru_cache(maxsize=1)
def _domains() -> "Domains":
    """The shipped domains constraints bite in (memctl/data/constraints.toml), read once a process."""
    from memctl.policy.constraints import read_domains
    from memctl.store.domains import shipped_tables

    return read_domains(shipped_tables())


def to_hit(m: Memory, score: float, components: dict[str, float], now: datetime,
           in_force_states: frozenset[str], linked_to: str | None = None) -> Hit:
    """A recall hit for one memory."""
    return Hit(id=m.id, path=m.path, type=m.type, scope=m.scope, user=m.user, project=m.project,
               session=m.session, content=m.body, score=round(score, 6), created=m.created, occurred=m.occurred,
               state=force_label(m, now, in_force_states) or m.state, in_force=in_force(m, now, in_force_states),
               part_of=m.part_of, linked_to=linked_to, components=components, memory=m)


def rank(fused: list[Scored], by_id: dict[str, Memory], weights: RecallSettings, now: datetime, k: int,
         in_force_states: frozenset[str] = frozenset({"active", "planned"}), session: str | None = None) -> list[Hit]:
    """Final scores (less `not_in_force_penalty` for memories no longer in force), best first (equal
    scores: newest first), de-duplicated within a type, top k."""
    parts: dict[str, dict[str, float]] = {}
    scored = []
    for s in fused:
        m = by_id[s.id]
        score, comp = final_score(s.similarity, m.confidence, _scope_of(m, session), weights, m.created, now)
        if not in_force(m, now, in_force_states):
            score = max(score - weights.not_in_force_penalty, 0.0)
            comp["not_in_force_penalty"] = weights.not_in_force_penalty
        parts[s.id] = {**s.components, **comp}
        scored.append((s.id, score))
    scored = order_conflicts(scored, {}, lambda i: _newest(by_id[i]))
    hits, seen = [], set()
    for doc_id, score in scored:
        m = by_id[doc_id]
        fp = (m.type, " ".join(m.body.casefold().split()))
        if fp in seen:
            continue
        seen.add(fp)
        parts[doc_id]["final"] = round(score, 6)
        hits.append(to_hit(m, score, parts[doc_id], now, in_force_states))
        if len(hits) == k:
            break
    return hits


def _newest(m: Memory | None) -> tuple[float, str]:
    """Ties go to the newest memory (and then by text: no id lottery)."""
    return (-m.created.timestamp(), m.body) if m is not None else (0.0, "")


def newer_first(hits: list[Hit], line: float, history_keys: frozenset[str], now: datetime,
                in_force_states: frozenset[str]) -> list[Hit]:
    """Within pairs of hits that are both on topic (relevance at least `line`, or not known), the
    newer version ranks right above the older, and its score says so. A hit off topic is never
    lifted, nor a memory linked as conflicting that the query does not find too (`_found_too`):
    one that shares only a name with the query ("Hank 搬到了上海" for "where does Hank
    live", by keyword alone) is linked to what the query finds, not found by it."""
    on = {h.id: h.memory for h in hits if h.memory is not None and (h.relevance is None or h.relevance >= line)}
    lapsed = {i for i, m in on.items() if not in_force(m, now, in_force_states)}
    by_hit = {h.id: h.components for h in hits}
    newer = _newer_than(on, set(on), history_keys, lapsed, lambda new, old: _found_too(by_hit[new], by_hit[old]))
    if not newer:
        return hits
    by_id = {h.id: h for h in hits}
    out = []
    for doc_id, score in order_conflicts([(h.id, h.score) for h in hits], newer, lambda i: _newest(by_id[i].memory)):
        hit, score = by_id[doc_id], round(score, 6)
        if score != hit.score:
            parts = {**hit.components, "final": score, "newer_than_conflict": 1.0}
            hit = hit.model_copy(update={"score": score, "components": parts})
        out.append(hit)
    return out


def _found_too(new: Mapping[str, float], old: Mapping[str, float]) -> bool:
    """The query finds the newer memory about as well as the older: by meaning, its raw cosine is at
    least `COSINE_SHARE` of the older's (under any model both were scored with); by keyword alone
    (no cosine), its similarity is at least `LIFT_SHARE` of the older's. The normalised similarity
    is not used when a cosine is known: among two hits min-max puts the second at 0."""
    models = [k for k in ("semantic_score", "semantic2_score") if k in new and k in old]
    if models:
        return any(new[k] >= COSINE_SHARE * old[k] for k in models)
    return new.get("similarity", 0.0) >= LIFT_SHARE * old.get("similarity", 0.0)


def _scope_of(m: Memory, session: str | None) -> str:
    """The scope priority a memory ranks with: another session's memory ranks as its owner's long-term one."""
    if m.scope != "session" or session is None or m.session == session:
        return m.scope
    return "user" if m.user else "project"


def _newer_than(by_id: Mapping[str, Memory], present: set[str], history_keys: frozenset[str],
                lapsed: set[str], found: Callable[[str, str], bool]) -> dict[str, set[str]]:
    """Pairs where the newer memory must rank first: versions of one key, or linked as conflicting
    when `found(newer, older)` (the query finds the newer too). A memory no longer in force
    (`lapsed`) is never lifted above one in force."""
    out: dict[str, set[str]] = {}
    by_key: dict[tuple[str, str], list[Memory]] = {}
    for doc_id in present:
        m = by_id[doc_id]
        if m.key and m.key not in history_keys:
            by_key.setdefault((m.owner, m.key), []).append(m)
        for other in m.conflicts_with:
            o = by_id.get(other)
            if o is not None and other in present and (m.created, m.id) > (o.created, o.id) \
                    and not (doc_id in lapsed and other not in lapsed) and found(doc_id, other):
                out.setdefault(doc_id, set()).add(other)
    for versions in by_key.values():
        versions.sort(key=lambda v: (v.created, v.id))
        for i, newer in enumerate(versions[1:], start=1):
            out.setdefault(newer.id, set()).update(v.id for v in versions[:i])
    return out
