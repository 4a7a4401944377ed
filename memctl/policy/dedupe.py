"""Dedupe planning: the write-decision rules applied to memories already on disk.

Pure: the caller passes the items and the cosines it computed (pairs above the
threshold, plus any pairs it already knows are related); the plan says which
repeats merge into which survivor and which pairs conflict. Nothing is merged
across a conflict, nor between texts naming different values (policy/distinct.py: identifiers,
numbers, dates, names, relations, negation), so no fact is lost by a merge.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from memctl.policy.decide import (
    Candidate,
    Decision,
    Neighbor,
    compare_texts,
    decide,
    fingerprint,
    is_ambiguous,
    normalise,
)
from memctl.policy.distinct import covers, distinct_reason, keeps_values


class DedupeItem(BaseModel):
    """A stored memory as dedupe sees it; `group` is its user or project scope string."""

    id: str
    text: str
    type: str
    group: str
    key: str | None = None
    confidence: float = 1.0
    created: datetime
    updated: datetime
    tags: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


# Asked about (older, newer) when the rules cannot decide; None falls back to the rules.
LLMDecide = Callable[[DedupeItem, DedupeItem], Decision | None]


class MergeGroup(BaseModel):
    """Repeats folded into one survivor; `text` is the survivor's new text, if it changes."""

    survivor: str
    merged: list[str]
    tags: list[str]
    sources: list[str]
    text: str | None = None
    confidence: float
    reason: str


class ConflictPair(BaseModel):
    """Two memories that disagree; `resolved` means the older is superseded by the newer."""

    older: str
    newer: str
    reason: str
    resolved: bool = False


class DedupePlan(BaseModel):
    """What `dedupe` would do: merges and conflicts, in a deterministic order."""

    merges: list[MergeGroup] = Field(default_factory=list)
    conflicts: list[ConflictPair] = Field(default_factory=list)


class _Edge(BaseModel):
    """The decision for one pair: a repeat to merge or a conflict to report."""

    kind: Literal["repeat", "conflict"]
    older: str
    newer: str
    strength: float
    reason: str
    text: str | None = None


def _age(item: DedupeItem) -> tuple[datetime, datetime, str]:
    return (item.created, item.updated, item.id)


def _candidate_pairs(
    items: list[DedupeItem], similarity: Mapping[tuple[str, str], float]
) -> dict[tuple[str, str], float]:
    """Pairs worth judging within one group and type: given cosines, same fingerprint, same key."""
    by_id = {item.id: item for item in items}
    pairs: dict[tuple[str, str], float] = {}
    for (a, b), cosine in similarity.items():
        if a in by_id and b in by_id and a != b and _bucket(by_id[a]) == _bucket(by_id[b]):
            pair = (min(a, b), max(a, b))
            pairs[pair] = max(cosine, pairs.get(pair, cosine))
    buckets: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for item in items:
        buckets[(*_bucket(item), "fp", fingerprint(item.text))].append(item.id)
        if item.key:
            buckets[(*_bucket(item), "key", item.key.strip().casefold())].append(item.id)
    for ids in buckets.values():
        for i, a in enumerate(sorted(ids)):
            for b in sorted(ids)[i + 1:]:
                pairs.setdefault((a, b), 0.0)
    return pairs


def _bucket(item: DedupeItem) -> tuple[str, str]:
    return (item.group, item.type)


def _judge_pair(old: DedupeItem, new: DedupeItem, cosine: float, threshold: float,
                llm_decide: LLMDecide | None) -> _Edge | None:
    """Decide `new` against `old` with the write-decision rules (and the LLM when ambiguous)."""
    candidate = Candidate(text=new.text, type=new.type, key=new.key)
    neighbor = Neighbor(id=old.id, text=old.text, type=old.type, key=old.key, cosine=cosine)
    decision = decide(candidate, [neighbor], duplicate_threshold=threshold)
    if llm_decide is not None and is_ambiguous(decision) and cosine >= threshold:
        decision = llm_decide(old, new) or decision
    if decision.action == "add":
        return None
    if decision.action != "supersede" and (distinct_reason(old.text, new.text)
                                           or not (covers(old.text, [new.text]) or covers(new.text, [old.text]))):
        return None  # they name different values (an identifier, a number, a date...): two facts
    if decision.text and not keeps_values(decision.text, [old.text, new.text]):
        decision = decision.model_copy(update={"text": None})  # a merged text must drop no value
    same = fingerprint(old.text) == fingerprint(new.text)
    return _Edge(
        kind="conflict" if decision.action == "supersede" else "repeat",
        older=old.id, newer=new.id, strength=2.0 if same else cosine,
        reason=f"{new.id}: {decision.reason}",
        text=decision.text if decision.decided_by == "llm" else None,
    )


def _judge_all(items: list[DedupeItem], similarity: Mapping[tuple[str, str], float],
               threshold: float, llm_decide: LLMDecide | None) -> list[_Edge]:
    by_id = {item.id: item for item in items}
    edges = []
    for (a, b), cosine in sorted(_candidate_pairs(items, similarity).items()):
        old, new = sorted((by_id[a], by_id[b]), key=_age)
        edge = _judge_pair(old, new, cosine, threshold, llm_decide)
        if edge is not None:
            edges.append(edge)
    return edges


def _one_holds_all(group: set[str], by_id: Mapping[str, DedupeItem]) -> bool:
    """Some member names every value of the others: the group can fold into it and lose none."""
    texts = {i: by_id[i].text for i in group}
    return any(covers(texts[i], [t for j, t in texts.items() if j != i]) for i in sorted(group))


def _group_repeats(ids: Iterable[str], repeats: list[_Edge], conflicts: list[_Edge],
                   by_id: Mapping[str, DedupeItem]) -> list[list[str]]:
    """Transitive groups of repeats, strongest pairs first; never joining two conflicting items, nor
    making a group no one member of which holds every value of the others."""
    members: dict[str, set[str]] = {i: {i} for i in ids}
    root: dict[str, str] = {i: i for i in members}
    clashes = {frozenset((e.older, e.newer)) for e in conflicts}
    for edge in sorted(repeats, key=lambda e: (-e.strength, e.older, e.newer)):
        ra, rb = root[edge.older], root[edge.newer]
        if ra == rb or any(frozenset((x, y)) in clashes for x in members[ra] for y in members[rb]):
            continue
        if not _one_holds_all(members[ra] | members[rb], by_id):
            continue
        for member in members[rb]:
            root[member] = ra
        members[ra] |= members.pop(rb)
    return sorted(sorted(group) for group in members.values() if len(group) > 1)


def _survivor(group: list[DedupeItem]) -> DedupeItem:
    """The text holding every value of the others, then the most complete, the longest, highest
    confidence, newest."""

    def rank(item: DedupeItem) -> tuple[bool, bool, int, float, datetime, datetime, str]:
        others = [o.text for o in group if o.id != item.id]
        complete = all(compare_texts(o, item.text) in ("same", "more") for o in others)
        length = len(normalise(item.text))
        return (covers(item.text, others), complete, length, item.confidence, item.updated, item.created, item.id)

    return max(group, key=rank)


def _union(lists: Iterable[list[str]]) -> list[str]:
    """Order-preserving union, so the survivor's own values keep their place (small diffs)."""
    return list(dict.fromkeys(value for values in lists for value in values))


def _merge(group: list[DedupeItem], edges: list[_Edge]) -> MergeGroup:
    survivor = _survivor(group)
    others = [item for item in group if item.id != survivor.id]
    ids = {item.id for item in group}
    inside = sorted((e for e in edges if e.older in ids and e.newer in ids),
                    key=lambda e: (-e.strength, e.older, e.newer))
    merged_text = next((e.text for e in inside if e.text), None)
    return MergeGroup(
        survivor=survivor.id,
        merged=[item.id for item in others],
        tags=_union([survivor.tags, *(o.tags for o in others)]),
        sources=_union([survivor.sources, *(o.sources for o in others)]),
        text=merged_text if merged_text and merged_text != survivor.text else None,
        confidence=max(item.confidence for item in group),
        reason="; ".join(e.reason for e in inside),
    )


def _conflict_pairs(conflicts: list[_Edge], by_id: dict[str, DedupeItem],
                    survivor_of: dict[str, str], resolved: bool) -> list[ConflictPair]:
    """Conflicts between the memories that remain: a merged item is represented by its survivor."""
    pairs: dict[tuple[str, str], ConflictPair] = {}
    for edge in conflicts:
        a = by_id[survivor_of.get(edge.older, edge.older)]
        b = by_id[survivor_of.get(edge.newer, edge.newer)]
        older, newer = sorted((a, b), key=_age)
        if older.id != newer.id and (older.id, newer.id) not in pairs:
            pairs[(older.id, newer.id)] = ConflictPair(
                older=older.id, newer=newer.id, reason=edge.reason, resolved=resolved)
    return [pairs[k] for k in sorted(pairs)]


def plan_dedupe(
    items: list[DedupeItem],
    similarity: Mapping[tuple[str, str], float],
    *,
    threshold: float = 0.85,
    resolve: str | None = None,
    llm_decide: LLMDecide | None = None,
) -> DedupePlan:
    """Plan merging repeats and reporting (or, with resolve="newest", superseding) conflicts.

    `similarity` maps id pairs (either order) to cosine; `llm_decide(older, newer)` is asked
    only about pairs at or above the threshold that the rules leave undecided.
    """
    if resolve not in (None, "newest"):
        raise ValueError(f"unknown resolve strategy {resolve!r} (expected 'newest')")
    by_id = {item.id: item for item in items}
    edges = _judge_all(items, similarity, threshold, llm_decide)
    repeats = [e for e in edges if e.kind == "repeat"]
    conflicts = [e for e in edges if e.kind == "conflict"]
    groups = _group_repeats(sorted(by_id), repeats, conflicts, by_id)
    merges = sorted((_merge([by_id[i] for i in g], repeats) for g in groups),
                    key=lambda m: m.survivor)
    survivor_of = {i: m.survivor for m in merges for i in m.merged}
    return DedupePlan(
        merges=merges,
        conflicts=_conflict_pairs(conflicts, by_id, survivor_of, resolve == "newest"),
    )
