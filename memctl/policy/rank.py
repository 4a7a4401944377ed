"""Ranking (pure): fuse keyword and embedding results into a similarity, then the final score.

similarity (default, ``fusion="score"``): a convex combination of the two retrievers' normalised
scores, each in [0, 1]:

- keyword: BM25F divided by the query's best BM25F. BM25 has a natural zero (no query term
  matched) but no upper bound, and its scale changes with every query, so it is made relative.
- semantic: cosine min-max normalised over the retrieved candidates. Cosines sit in a narrow,
  model-specific band (MiniLM: roughly 0.0-0.7), so the spread among candidates carries the signal.
- similarity = (w_k * keyword + w_s * semantic) / (w_k + w_s) over the retrievers that returned
  anything; a memory one retriever did not return gets that retriever's floor (0).

Score fusion keeps how much better the best match is than the next, which rank fusion throws away.
On LoCoMo (bench/README.md) it beats reciprocal-rank fusion by 2-3 points of recall@5. w_k and w_s
are `[recall] keyword_weight` / `semantic_weight`, equal by default: with the probabilistic BM25
IDF of the keyword index, weights from 1:1 to 1:3 score the same there, so nothing is tuned.
``fusion="rrf"`` keeps weighted reciprocal-rank fusion (normalised so a memory ranked first by
every retriever scores 1).

final = w_sim * similarity + w_conf * confidence + w_scope * scope_priority (+ optional recency).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Mapping, Sequence

from memctl.config import RecallSettings

Run = Sequence[tuple[str, float]]


@dataclass
class Scored:
    id: str
    similarity: float
    components: dict[str, float]


def relative_to_best(run: Run) -> dict[str, float]:
    """Scores divided by the best one (for scores with a natural zero, like BM25)."""
    best = max((float(s) for _, s in run), default=0.0)
    return {i: (float(s) / best if best > 0 else 1.0) for i, s in run}


def min_max(run: Run) -> dict[str, float]:
    """Scores mapped onto [0, 1] across the run (all equal: all 1)."""
    values = [float(s) for _, s in run]
    low, high = min(values, default=0.0), max(values, default=0.0)
    return {i: ((float(s) - low) / (high - low) if high > low else 1.0) for i, s in run}


NORMALISERS: dict[str, Callable[[Run], dict[str, float]]] = {"keyword": relative_to_best, "semantic": min_max}


def fuse(keyword: Run, semantic: Run, weights: RecallSettings, more_semantic: Sequence[Run] = ()) -> list[Scored]:
    """Fuse the rankings (any may be empty) into one, best first, similarity in [0, 1].

    `more_semantic` holds the cosine runs of further embedding models (a second model recall
    fuses): each is min-max normalised and weighted `semantic_weight`, like the first, and its
    components are named semantic2, semantic3, ..."""
    named = [("keyword", keyword, weights.keyword_weight), ("semantic", semantic, weights.semantic_weight)]
    named += [(f"semantic{n}", run, weights.semantic_weight) for n, run in enumerate(more_semantic, start=2)]
    runs = [(name, run, w) for name, run, w in named if run and w > 0]
    if not runs:
        return []
    parts = _raw_components(runs)
    if weights.fusion == "rrf":
        similarity = _rrf(runs, weights.rrf_k, parts)
    else:
        similarity = _score_fusion(runs, parts)
    out = [Scored(i, min(max(similarity[i], 0.0), 1.0), parts[i]) for i in parts]
    out.sort(key=lambda s: (-s.similarity, s.id))
    return out


def _raw_components(runs: list[tuple[str, Run, float]]) -> dict[str, dict[str, float]]:
    """Each memory's rank and raw score in every run that returned it."""
    parts: dict[str, dict[str, float]] = {}
    for name, run, _ in runs:
        for rank, (doc_id, raw) in enumerate(run, start=1):
            comp = parts.setdefault(doc_id, {})
            comp[f"{name}_rank"] = rank
            comp[f"{name}_score"] = round(float(raw), 6)
    return parts


def _score_fusion(runs: list[tuple[str, Run, float]], parts: dict[str, dict[str, float]]) -> dict[str, float]:
    """Weighted mean of normalised scores; a memory missing from a run gets that run's floor, 0."""
    total = sum(w for _, _, w in runs)
    fused = dict.fromkeys(parts, 0.0)
    for name, run, w in runs:
        for doc_id, value in NORMALISERS.get(name, min_max)(run).items():
            parts[doc_id][f"{name}_norm"] = round(value, 6)
            fused[doc_id] += w * value / total
    return fused


def _rrf(runs: list[tuple[str, Run, float]], rrf_k: int, parts: dict[str, dict[str, float]]) -> dict[str, float]:
    """Weighted reciprocal-rank fusion divided by its best possible value."""
    best = sum(w / (rrf_k + 1) for _, _, w in runs)
    fused = dict.fromkeys(parts, 0.0)
    for _, run, w in runs:
        for rank, (doc_id, _) in enumerate(run, start=1):
            fused[doc_id] += w / (rrf_k + rank)
    for doc_id, value in fused.items():
        parts[doc_id]["rrf"] = round(value, 6)
    return {doc_id: value / best for doc_id, value in fused.items()}


def final_score(similarity: float, confidence: float, scope: str, weights: RecallSettings,
                created: datetime | None = None, now: datetime | None = None) -> tuple[float, dict[str, float]]:
    """The documented final score and its parts."""
    priority = weights.scope_priority.get(scope, 0.6)
    parts = {"similarity": round(similarity, 6), "confidence": confidence, "scope_priority": priority}
    score = weights.weight_similarity * similarity + weights.weight_confidence * confidence + weights.weight_scope * priority
    if weights.recency_boost and created and now:
        age_days = max((now - created).total_seconds() / 86400, 0.0)
        recency = math.pow(0.5, age_days / weights.recency_half_life_days)
        parts["recency"] = round(recency, 6)
        score += weights.recency_boost * recency
    parts["final"] = round(score, 6)
    return score, parts


def order_conflicts(ranked: list[tuple[str, float]], newer_than: Mapping[str, set[str]],
                    tiebreak: Callable[[str], tuple] | None = None) -> list[tuple[str, float]]:
    """Within possibly-conflicting pairs, the newer memory ranks right above the older one.

    `newer_than[a]` holds the ids `a` is newer than (and linked to as conflicting). The older keeps
    its score (and so its place among the other hits: "Hank lives in Beijing" stays above "Hank has a
    dog" when "Hank moved to Shanghai" is lifted over it). Equal scores are ordered by `tiebreak(id)`
    (the caller's: newest first), then by id.
    """
    scores = dict(ranked)
    for newer, olders in newer_than.items():
        for older in olders:
            if newer in scores and older in scores and scores[older] >= scores[newer]:
                scores[newer] = scores[older] + 1e-6
    key = tiebreak or (lambda _: ())
    return sorted(scores.items(), key=lambda kv: (-round(kv[1], 9), key(kv[0]), kv[0]))
