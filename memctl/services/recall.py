"""Recall: filter the memories a query may see, rank them by keyword + embedding, return typed hits."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Literal, Sequence

from pydantic import BaseModel, Field

from memctl import clock
from memctl.clock import format_timestamp
from memctl.errors import UsageError
from memctl.core.models import Hit, Memory
from memctl.policy.rank import RankWeights, final_score, fuse, order_conflicts

if TYPE_CHECKING:
    from memctl.store.catalog import Snapshot
    from memctl.api import MemoryStore

Mode = Literal["hybrid", "keyword", "semantic"]
POOL = 100  # candidates taken from each retriever before fusion
HISTORY_STATUSES = ("superseded", "merged")
ARCHIVE_PREFIX = "archive/"  # what `--status history` adds to the active memories


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

    def to_data(self, explain: bool = False) -> dict:
        """The `recall --json` data (with each hit's component scores when `explain`)."""
        hits = []
        for hit in self.hits:
            data = hit.model_dump(mode="json", exclude={"components", "memory"})
            if explain:
                data["explain"] = hit.components
            hits.append(data)
        return {"query": self.query, "mode": self.mode, "considered": self.considered, "hits": hits}


def weights_from(store: "MemoryStore") -> RankWeights:
    r = store.config.recall
    return RankWeights(similarity=r.weight_similarity, confidence=r.weight_confidence, scope=r.weight_scope,
                       scope_priority=r.scope_priority, rrf_k=r.rrf_k, keyword=r.keyword_weight,
                       semantic=r.semantic_weight, recency=r.recency_boost, fusion=r.fusion)


def in_scope(m: dict, q: RecallQuery, user_projects: set[str]) -> bool:
    """The user's own memories, their projects', and the session's; no scope flags = everything."""
    if not (q.users or q.projects or q.session):
        return True
    scope = m.get("scope", "user")
    if scope == "session":
        return (q.session is not None and m.get("session") == q.session) or (not q.session and m.get("user") in q.users)
    if scope == "project":
        return m.get("project") in q.projects or m.get("project") in user_projects
    return m.get("user") in q.users


def _status_ok(rel: str, status: str, wanted: str) -> bool:
    active = status == "active" and not rel.startswith(ARCHIVE_PREFIX)
    if wanted == "active":
        return active
    if wanted == "history":
        return active or status in HISTORY_STATUSES
    return wanted == "all" or status == wanted


_POOLS: dict[tuple, tuple] = {}


def candidates(snap: "Snapshot", q: RecallQuery, now: datetime) -> dict[str, str]:
    """id -> path of the memories passing every filter; memoised per snapshot and filters until
    the next expiry among them, so an agent's repeated recalls skip the scan."""
    key = (id(snap), tuple(q.users), tuple(q.projects), q.session, tuple(q.types), tuple(q.tags),
           q.since, q.until, q.status)
    cached = _POOLS.get(key)
    now_s = format_timestamp(now)
    if cached is not None and cached[2] is snap and now_s < cached[1]:
        return cached[0]
    pool, next_expiry = _filter(snap.records(), q, now_s)
    _POOLS.clear()
    _POOLS[key] = (pool, next_expiry, snap)
    return pool


def _filter(records: list, q: RecallQuery, now_s: str) -> tuple[dict[str, str], str]:
    """The filters, on the catalog records (plain dicts: no validation); also the next expiry."""
    user_projects = {d.get("project") for _, d in records
                     if d.get("project") and d.get("user") in q.users} if q.users else set()
    since, until = (format_timestamp(t) if t else None for t in (q.since, q.until))
    active_only, scoped = q.status == "active", bool(q.users or q.projects or q.session)
    types, tags = set(q.types), set(q.tags)
    out, next_expiry = {}, "9999"
    for rel, d in records:
        expires = d.get("expires")
        if expires:
            if expires <= now_s:
                continue
            next_expiry = min(next_expiry, expires)
        if active_only:
            if d.get("status", "active") != "active" or rel.startswith(ARCHIVE_PREFIX):
                continue
        elif not _status_ok(rel, d.get("status", "active"), q.status):
            continue
        if scoped and not in_scope(d, q, user_projects):
            continue
        if (types and d.get("type") not in types) or (tags and not tags.intersection(d.get("tags") or ())):
            continue
        if (since and d["created"] < since) or (until and d["created"] > until):
            continue
        out[d["id"]] = rel
    return out, next_expiry


def recall(store: "MemoryStore", q: RecallQuery) -> RecallResult:
    """Rank the candidate memories for `q.query` and return the top k hits."""
    if q.k < 1:
        raise UsageError("-k must be at least 1", code="bad_k")
    if not q.query.strip():
        raise UsageError("empty query: say what to recall", code="empty_query")
    now = clock.now()
    snap = store.snapshot()
    pool = candidates(snap, q, now)
    engine = store.engine()
    keyword, semantic = [], []
    if q.mode in ("hybrid", "keyword"):
        engine.sync_keyword(snap)
        keyword = engine.keyword_search(q.query, POOL, pool)
    if q.mode in ("hybrid", "semantic"):
        engine.sync_vectors(snap)
        semantic = engine.semantic_search(q.query, POOL, pool)
    weights = weights_from(store)
    fused = fuse(keyword, semantic, weights)
    by_id = {s.id: snap.memory(pool[s.id]) for s in fused if s.id in pool}
    life = store.config.lifecycle
    history = frozenset(m.key for m in by_id.values() if m.key and life.keys.get(m.key, life.key_policy) == "history")
    hits = rank([s for s in fused if s.id in by_id], by_id, weights, now, q.k, history)
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
    newest_first = lambda i: (-by_id[i].created.timestamp(), by_id[i].body)  # noqa: E731 (ties: no id lottery)
    scored = order_conflicts(scored, _newer_than(by_id, {i for i, _ in scored}, history_keys), newest_first)
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
