"""Ranking (pure): fuse keyword and embedding rankings into a similarity, then the final score.

similarity: weighted reciprocal-rank fusion, normalised to [0, 1] by its best possible value, so
a memory ranked first by every retriever scores 1.0.
final = w_sim * similarity + w_conf * confidence + w_scope * scope_priority (+ optional recency).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Mapping, Sequence


@dataclass(frozen=True)
class RankWeights:
    similarity: float = 0.5
    confidence: float = 0.3
    scope: float = 0.2
    scope_priority: Mapping[str, float] = field(
        default_factory=lambda: {"session": 1.0, "project": 0.8, "user": 0.6})
    rrf_k: int = 60
    keyword: float = 1.0
    semantic: float = 1.0
    recency: float = 0.0
    recency_half_life_days: float = 30.0


@dataclass
class Scored:
    id: str
    similarity: float
    components: dict[str, float]


def fuse(keyword: Sequence[tuple[str, float]], semantic: Sequence[tuple[str, float]],
         weights: RankWeights) -> list[Scored]:
    """Reciprocal-rank fusion of the two rankings (either may be empty), best first."""
    runs = [(name, run, w) for name, run, w in (("keyword", keyword, weights.keyword),
                                                 ("semantic", semantic, weights.semantic)) if run and w > 0]
    if not runs:
        return []
    best = sum(w / (weights.rrf_k + 1) for _, _, w in runs)
    scores: dict[str, dict[str, float]] = {}
    for name, run, w in runs:
        for rank, (doc_id, raw) in enumerate(run, start=1):
            comp = scores.setdefault(doc_id, {})
            comp[f"{name}_rank"] = rank
            comp[f"{name}_score"] = round(float(raw), 6)
            comp["rrf"] = comp.get("rrf", 0.0) + w / (weights.rrf_k + rank)
    out = [Scored(i, c["rrf"] / best, c) for i, c in scores.items()]
    out.sort(key=lambda s: (-s.similarity, s.id))
    return out


def final_score(similarity: float, confidence: float, scope: str, weights: RankWeights,
                created: datetime | None = None, now: datetime | None = None) -> tuple[float, dict[str, float]]:
    """The documented final score and its parts."""
    priority = weights.scope_priority.get(scope, 0.6)
    parts = {"similarity": round(similarity, 6), "confidence": confidence, "scope_priority": priority}
    score = weights.similarity * similarity + weights.confidence * confidence + weights.scope * priority
    if weights.recency and created and now:
        age_days = max((now - created).total_seconds() / 86400, 0.0)
        recency = math.pow(0.5, age_days / weights.recency_half_life_days)
        parts["recency"] = round(recency, 6)
        score += weights.recency * recency
    parts["final"] = round(score, 6)
    return score, parts


def order_conflicts(ranked: list[tuple[str, float]], newer_than: Mapping[str, set[str]]) -> list[tuple[str, float]]:
    """Within possibly-conflicting pairs, the newer memory ranks above the older one.

    `newer_than[a]` holds the ids `a` is newer than (and linked to as conflicting).
    """
    scores = dict(ranked)
    for newer, olders in newer_than.items():
        for older in olders:
            if newer in scores and older in scores and scores[older] >= scores[newer]:
                high, low = scores[older], scores[newer]
                scores[newer], scores[older] = high + 1e-6, low
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
