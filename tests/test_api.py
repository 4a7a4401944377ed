"""The facade methods the servers need: list paging and subtype, tree, owners, MEMORY.md text, recall by scope."""

from __future__ import annotations

import pytest

from memctl import clock
from memctl.api import MemoryStore
from memctl.errors import UsageError


@pytest.fixture
def dated(store: MemoryStore) -> MemoryStore:
    for day, (text, type_, subtype) in enumerate([("Alice lives in Lisbon", "fact", "home"),
                                                  ("Alice likes oat milk flat whites", "preference", "like"),
                                                  ("Alice works as a product designer", "fact", None),
                                                  ("Alice dislikes early meetings", "preference", "dislike")], 1):
        clock.set_now(clock.parse_timestamp(f"2026-01-0{day}T00:00:00Z"))
        store.add_raw(text, type=type_, subtype=subtype, user="alice")
    clock.set_now(None)
    store.add_raw("Checkout is written in Go", type="context", project="shop")
    return store


def test_list_offset_newest_first_and_subtype(dated: MemoryStore) -> None:
    bodies = [m.body for m in dated.list(user="alice", newest_first=True, offset=1, limit=2)]
    assert bodies == ["Alice works as a product designer", "Alice likes oat milk flat whites"]
    assert [m.body for m in dated.list(user="alice", subtype="home")] == ["Alice lives in Lisbon"]
    with pytest.raises(UsageError):
        dated.list(offset=-1)


def test_tree_groups_by_type_and_subtype(dated: MemoryStore) -> None:
    tree = dated.tree(user="alice")
    assert {t: {s: [m.body for m in ms] for s, ms in subs.items()} for t, subs in tree.items()} == {
        "fact": {"home": ["Alice lives in Lisbon"], "": ["Alice works as a product designer"]},
        "preference": {"like": ["Alice likes oat milk flat whites"], "dislike": ["Alice dislikes early meetings"]}}
    assert list(dated.tree(project="shop")) == ["context"]
    with pytest.raises(UsageError):
        dated.tree()


def test_owners_and_memory_md_text(dated: MemoryStore) -> None:
    assert dated.owners() == ["projects/shop", "users/alice"]
    text = dated.memory_md(user="alice")
    assert text.startswith("# User memory: alice") and "Lisbon" in text
    assert not (dated.root / "users" / "alice" / "MEMORY.md").exists()  # rendered, not written
    with pytest.raises(UsageError):
        dated.memory_md(user="../x")


def test_recall_by_scope(dated: MemoryStore) -> None:
    dated.add_raw("Alice reviews the Go code in checkout", type="skill", project="shop", user="alice")
    mixed = dated.recall("Go checkout", users=["alice"], k=5, min_relevance=0).hits  # none held back
    assert {h.scope for h in mixed} == {"project", "user"}
    only = dated.recall("Go checkout", users=["alice"], k=5, scopes=["project"], min_relevance=0).hits
    assert only and {h.scope for h in only} == {"project"}
    with pytest.raises(UsageError):
        dated.recall("Go", scopes=["galaxy"])
