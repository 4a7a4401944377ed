"""The recall filter in SQL lets through exactly what store/filters.py lets through (owner, scope,
sessions, type, tags, dates, status, expiry, parts, kinds, and the actor's visibility), and nothing else
reaches Python: the database answers inside the filter."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memctl import clock
from memctl.core.access import Access
from memctl.core.models import Memory
from memctl.store.filters import MemoryFilter, filter_records
from memctl.store.postgres.sqlfilter import where

T0 = datetime(2026, 5, 1, tzinfo=timezone.utc)
NOW = T0 + timedelta(days=30)
MEMBERS = {"shop": {"olga": "owner", "eddy": "editor"}}


def rows() -> list[dict]:
    """Memories of every kind of owner, scope, visibility, period and status."""
    specs = [
        {"user": "alice", "body": "Alice likes tea", "tags": ["drink"]},
        {"user": "alice", "session": "s1", "scope": "session", "body": "Alice is in a meeting"},
        {"user": "alice", "session": "s2", "scope": "session", "body": "Alice flies today", "type": "event"},
        {"user": "bob", "session": "s1", "scope": "session", "body": "Bob has a dentist appointment"},
        {"user": "bob", "body": "Bob likes coffee", "tags": ["drink", "morning"]},
        {"project": "shop", "user": "bob", "scope": "project", "body": "Shop deploys on Fridays", "type": "decision"},
        {"project": "shop", "scope": "project", "body": "Shop secret plan", "visibility": "owner_only", "author": "olga"},
        {"project": "shop", "scope": "project", "body": "Shop public note", "visibility": "public"},
        {"project": "lab", "scope": "project", "body": "Lab uses Rust"},
        {"project": "lab", "session": "s1", "scope": "session", "body": "Lab standup now"},
        {"user": "alice", "body": "Alice went to Rome", "type": "event", "occurred": "2026-03-02..2026-03-09"},
        {"user": "alice", "body": "Alice lived in Oslo", "status": "superseded"},
        {"user": "alice", "body": "Alice forgot this", "status": "forgotten"},
        {"user": "alice", "body": "Alice is at the gym", "expires": T0 + timedelta(days=1)},
        {"user": "alice", "body": "Alice's flight to Rome", "part_of": "0000000a", "type": "event"},
        {"user": "alice", "body": "Alice's passport", "kind": "passport", "fields": {"number": "X1", "expires": "2031-04-02"}},
        {"user": "bob", "body": "Bob's trip to Oslo", "kind": "trip", "type": "event", "fields": {"dates": "2026-06-01..2026-06-09"}},
        {"project": "shop", "scope": "project", "body": "Shop's lease", "kind": "contract", "status": "superseded"},
    ]
    out = []
    for n, spec in enumerate(specs):
        spec = {"type": "fact", "scope": "user", **spec}
        created = T0 + timedelta(days=n)
        memory = Memory(id=f"{n + 1:08x}", created=created, updated=created, **spec)
        memory.path = ("archive/" if memory.status != "active" else "") + f"{memory.owner}/m-{memory.id}.md"
        out.append(memory)
    return out


FILTERS = [
    MemoryFilter(),
    MemoryFilter(users=("alice",)),
    MemoryFilter(users=("bob",)),
    MemoryFilter(users=("alice",), session="s1"),
    MemoryFilter(users=("bob",), session="s1"),
    MemoryFilter(session="s1"),
    MemoryFilter(projects=("shop",)),
    MemoryFilter(projects=("lab",), session="s1"),
    MemoryFilter(users=("alice", "bob"), projects=("lab",)),
    MemoryFilter(types=("event",)),
    MemoryFilter(tags=("morning",)),
    MemoryFilter(tags=("drink",), users=("alice",)),
    MemoryFilter(since=datetime(2026, 3, 5, tzinfo=timezone.utc), until=datetime(2026, 5, 3, tzinfo=timezone.utc)),
    MemoryFilter(since=T0 + timedelta(days=6, hours=12)),
    MemoryFilter(status="history"),
    MemoryFilter(status="all", users=("alice",)),
    MemoryFilter(status="forgotten"),
    MemoryFilter(family=("0000000a",)),
    MemoryFilter(kinds=("passport",)),
    MemoryFilter(kinds=("passport", "trip"), users=("bob",)),
    MemoryFilter(kinds=("contract",), status="all"),
    MemoryFilter(kinds=("visa",)),
    MemoryFilter(access=Access.of("eddy", MEMBERS)),
    MemoryFilter(access=Access.of("olga", MEMBERS), projects=("shop",)),
    MemoryFilter(access=Access.of("zed", MEMBERS)),
    MemoryFilter(access=Access.of("alice", MEMBERS), users=("alice",)),
]


@pytest.fixture
def stored(pgstore) -> list[Memory]:
    memories = rows()
    with pgstore.repo.locked():
        for memory in memories:
            pgstore.repo.put(memory.model_copy(), "test:setup")
    return memories


def catalog_records(memories: list[Memory]) -> list[tuple[str, dict]]:
    """The records the file catalog would hold for these memories (store/catalog.py's form)."""
    out = []
    for m in memories:
        data = {k: v for k, v in m.model_dump(mode="json", exclude={"path"}, exclude_none=True).items() if v not in ([], {})}
        out.append((str(m.path), data))
    return out


@pytest.mark.parametrize("flt", FILTERS, ids=[f"f{n}" for n in range(len(FILTERS))])
def test_sql_lets_through_what_the_file_filter_does(pgstore, stored: list[Memory], flt: MemoryFilter) -> None:
    expected, _ = filter_records(catalog_records(stored), flt, NOW)
    pool = pgstore.repo.candidates(flt, NOW)
    assert sorted(pool) == sorted(expected) and len(pool) == len(expected)
    assert all(i in pool for i in expected) and not any(i in pool for i in {m.id for m in stored} - set(expected))


def test_a_users_recall_never_sees_another_users_memories_even_when_they_match_better(pgstore, stored) -> None:
    clock.set_now(NOW)
    pool = pgstore.repo.candidates(MemoryFilter(users=("alice",)), NOW)
    found = pgstore.search.keyword_search("Bob dentist appointment coffee", 50, pool)
    assert found == [] and pool.rows == {}  # nothing of Bob's left the database
    found = pgstore.search.keyword_search("tea", 50, pool)
    assert [i for i, _ in found] == ["00000001"] and set(pool.rows) == {"00000001"}


def test_the_where_clause_is_parameters_only() -> None:
    condition, params = where(MemoryFilter(users=("x'; DROP TABLE memctl_memories; --",), tags=("t",)), NOW)
    assert "DROP" not in condition and params["f_users"] == ["x'; DROP TABLE memctl_memories; --"]
