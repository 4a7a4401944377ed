"""Importance: how much a memory is worth keeping, a score in [0, 1] (pure, no I/O).

`compact` archives active memories whose importance falls below
`lifecycle.importance_threshold`. The score is built from four learned
components, each in [0, 1], and the optional explicit `importance` field:

    recency     = 0.5 ** (age / half_life_days)
                  age = days since the memory was last used (recalled); a memory
                  never used counts as used `half_life_days` after it was created
                  (a grace period): age = max(0, days since created - half_life_days),
                  so a new memory is never archived for lack of use.
    frequency   = count / (count + 3)           uses so far: 0 -> 0, 3 -> 0.5, 9 -> 0.75
    confidence  = the memory's `confidence` field
    uniqueness  = 1 - 0.5 * clamp((max_similarity - 0.5) / 0.5, 0, 1)
                  max_similarity is the highest cosine to another memory of the same
                  owner and type: unrelated (<= 0.5) -> 1.0, an exact copy -> 0.5.

    use         = (0.7 * recency + 0.3 * frequency) * (0.5 + 0.5 * confidence)
    learned     = (0.2 * confidence + 0.8 * use) * uniqueness

An explicit `importance` field dominates the learned value:

    importance: 1        -> 1.0 (pinned: never archived, never consolidated)
    importance: x < 1    -> 0.8 * x + 0.2 * learned
    no importance field  -> learned

So usage exactly one half-life ago contributes half of what usage today does, a
memory never used fades after its grace period at the same rate, and an exact copy
scores half of an otherwise identical unique memory (`compact` measures
max_similarity only against higher-scoring memories, so the best copy keeps its
full score). The `0.2 * confidence` floor means a confident, unique fact is never
archived merely for not being recalled: with the default threshold 0.15, an unused
unique memory stays while its confidence is >= 0.75; what decays out is what is old
and unused *and* doubtful or redundant. A memory inside its grace period scores at
least 0.8 * 0.7 * 0.5 = 0.28 without an explicit importance, so new memories are not
archived.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone
from typing import Iterable, Mapping, Sequence

from pydantic import BaseModel, Field

from memctl.config import LifecycleSettings
from memctl.core.models import Memory

RECENCY_WEIGHT = 0.7
FREQUENCY_WEIGHT = 0.3
FREQUENCY_HALF_COUNT = 3.0  # uses at which frequency reaches 0.5
SIMILARITY_FLOOR = 0.5  # cosine below which a memory counts as fully unique
DUPLICATE_PENALTY = 0.5  # the share of the score an exact copy loses
EXPLICIT_WEIGHT = 0.8
CONFIDENCE_FLOOR = 0.2  # share of the learned score that confidence alone earns, used or not

Similarity = Mapping[tuple[str, str], float]
Neighbours = dict[str, dict[str, float]]


class Usage(BaseModel):
    """How a memory has been used: recall count, last use, and the sessions it was used in."""

    count: int = 0
    last_used: datetime | None = None
    sessions: list[str] = Field(default_factory=list)


def is_pinned(memory: Memory) -> bool:
    """`importance: 1` pins a memory: compaction never archives or merges it."""
    return memory.importance is not None and memory.importance >= 1.0


def _utc(value: datetime) -> datetime:
    # Naive times are taken as UTC, as the file format does.
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


def _days(later: datetime, earlier: datetime) -> float:
    return max(0.0, (_utc(later) - _utc(earlier)).total_seconds() / 86400.0)


def recency(memory: Memory, usage: Usage | None, *, now: datetime, half_life_days: float) -> float:
    """Exponential decay since last use; never-used memories get a grace period of one half-life."""
    if usage is not None and usage.last_used is not None:
        age = _days(now, usage.last_used)
    else:
        age = max(0.0, _days(now, memory.created) - half_life_days)
    if half_life_days <= 0:
        return 1.0 if age == 0 else 0.0
    return 0.5 ** (age / half_life_days)


def frequency(usage: Usage | None) -> float:
    """Saturating use count: more uses matter less and less."""
    count = max(0, usage.count) if usage is not None else 0
    return count / (count + FREQUENCY_HALF_COUNT)


def uniqueness(max_similarity: float) -> float:
    """1.0 for a unique memory, down to 0.5 for an exact copy of another one."""
    redundancy = (max_similarity - SIMILARITY_FLOOR) / (1.0 - SIMILARITY_FLOOR)
    return 1.0 - DUPLICATE_PENALTY * min(1.0, max(0.0, redundancy))


def importance_breakdown(
    memory: Memory, usage: Usage | None, *, now: datetime, half_life_days: float,
    max_similarity: float = 0.0,
) -> dict[str, float]:
    """Every component of the score and the score itself, for `show` and `compact --explain`."""
    parts = {
        "recency": recency(memory, usage, now=now, half_life_days=half_life_days),
        "frequency": frequency(usage),
        "confidence": memory.confidence,
        "uniqueness": uniqueness(max_similarity),
    }
    use = RECENCY_WEIGHT * parts["recency"] + FREQUENCY_WEIGHT * parts["frequency"]
    parts["use"] = use * (0.5 + 0.5 * parts["confidence"])
    parts["learned"] = (CONFIDENCE_FLOOR * parts["confidence"] + (1 - CONFIDENCE_FLOOR) * parts["use"]) * parts["uniqueness"]
    if memory.importance is not None:
        parts["explicit"] = memory.importance
    parts["pinned"] = 1.0 if is_pinned(memory) else 0.0
    parts["score"] = _combine(memory.importance, parts["learned"])
    return parts


def _combine(explicit: float | None, learned: float) -> float:
    if explicit is None:
        return min(1.0, max(0.0, learned))
    if explicit >= 1.0:
        return 1.0
    return min(1.0, max(0.0, EXPLICIT_WEIGHT * explicit + (1.0 - EXPLICIT_WEIGHT) * learned))


def importance(
    memory: Memory, usage: Usage | None, *, now: datetime, half_life_days: float,
    max_similarity: float = 0.0,
) -> float:
    """The importance score in [0, 1] (formula in the module docstring)."""
    return importance_breakdown(memory, usage, now=now, half_life_days=half_life_days,
                                max_similarity=max_similarity)["score"]


def neighbours(similarity: Similarity, ids: Iterable[str]) -> Neighbours:
    """Symmetric adjacency {id: {other: cosine}} restricted to `ids`; pair order does not matter."""
    wanted = set(ids)
    out: Neighbours = defaultdict(dict)
    for (a, b), value in similarity.items():
        if a != b and a in wanted and b in wanted:
            best = max(value, out[a].get(b, value))
            out[a][b] = out[b][a] = best
    return out


def importance_scores(
    memories: Sequence[Memory], usage: Mapping[str, Usage], *, now: datetime,
    settings: LifecycleSettings, similarity: Similarity,
) -> dict[str, float]:
    """Importance of each memory, uniqueness taken against better-scoring peers of its owner and type."""
    half_life = settings.half_life_days
    base = {m.id: importance(m, usage.get(m.id), now=now, half_life_days=half_life) for m in memories}
    near = neighbours(similarity, base)
    peer = {m.id: (m.owner, m.type) for m in memories}
    scores = {}
    for m in memories:
        better = [v for other, v in near.get(m.id, {}).items()
                  if peer[other] == peer[m.id] and (base[other], m.id) > (base[m.id], other)]
        scores[m.id] = importance(m, usage.get(m.id), now=now, half_life_days=half_life,
                                  max_similarity=max(better, default=0.0))
    return scores
