"""Recall: filter the memories a query may see, rank them by keyword + embedding, return typed hits."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Literal, Sequence

from pydantic import BaseModel, Field

from memctl import clock
from memctl.errors import UsageError
from memctl.models import Hit, Memory
from memctl.policy.rank import RankWeights, final_score, fuse, order_conflicts

if TYPE_CHECKING:
    from memctl.service import MemoryStore

Mode = Literal["hybrid", "keyword", "semantic"]
POOL = 100  # candidates taken from each retriever before fusion
HISTORY_STATUSES = ("superseded", "merged")  # what `--status history` adds to the active memories


class RecallQuery(BaseModel):
    """What to look for and where."""

    query: str
    users: list[str] = Field(default_factory=list)
    projects: list[str] = Field(default_factory=list)
    session: str | None = None
    types: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    since: datetime | None = None
    until: datetime | None = None
    status: str = "active"
    k: int = 5
    mode: Mode = "hybrid"
    record_usage: bool = True


class RecallResult(BaseModel):
    query: str
    mode: str
    hits: list[Hit]
    considered: int


def weights_from(store: "MemoryStore") -> RankWeights:
    r = store.config.recall
    return RankWeights(similarity=r.weight_similarity, confidence=r.weight_confidence, scope=r.weight_scope,
                       scope_priority=r.scope_priority, rrf_k=r.rrf_k, keyword=r.keyword_weight,
                       semantic=r.semantic_weight, recency=r.recency_boost)


def in_scope(m: Memory, q: RecallQuery, user_projects: set[str]) -> bool:
    """The user's own memories, their projects', and the session's; no scope flags = everything."""
    if not (q.users or q.projects or q.session):
        return True
    if m.scope == "session":
        return (q.session is not None and m.session == q.session) or (not q.session and m.user in q.users)
    if m.scope == "project":
        return m.project in q.projects or m.project in user_projects
    return m.user in q.users


def candidates(store: "MemoryStore", q: RecallQuery, now: datetime) -> list[Memory]:
    """Memories passing every filter; expired memories never come back."""
    memories = store.snapshot().memories
    user_projects = {m.project for m in memories if m.project and m.user in q.users} if q.users else set()
    out = []
    for m in memories:
        if q.status == "active" and not store.is_active(m):
            continue
        if q.status == "history" and not (store.is_active(m) or m.status in HISTORY_STATUSES):
            continue
        if q.status not in ("active", "all", "history") and m.status != q.status:
            continue
        if m.is_expired(now) or not in_scope(m, q, user_projects):
            continue
        if (q.types and m.type not in q.types) or (q.tags and not set(q.tags) & set(m.tags)):
            continue
        if (q.since and m.created < q.since) or (q.until and m.created > q.until):
            continue
        out.append(m)
    return out


def recall(store: "MemoryStore", q: RecallQuery) -> RecallResult:
    """Rank the candidate memories for `q.query` and return the top k hits."""
    if q.k < 1:
        raise UsageError("-k must be at least 1", code="bad_k")
    if not q.query.strip():
        raise UsageError("empty query: say what to recall", code="empty_query")
    now = clock.now()
    pool = candidates(store, q, now)
    by_id = {m.id: m for m in pool}
    engine = store.engine()
    everything = store.snapshot().memories
    keyword, semantic = [], []
    if q.mode in ("hybrid", "keyword"):
        engine.sync_keyword(everything)
        keyword = engine.keyword_search(q.query, POOL, set(by_id))
    if q.mode in ("hybrid", "semantic"):
        engine.sync_vectors(everything)
        semantic = engine.semantic_search(q.query, POOL, set(by_id))
    life = store.config.lifecycle
    history = frozenset(m.key for m in pool if m.key and life.keys.get(m.key, life.key_policy) == "history")
    hits = rank(fuse(keyword, semantic, weights_from(store)), by_id, weights_from(store), now, q.k, history)
    if q.record_usage and hits:
        store.usage().record([h.id for h in hits], now, q.session)
    return RecallResult(query=q.query, mode=q.mode, hits=hits, considered=len(pool))


def rank(fused: list, by_id: dict[str, Memory], weights: RankWeights, now: datetime, k: int,
         history_keys: frozenset[str] = frozenset()) -> list[Hit]:
    """Final scores, newer-first within conflicting pairs, de-duplicated within a type, top k."""
    parts: dict[str, dict[str, float]] = {}
    scored = []
    for s in fused:
        m = by_id[s.id]
        score, comp = final_score(s.similarity, m.confidence, m.scope, weights, m.created, now)
        parts[s.id] = {**s.components, **comp}
        scored.append((s.id, score))
    scored = order_conflicts(scored, _newer_than(by_id, {i for i, _ in scored}, history_keys))
    hits, seen = [], set()
    for doc_id, score in scored:
        m = by_id[doc_id]
        fp = (m.type, " ".join(m.body.casefold().split()))
        if fp in seen:
            continue
        seen.add(fp)
        hits.append(Hit(id=m.id, path=m.path, type=m.type, scope=m.scope, user=m.user, project=m.project,
                        session=m.session, content=m.body, score=round(score, 6), created=m.created,
                        components=parts[doc_id], memory=m))
        if len(hits) == k:
            break
    return hits


def _newer_than(by_id: dict[str, Memory], present: set[str], history_keys: frozenset[str]) -> dict[str, set[str]]:
    """Pairs where the newer memory must rank first: linked as conflicting, or versions of one key."""
    out: dict[str, set[str]] = {}
    by_key: dict[tuple[str, str], list[Memory]] = {}
    for doc_id in present:
        m = by_id[doc_id]
        if m.key and m.key not in history_keys:
            by_key.setdefault((m.owner, m.key), []).append(m)
        for other in m.conflicts_with:
            o = by_id.get(other)
            if o is not None and other in present and (m.created, m.id) > (o.created, o.id):
                out.setdefault(doc_id, set()).add(other)
    for versions in by_key.values():
        versions.sort(key=lambda v: (v.created, v.id))
        for i, newer in enumerate(versions[1:], start=1):
            out.setdefault(newer.id, set()).update(v.id for v in versions[:i])
    return out
