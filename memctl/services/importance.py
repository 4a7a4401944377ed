"""Importance of stored memories (for `list --sort importance`, `show`, compaction): usage and peers."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence

from memctl import clock
from memctl.config import Config
from memctl.core.models import Memory
from memctl.policy.importance import Usage
from memctl.policy.importance import importance_scores as plan_scores
from memctl.store.repository import ReadsAndUsage, SearchIndex, UsageLog


def usage_map(repo: UsageLog) -> dict[str, Usage]:
    """Usage statistics from the repository, as policy models (damaged entries are skipped)."""
    out = {}
    for memory_id, raw in repo.usage().items():
        try:
            out[memory_id] = Usage.model_validate(raw)
        except ValueError:
            continue
    return out


def similarity_pairs(search: SearchIndex, memories: Sequence[Memory], threshold: float,
                     sync: bool, only: Collection[tuple[str, str]] | None = None) -> dict[tuple[str, str], float]:
    """Cosine of pairs of one owner and type at or above `threshold` (sync=False: cached vectors
    only); with `only`, of those (owner, type) groups alone."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for m in memories:
        groups[(m.owner, m.type)].append(m.id)
    out: dict[tuple[str, str], float] = {}
    for group, ids in groups.items():
        if len(ids) > 1 and (only is None or group in only):
            out.update(search.pair_similarities(sorted(ids), threshold, sync=sync))
    return out


def importance_scores(repo: ReadsAndUsage, search: SearchIndex, config: Config,
                      memories: Iterable[Memory]) -> dict[str, float]:
    """Importance for display: uses cached vectors when present, never loads the model."""
    memories = list(memories)
    active = repo.active()
    try:  # uniqueness is taken within an owner and type: only the groups of `memories` are compared
        sims = similarity_pairs(search, active, 0.5, sync=False, only={(m.owner, m.type) for m in memories})
    except Exception:  # a missing or foreign vector cache only loses the uniqueness term
        sims = {}
    usage, now, settings = usage_map(repo), clock.now(), config.lifecycle
    scores = plan_scores(active, usage, now=now, settings=settings, similarity=sims)
    others = [m for m in memories if m.id not in scores]  # archived ones: no peers to compare with
    scores.update(plan_scores(others, usage, now=now, settings=settings, similarity={}))
    return {m.id: scores[m.id] for m in memories}
