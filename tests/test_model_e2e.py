"""End to end with the real shipped model (marked `model`): write decisions and recall quality basics."""

from __future__ import annotations

import pytest

from memctl import clock
from memctl.api import MemoryStore
from memctl.errors import Refused

pytestmark = pytest.mark.model

PAIRS = [
    ("Bob likes jazz", "Bob dislikes jazz", "preference", "bob"),
    ("The team uses PostgreSQL 16", "The team uses PostgreSQL 15", "fact", "bob"),
    ("The offsite in Tokyo is on March 3", "The offsite in Tokyo is on March 5", "event", "alice"),
]


@pytest.mark.parametrize(("old", "new", "type_", "user"), PAIRS)
def test_changed_facts_leave_the_newer_active_and_first(store: MemoryStore, old: str, new: str, type_: str,
                                                        user: str) -> None:
    first = store.add(old, type=type_, user=user).memory
    clock.set_now(clock.now() + clock.parse_duration("1h"))
    result = store.add(new, type=type_, user=user)
    assert result.decision.action in ("supersede", "add") and result.written
    if result.decision.action == "add":
        assert first.id in result.decision.conflicts_with
    hits = MemoryStore(store.root).recall(old, users=[user], record_usage=False).hits
    assert hits[0].id == result.memory.id
    assert first.id not in {h.id for h in hits[1:]} or result.decision.action == "add"


def test_repeat_is_a_noop_and_detail_is_an_update(store: MemoryStore) -> None:
    first = store.add("Alice is vegetarian", type="fact", user="alice").memory
    with pytest.raises(Refused) as info:
        store.add("Alice is a vegetarian", type="fact", user="alice")
    assert info.value.code == "duplicate" and info.value.data["decision"]["action"] == "noop"
    seat = store.add("Alice prefers window seats on flights", type="preference", user="alice").memory
    result = store.add("Alice prefers window seats on long flights", type="preference", user="alice")
    assert result.decision.action == "update" and result.memory.id == seat.id
    assert store.get(seat.id).body == "Alice prefers window seats on long flights"
    assert len(store.list(user="alice")) == 2 and store.get(first.id)


def test_key_supersede_and_history(store: MemoryStore) -> None:
    beijing = store.add("Alice lives in Beijing", type="fact", user="alice", key="home.city").memory
    shanghai = store.add("Alice moved to Shanghai", type="fact", user="alice", key="home.city")
    assert shanghai.decision.action == "supersede"
    fresh = MemoryStore(store.root)
    assert [m.id for m in fresh.list(user="alice")] == [shanghai.memory.id]
    archived = fresh.get(beijing.id)
    assert archived.status == "superseded" and archived.superseded_by == shanghai.memory.id
    assert [h.id for h in fresh.recall("where does Alice live", users=["alice"]).hits] == [shanghai.memory.id]
    assert [e.op for e in fresh.history(beijing.id)] == ["add", "supersede", "superseded"]
    assert {e.id for e in fresh.history(beijing.id)} == {beijing.id, shanghai.memory.id}


def test_semantic_recall_finds_paraphrases(store: MemoryStore) -> None:
    seat = store.add("Alice prefers window seats on flights", type="preference", user="alice").memory
    store.add("Bob maintains the Kubernetes cluster", type="skill", user="bob")
    store.add("Carol's daughter plays the cello", type="fact", user="carol")
    assert store.recall("where does she like to sit on the plane", mode="semantic").hits[0].id == seat.id
    assert store.recall("where does she like to sit on the plane").hits[0].id == seat.id
