"""memctl.integrations.langgraph.MemctlStore against the real LangGraph BaseStore: every operation
(LangGraph ships no store conformance suite), through its own get/put/search/delete/list_namespaces
and their async twins, on both backends."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timezone

import pytest

pytest.importorskip("langgraph.store.base")

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)

from memctl import clock
from memctl.api import MemoryStore
from memctl.errors import Refused
from memctl.integrations.langgraph import MemctlStore

ALICE = ("users", "alice")
SHOP = ("projects", "shop")
BOTH = pytest.mark.parametrize("backend", ["files", "postgres"], indirect=True)


@pytest.fixture
def graph_store(store: MemoryStore) -> MemctlStore:
    return MemctlStore(store)


@BOTH
def test_put_then_get_by_key_maps_to_typed_fields(graph_store: MemctlStore, store: MemoryStore) -> None:
    assert isinstance(graph_store, BaseStore)
    graph_store.put(ALICE, "seat", {"content": "Alice prefers window seats on flights", "type": "preference",
                                    "tags": ["travel"]})
    item = graph_store.get(ALICE, "seat")
    assert isinstance(item, Item) and item.namespace == ALICE and item.key == "seat"
    assert item.value == {"content": "Alice prefers window seats on flights", "type": "preference", "tags": ["travel"]}
    assert isinstance(item.created_at, datetime) and item.updated_at >= item.created_at
    memory = store.by_key("seat", user="alice")
    assert memory is not None and memory.type == "preference" and memory.tags == ["travel"] and memory.source == "ai"
    assert graph_store.get(ALICE, "nothing") is None and graph_store.get(("users", "bob"), "seat") is None


@BOTH
def test_any_other_value_is_stored_as_json_and_read_back_as_put(graph_store: MemctlStore) -> None:
    value = {"food": "pizza", "toppings": ["olives", "basil"], "rating": 5, "content": {"nested": True}}
    graph_store.put(SHOP, "lunch", value)
    item = graph_store.get(SHOP, "lunch")
    assert item is not None and item.value == value and item.namespace == SHOP


@BOTH
def test_a_put_to_an_existing_key_overwrites_it(graph_store: MemctlStore, store: MemoryStore) -> None:
    graph_store.put(ALICE, "city", {"content": "Alice lives in Lisbon"})
    first = store.by_key("city", user="alice")
    graph_store.put(ALICE, "city", {"content": "Alice lives in Osaka now", "type": "fact"})
    item = graph_store.get(ALICE, "city")
    assert item is not None and item.value["content"] == "Alice lives in Osaka now"
    now = store.by_key("city", user="alice")
    assert first is not None and now is not None and now.id == first.id  # edited in place, with its history
    assert [e.op for e in store.history(now.id)][-1] == "edit"


def test_a_put_the_gate_refuses_raises_and_stores_nothing(graph_store: MemctlStore, store: MemoryStore) -> None:
    with pytest.raises(Refused, match="sensitive"):
        graph_store.put(ALICE, "card", {"content": "My card number is 4111 1111 1111 1111"})
    assert graph_store.get(ALICE, "card") is None and store.list() == []
    graph_store.put(ALICE, "tea", {"content": "Alice drinks green tea every morning"})
    with pytest.raises(Refused, match="duplicate"):  # the same fact under another key: refused, not dropped
        graph_store.put(ALICE, "tea2", {"content": "Alice drinks green tea every morning"})
    assert graph_store.get(ALICE, "tea2") is None
    graph_store.put(ALICE, "tea", {"content": "Alice drinks green tea every morning"})  # the same key: fine


@BOTH
def test_delete_forgets_the_memory(graph_store: MemctlStore, store: MemoryStore) -> None:
    graph_store.put(ALICE, "pet", {"content": "Alice has a cat named Miso"})
    graph_store.delete(ALICE, "pet")
    assert graph_store.get(ALICE, "pet") is None
    assert [m.status for m in store.list(status="all")] == ["forgotten"]
    graph_store.delete(ALICE, "pet")  # deleting what is not there is no error, as in LangGraph's own stores


def test_memories_written_elsewhere_show_under_their_id(graph_store: MemctlStore, store: MemoryStore) -> None:
    memory = store.add_raw("Alice's passport expires in 2031", type="fact", user="alice")
    item = graph_store.get(ALICE, memory.id)
    assert item is not None and item.key == memory.id and item.value["content"] == memory.body
    assert graph_store.get(SHOP, memory.id) is None  # not in that namespace


@BOTH
def test_search_by_query_filter_and_namespace_prefix(graph_store: MemctlStore) -> None:
    clock.set_now(datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc))
    graph_store.put(ALICE, "seat", {"content": "Alice prefers window seats on flights", "type": "preference"})
    clock.set_now(datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc))
    graph_store.put(ALICE, "food", {"content": "Alice is allergic to peanuts", "type": "constraint"})
    graph_store.put(SHOP, "lang", {"content": "The shop's checkout is written in Go", "type": "context"})
    graph_store.put(("users", "bob"), "rating", {"dish": "ramen", "stars": 4})

    hits = graph_store.search(("users", "alice"), query="window seat on a flight")
    assert hits[0].key == "seat" and hits[0].score is not None and all(h.namespace == ALICE for h in hits)
    assert {h.key for h in graph_store.search(("users",))} == {"seat", "food", "rating"}
    assert {h.key for h in graph_store.search(())} == {"seat", "food", "lang", "rating"}
    assert [h.key for h in graph_store.search(("projects",))] == ["lang"]
    assert graph_store.search(("teams",)) == [] and graph_store.search(("users", "alice", "deeper")) == []

    assert [h.key for h in graph_store.search(ALICE, filter={"type": "constraint"})] == ["food"]
    assert [h.key for h in graph_store.search(("users",), filter={"stars": {"$gte": 4}})] == ["rating"]
    assert graph_store.search(("users",), filter={"stars": {"$gt": 4}}) == []
    assert [h.key for h in graph_store.search(ALICE, filter={"type": {"$ne": "constraint"}})] == ["seat"]
    assert [h.key for h in graph_store.search(("users",), query="window seats on flights",
                                              filter={"type": "preference"})] == ["seat"]
    with pytest.raises(ValueError, match="unknown filter operator"):
        graph_store.search(ALICE, filter={"type": {"$regex": "x"}})

    newest = graph_store.search(ALICE, limit=1)
    assert [h.key for h in newest] == ["food"]  # without a query: newest first
    assert [h.key for h in graph_store.search(ALICE, limit=1, offset=1)] == ["seat"]


def test_list_namespaces_with_prefix_suffix_depth_and_pages(graph_store: MemctlStore) -> None:
    for namespace in (ALICE, ("users", "bob"), SHOP):
        graph_store.put(namespace, "k", {"content": f"A note kept for {namespace[1]} about the weekly plan"})
    assert graph_store.list_namespaces() == [SHOP, ("users", "alice"), ("users", "bob")]
    assert graph_store.list_namespaces(prefix=("users",)) == [ALICE, ("users", "bob")]
    assert graph_store.list_namespaces(suffix=("bob",)) == [("users", "bob")]
    assert graph_store.list_namespaces(max_depth=1) == [("projects",), ("users",)]
    assert graph_store.list_namespaces(limit=1, offset=1) == [ALICE]
    ops = [ListNamespacesOp(match_conditions=(MatchCondition(match_type="prefix", path=("*", "shop")),))]
    assert graph_store.batch(ops) == [[SHOP]]


def test_namespaces_outside_users_and_projects_are_refused(graph_store: MemctlStore) -> None:
    for namespace in (("memories", "alice"), ("users",), ("users", "alice", "notes")):
        with pytest.raises(InvalidNamespaceError, match="memctl's are"):
            graph_store.put(namespace, "k", {"content": "Alice likes tea"})
    with pytest.raises(NotImplementedError):
        graph_store.put(ALICE, "k", {"content": "Alice likes tea"}, ttl=5)


def test_one_batch_of_every_operation_and_the_async_twins(graph_store: MemctlStore) -> None:
    results = graph_store.batch([
        PutOp(ALICE, "seat", {"content": "Alice prefers window seats on flights"}),
        GetOp(ALICE, "seat"),
        SearchOp(("users",), query="window seats"),
        ListNamespacesOp(),
        PutOp(ALICE, "seat", None),
        GetOp(ALICE, "seat"),
    ])
    assert results[0] is None and results[1] is not None and results[1].key == "seat"
    assert [h.key for h in results[2]] == ["seat"] and results[3] == [ALICE] and results[4] is None
    assert results[5] is None

    async def run() -> None:
        await graph_store.aput(SHOP, "ci", {"content": "The shop's CI runs on every push to main"})
        item = await graph_store.aget(SHOP, "ci")
        assert item is not None and item.value["content"].startswith("The shop's CI")
        assert [h.key for h in await graph_store.asearch(("projects", "shop"), query="when does CI run")] == ["ci"]
        assert await graph_store.alist_namespaces() == [SHOP]
        await graph_store.adelete(SHOP, "ci")
        assert await graph_store.aget(SHOP, "ci") is None

    asyncio.run(run())


def test_a_json_value_is_canonical_json_in_the_file(graph_store: MemctlStore, store: MemoryStore) -> None:
    graph_store.put(ALICE, "prefs", {"b": 1, "a": "x"})
    memory = store.by_key("prefs", user="alice")
    assert memory is not None and json.loads(memory.body) == {"a": "x", "b": 1} and memory.body.index('"a"') < 5


def test_a_stored_body_nested_too_deep_is_read_as_text() -> None:
    from memctl.integrations.langgraph import _json_object

    assert _json_object('{"a": ' + "[" * 20_000 + "]" * 20_000 + "}") is None  # a RecursionError before
    assert _json_object('{"a": 1}') == {"a": 1}
