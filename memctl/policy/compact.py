"""The compaction plan: which active memories to expire, supersede, promote, merge or archive (pure).

`plan_compaction` looks at active memories only and applies five rules in order;
a memory taken by one rule is not seen by the later ones:

1. expire                  `expires` <= now.
2. supersede_key           memories of one owner sharing a `key` whose policy is `latest`:
                           the newest (created, then updated, then id) is kept (and taken,
                           so later rules leave it alone); the others are superseded.
3. promote                 session memories returned in >= promote_min_sessions distinct
                           sessions, or tagged `remember` (or `remember: true`), and only with
                           confidence >= promote_min_confidence and no hedged wording ("maybe",
                           "not sure", "可能"...): to `project` scope when they have a project,
                           else `user`. The reason says which conditions held.
4. consolidate             complete-link clusters (every pair's cosine >= cluster_threshold, and no
                           pair naming different values: policy/distinct.py) of >= cluster_min_size
                           long-term memories of one owner and one type -> one summary keeping every
                           distinct statement (a cluster whose summary would drop one is left
                           alone), `occurred` the span of the members' dates; protected types and
                           pinned memories never take part.
5. archive_low_importance  importance < importance_threshold; pinned memories and protected
                           types are exempt. Uniqueness is measured against the most similar
                           remaining memory of the same owner and type that scores higher, so
                           of two near-duplicates only the weaker copy is penalised.

Applying the plan (moving files, the journal, undo) is the storage layer's job.
The result is deterministic: same input, same plan.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from datetime import datetime
from typing import Callable, Literal, Mapping, Sequence

from pydantic import BaseModel

from memctl.clock import format_timestamp
from memctl.config import LifecycleSettings
from memctl.core.dates import RANGE_SEP, normalise_occurred
from memctl.core.models import Memory
from memctl.policy.distinct import distinct_reason
from memctl.policy.facts import hedged
from memctl.policy.importance import Neighbours, Similarity, Usage, importance_scores, is_pinned, neighbours
from memctl.policy.summarise import extractive_summary

ActionKind = Literal["expire", "archive_low_importance", "consolidate", "promote", "supersede_key"]
ARCHIVING_KINDS = frozenset({"expire", "archive_low_importance", "consolidate", "supersede_key"})


class Action(BaseModel):
    """One step of a compaction: the memories it touches and why."""

    kind: ActionKind
    ids: list[str]
    reason: str
    summary: str | None = None  # consolidate: the text of the new summary memory
    occurred: str | None = None  # consolidate: the span of the members' `occurred` dates
    target_scope: str | None = None  # promote: "user" or "project"
    winner: str | None = None  # supersede_key: the id that stays active


class CompactionPlan(BaseModel):
    """Everything `compact` would do, in order; empty when there is nothing to do."""

    now: datetime
    actions: list[Action]

    def archived_ids(self) -> set[str]:
        """Ids that leave the active set (everything but promotions and supersede winners)."""
        return {i for a in self.actions if a.kind in ARCHIVING_KINDS for i in a.ids}

    def ids_for(self, kind: ActionKind) -> set[str]:
        """Every id named by actions of one kind."""
        return {i for a in self.actions if a.kind == kind for i in a.ids}


def _expire(memories: Sequence[Memory], now: datetime) -> list[Action]:
    return [Action(kind="expire", ids=[m.id], reason=f"expired at {format_timestamp(m.expires)}")
            for m in memories if m.expires is not None and m.is_expired(now)]


def _supersede(memories: Sequence[Memory], settings: LifecycleSettings) -> list[Action]:
    groups: dict[tuple[str, str], list[Memory]] = defaultdict(list)
    for m in memories:
        if m.key and settings.keys.get(m.key, settings.key_policy) == "latest":
            groups[(m.owner, m.key)].append(m)
    actions = []
    for (owner, key), group in sorted(groups.items()):
        if len(group) < 2:
            continue
        winner = max(group, key=lambda m: (m.created, m.updated, m.id))
        losers = sorted(m.id for m in group if m is not winner)
        actions.append(Action(kind="supersede_key", ids=losers, winner=winner.id,
                              reason=f"key {key!r} in {owner}: {winner.id} is the newest version"))
    return actions


def wants_promotion(memory: Memory, usage: Usage | None, settings: LifecycleSettings) -> str | None:
    """Why a session memory should become long-term, or None. Stricter than writing (a wrong
    long-term memory pollutes every later recall): returned in `promote_min_sessions` distinct
    sessions or marked remember, AND confidence >= `promote_min_confidence`, AND no hedged wording."""
    if memory.scope != "session":
        return None
    sessions = len(set(usage.sessions)) if usage is not None else 0
    if "remember" in memory.tags or memory.extra.get("remember") is True:
        why = "marked remember"
    elif sessions >= settings.promote_min_sessions:
        why = f"returned in {sessions} sessions (>= {settings.promote_min_sessions})"
    else:
        return None
    if memory.confidence < settings.promote_min_confidence or hedged(memory.body):
        return None
    return f"{why}, confidence {memory.confidence:g} (>= {settings.promote_min_confidence:g}), not hedged"


def _promote(memories: Sequence[Memory], usage: Mapping[str, Usage], settings: LifecycleSettings) -> list[Action]:
    actions = []
    for m in memories:
        why = wants_promotion(m, usage.get(m.id), settings)
        if why:
            target = "project" if m.project else "user"
            actions.append(Action(kind="promote", ids=[m.id], target_scope=target,
                                  reason=f"{why}: promote to {target} scope"))
    return actions


def complete_link_clusters(ids: Sequence[str], near: Neighbours, threshold: float) -> list[list[str]]:
    """Agglomerative complete-link clustering: merge while every cross pair is >= threshold."""
    order = sorted(ids)
    index = {i: n for n, i in enumerate(order)}
    members = {n: [i] for n, i in enumerate(order)}
    # adj[c][k] is the complete link of clusters c and k, kept only while >= threshold:
    # a complete link only shrinks as clusters grow, so a dropped link never comes back.
    adj: dict[int, dict[int, float]] = {n: {} for n in members}
    for a in order:
        for b, value in near.get(a, {}).items():
            if b in index and value >= threshold:
                adj[index[a]][index[b]] = value
    # Ties go to the lowest cluster indexes, i.e. the smallest ids: the result is deterministic.
    heap = [(-v, x, y) for x, row in adj.items() for y, v in row.items() if x < y]
    heapq.heapify(heap)
    while heap:
        negative, x, y = heapq.heappop(heap)
        if adj.get(x, {}).get(y) != -negative:
            continue  # stale: one of the two clusters has merged since
        members[x] += members.pop(y)
        for k in _fold(adj, x, y):
            heapq.heappush(heap, (-adj[x][k], min(x, k), max(x, k)))
    return sorted(sorted(group) for group in members.values())


def _fold(adj: dict[int, dict[int, float]], x: int, y: int) -> list[int]:
    """Merge cluster y into x: link(x, k) becomes min(link(x, k), link(y, k)) when both exist."""
    row_x, row_y = adj[x], adj.pop(y)
    row_x.pop(y, None)
    for k in list(row_x):
        if k in row_y:
            row_x[k] = adj[k][x] = min(row_x[k], row_y[k])
        else:
            del row_x[k], adj[k][x]
    for k in row_y:
        if k != x:
            adj[k].pop(y, None)
    return sorted(row_x)


def _components(ids: Sequence[str], near: Neighbours, threshold: float) -> list[list[str]]:
    """Connected parts of the threshold graph: complete-link clusters never cross them."""
    allowed, seen = set(ids), set()
    parts = []
    for start in sorted(ids):
        if start in seen:
            continue
        stack, part = [start], []
        seen.add(start)
        while stack:
            node = stack.pop()
            part.append(node)
            for other, value in near.get(node, {}).items():
                if value >= threshold and other in allowed and other not in seen:
                    seen.add(other)
                    stack.append(other)
        parts.append(sorted(part))
    return parts


Summarise = Callable[[list[Memory]], "str | None"]


def occurred_span(members: Sequence[Memory]) -> str | None:
    """The span of the members' `occurred` dates (None when none of them is dated)."""
    bounds = [part for m in members if m.occurred for part in m.occurred.split(RANGE_SEP)]
    return normalise_occurred(f"{min(bounds)}{RANGE_SEP}{max(bounds)}") if bounds else None


def same_fact_links(near: Neighbours, by_id: Mapping[str, Memory]) -> Neighbours:
    """The similarity graph without the pairs that name different values: those are two facts,
    never one cluster, whatever their cosine."""
    out: Neighbours = defaultdict(dict)
    for a, row in near.items():
        for b, value in row.items():
            if a < b and a in by_id and b in by_id and distinct_reason(by_id[a].body, by_id[b].body) is None:
                out[a][b] = out[b][a] = value
    return out


def _consolidate(
    memories: Sequence[Memory], near: Neighbours, settings: LifecycleSettings, summarise: Summarise,
) -> list[Action]:
    by_id = {m.id: m for m in memories}
    near = same_fact_links(near, by_id)
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for m in memories:
        # Session memories are short-term: expiry and promotion decide their fate.
        if m.scope != "session" and m.type not in settings.protected_types and not is_pinned(m):
            groups[(m.owner, m.type)].append(m.id)
    actions = []
    for (owner, kind), ids in sorted(groups.items()):
        for part in _components(ids, near, settings.cluster_threshold):
            for cluster in complete_link_clusters(part, near, settings.cluster_threshold):
                members = [by_id[i] for i in cluster]
                summary = summarise(members) if len(cluster) >= settings.cluster_min_size else None
                if summary:
                    actions.append(Action(kind="consolidate", ids=cluster, summary=summary,
                                          occurred=occurred_span(members),
                                          reason=f"{len(cluster)} related {kind} memories in {owner}"))
    return sorted(actions, key=lambda a: a.ids)


def _archive_low(
    memories: Sequence[Memory], scores: Mapping[str, float], settings: LifecycleSettings,
) -> list[Action]:
    threshold = settings.importance_threshold
    return [Action(kind="archive_low_importance", ids=[m.id],
                   reason=f"importance {scores[m.id]:.3f} < {threshold:g}")
            for m in memories
            if scores[m.id] < threshold and not is_pinned(m) and m.type not in settings.protected_types]


def plan_compaction(
    memories: Sequence[Memory], usage: Mapping[str, Usage], *, now: datetime,
    settings: LifecycleSettings, similarity: Similarity,
    summarise: Summarise | None = None,
) -> CompactionPlan:
    """Plan a compaction of the active memories (rules and order in the module docstring)."""
    active = sorted((m for m in memories if m.status == "active"), key=lambda m: m.id)
    pool = active
    actions: list[Action] = []

    def take(new: list[Action]) -> None:
        nonlocal pool
        actions.extend(new)
        gone = {i for a in new for i in a.ids} | {a.winner for a in new if a.winner}
        pool = [m for m in pool if m.id not in gone]

    take(_expire(pool, now))
    take(_supersede(pool, settings))
    take(_promote(pool, usage, settings))
    take(_consolidate(pool, neighbours(similarity, (m.id for m in pool)), settings,
                      summarise or extractive_summary))
    # Promoted memories and supersede winners stay active, so they count as peers for uniqueness.
    archived = {i for a in actions if a.kind in ARCHIVING_KINDS for i in a.ids}
    peers = [m for m in active if m.id not in archived]
    scores = importance_scores(peers, usage, now=now, settings=settings, similarity=similarity)
    take(_archive_low(pool, scores, settings))
    return CompactionPlan(now=now, actions=actions)
