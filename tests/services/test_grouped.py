"""Group commit (services/grouped.py): adds arriving together at a server are written together,
each decided exactly as it would be alone, and each caller gets its own result."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from memctl.api import MemoryStore
from memctl.errors import MemctlError
from memctl.services.grouped import _Add, write_group
from tests.helpers import use_hashing_embedder

ADDS: list[tuple[str, dict[str, Any]]] = [
    ("Alice keeps bees on the roof", {"user": "alice", "type": "fact"}),
    ("Alice keeps bees on the roof", {"user": "alice", "type": "fact"}),  # a repeat within the group
    ("Alice lives in Lisbon", {"user": "alice", "type": "fact", "key": "home.city"}),
    ("Alice moved to Berlin", {"user": "alice", "type": "fact", "key": "home.city"}),  # a change within it
    ("Bob keeps bees on the roof", {"user": "bob", "type": "fact"}),  # another owner: nothing to merge
    ("my api key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", {"user": "bob", "type": "fact"}),  # refused
    ("Alice keeps bees on the roof", {"user": "alice", "type": "fact", "confidence": 0.4}),  # gated, and a repeat
]


def _outcome(result: Any, error: BaseException | None) -> tuple[Any, ...]:
    if error is not None:
        assert isinstance(error, MemctlError)
        data = error.data if isinstance(error.data, dict) else {}
        return ("refused", error.code, (data.get("decision") or {}).get("action"))
    return (result.decision.action, result.written, result.memory.body, result.memory.owner,
            result.matched.body if result.matched else None)


def _renamed(text: str, fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The same add for other people (Alice -> Carol, Bob -> Dave): decided alike, stored apart."""
    swap = {"alice": "carol", "bob": "dave"}
    for old, new in swap.items():
        text = text.replace(old.title(), new.title())
    return text, {**fields, "user": swap[fields["user"]]}


def _one_by_one(store: MemoryStore) -> list[tuple[Any, ...]]:
    out = []
    for text, fields in (_renamed(t, f) for t, f in ADDS):
        try:
            out.append(_outcome(store.add(text, **fields), None))
        except MemctlError as exc:
            out.append(_outcome(None, exc))
    return out


def test_a_group_decides_each_add_as_one_by_one_adds_would(memdir: Path) -> None:
    store = MemoryStore(use_hashing_embedder(memdir))
    expected = _one_by_one(store)
    items = [_Add(store._writer, text, dict(fields)) for text, fields in ADDS]
    with store.repo.command():
        write_group(items)
    got = [_outcome(item.result, item.error) for item in items]
    as_renamed = [tuple(_renamed(v, {"user": "alice"})[0].replace("users/alice", "users/carol")
                        .replace("users/bob", "users/dave") if isinstance(v, str) else v for v in g) for g in got]
    assert as_renamed == expected
    assert [g[:2] for g in got] == [("add", True), ("refused", "duplicate"), ("add", True), ("supersede", True),
                                    ("add", True), ("refused", "sensitive"), ("refused", "low_confidence")], repr(got)
    active = {m.body for m in store.list(status="active") if m.user in ("alice", "bob")}
    assert active == {"Alice keeps bees on the roof", "Alice moved to Berlin", "Bob keeps bees on the roof"}


def test_concurrent_adds_on_a_servers_lock_are_written_in_groups_each_caller_its_own_result(memdir: Path) -> None:
    store = MemoryStore(use_hashing_embedder(memdir))
    lock = threading.Lock()
    store.group_adds(lock)
    assert store._group is not None
    store._group.window = 0.3  # long enough for every thread to join the first group
    results: dict[int, Any] = {}

    def add(n: int) -> None:
        with lock:
            results[n] = store.as_actor(None).add(f"Client {n} repairs old bicycle number {n}", user=f"user{n}", type="fact")

    threads = [threading.Thread(target=add, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == list(range(6))
    for n, result in results.items():
        assert result.written and result.memory.body == f"Client {n} repairs old bicycle number {n}"
        assert result.memory.owner == f"users/user{n}"
    assert store._group.adds == 6 and store._group.groups < 6
    assert len({m.id for m in store.list(status="active")}) == 6
