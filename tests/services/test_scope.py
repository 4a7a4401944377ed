"""Whose memories: one definition (store/filters.py) for every command that reads or writes, on both
backends. The table below is the README's "Whose memories" section; each row is checked through
list, recall, stats, export, query, dedupe and compact, so no command can drift from it."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memctl import clock
from memctl.api import MemoryStore

T0 = datetime(2026, 5, 1, tzinfo=timezone.utc)

MEMBERS = '\n[projects.lab.members]\nalice = "viewer"\n\n[projects.ops.members]\ncarol = "editor"\nbob = "owner"\n'

# label -> the fields of a memory; every body says "zebra" (so one keyword recall finds them all)
# and every one is a typed task (so one query lists them all).
MEMORIES = {
    "a1": {"user": "alice"},
    "a2": {"user": "alice", "session": "s1"},
    "a3": {"user": "alice", "session": "s2"},
    "b1": {"user": "bob"},
    "b2": {"user": "bob", "session": "s1"},
    "shop1": {"project": "shop", "user": "alice"},  # about alice: shop is hers
    "shop2": {"project": "shop"},
    "shop3": {"project": "shop", "session": "s1"},  # a project's session memory
    "lab1": {"project": "lab"},  # alice is a member of lab (memctl.toml)
    "ops1": {"project": "ops", "user": "bob"},
    "ops2": {"project": "ops"},
    "old1": {"project": "old", "user": "alice", "forgotten": True},  # still hers
    "old2": {"project": "old"},
    "gone": {"user": "alice", "forgotten": True},
}
ACTIVE = {label for label, spec in MEMORIES.items() if not spec.get("forgotten")}
ALICE = {"a1", "a2", "a3", "shop1", "shop2", "shop3", "lab1", "old2"}
BOB = {"b1", "b2", "ops1", "ops2"}
SHOP = {"shop1", "shop2", "shop3"}

# (users, projects, session) -> the active memories in scope
TABLE = [
    (((), (), None), ACTIVE),                       # no scope: everything
    ((("alice",), (), None), ALICE),                # hers, her sessions, her projects (by memory and by membership)
    ((("bob",), (), None), BOB),
    ((("carol",), (), None), {"ops1", "ops2"}),     # a member with no memories of her own reaches her project
    ((("dave",), (), None), set()),
    (((), ("shop",), None), SHOP),                  # a project: its folder, its session memories included
    (((), ("lab",), None), {"lab1"}),
    (((), (), "s1"), {"a2", "b2", "shop3"}),        # a session alone: whoever's
    ((("alice",), (), "s1"), ALICE),                # with a user the session adds nothing (her sessions are hers)
    ((("bob",), (), "s2"), BOB),                    # and never reaches another person's session of that name
    ((("bob",), ("shop",), None), BOB | SHOP),      # several: the union
    ((("alice", "bob"), (), None), ALICE | BOB),
]
IDS = [f"{'+'.join(u) or '-'}/{'+'.join(p) or '-'}/{s or '-'}" for (u, p, s), _ in TABLE]


@pytest.fixture
def world(memdir: Path) -> tuple[MemoryStore, dict[str, str]]:
    """The memories of MEMORIES, and label -> id."""
    config = memdir / "memctl.toml"
    config.write_text(config.read_text() + MEMBERS)
    store = MemoryStore(memdir)
    ids = {}
    for n, (label, spec) in enumerate(MEMORIES.items()):
        clock.set_now(T0 + timedelta(minutes=n))  # one creation time each: "newest first" is theirs, not the ids'
        fields = {k: v for k, v in spec.items() if k != "forgotten"}
        memory = store.add_raw(f"Task {label}: feed the zebra number {n}", type="context", kind="task",
                               fields={"title": f"zebra {label}", "due": "2031-01-01"}, **fields)
        ids[label] = memory.id
        if spec.get("forgotten"):
            store.forget(memory.id)
    clock.set_now(T0 + timedelta(days=1))
    return store, ids


def labels(ids: dict[str, str], found: object) -> set[str]:
    by_id = {v: k for k, v in ids.items()}
    return {by_id[i] for i in found}  # type: ignore[attr-defined]


@pytest.mark.parametrize(("scope", "expected"), TABLE, ids=IDS)
def test_every_command_reads_the_same_memories_for_a_scope(world, scope, expected) -> None:
    store, ids = world
    users, projects, session = scope
    one_user, one_project = (users[0] if len(users) == 1 else None), (projects[0] if projects else None)
    recalled = store.recall("zebra", users=list(users), projects=list(projects), session=session, k=100,
                            mode="keyword", min_relevance=0.0, record_usage=False)
    assert labels(ids, [h.id for h in recalled.hits]) == expected
    if len(users) > 1 or (session and not users):  # the other commands take one user and no session
        return
    assert labels(ids, [m.id for m in store.list(user=one_user, project=one_project, session=session)]) == expected
    if session:
        return
    queried = store.query("list", "task", user=one_user, project=one_project).memories
    assert labels(ids, [row["id"] for row in queried]) == expected
    assert store.stats(user=one_user, project=one_project)["active"] == len(expected)
    exported = [json.loads(line)["id"] for line in store.export_records(user=one_user, project=one_project)]
    forgotten = {"gone", "old1"} if not (users or projects) or "alice" in users else set()
    assert labels(ids, exported) == expected | forgotten
    assert store.dedupe(user=one_user, project=one_project, dry_run=True).considered == len(expected)


def test_list_keeps_the_scope_with_every_status(world) -> None:
    store, ids = world
    assert labels(ids, [m.id for m in store.list(user="alice", status="forgotten")]) == {"gone", "old1"}
    assert labels(ids, [m.id for m in store.list(project="shop", status="forgotten")]) == set()
    assert labels(ids, [m.id for m in store.list(user="alice", status="all")]) == ALICE | {"gone", "old1"}


def test_compaction_plans_over_the_scope_only(world) -> None:
    """An expired memory of each owner: compacting alice's archives hers and her projects', never bob's."""
    store, _ = world
    expired = {label: store.add_raw(f"Expired zebra note of {label}", expires="2020-01-01T00:00:00Z",
                                    **MEMORIES[label]).id for label in ("a1", "shop2", "b1", "ops2")}
    plan = store.compact(user="alice", dry_run=True)["plan"]
    planned = {i for action in plan["actions"] for i in action["ids"]}
    assert planned & set(expired.values()) == {expired["a1"], expired["shop2"]}


def test_list_orders_and_pages_inside_the_backend(world) -> None:
    store, ids = world
    everything = store.list(sort="id", status="all")
    assert [m.id for m in everything] == sorted(ids.values())
    page = store.list(sort="id", status="all", offset=3, limit=4)
    assert [m.id for m in page] == sorted(ids.values())[3:7]
    newest = store.list(sort="created", newest_first=True, limit=2, user="bob")
    assert [m.id for m in newest] == [ids["ops2"], ids["ops1"]]
    by_confidence = store.list(sort="confidence", project="shop")
    assert [m.id for m in by_confidence] == sorted(ids[label] for label in SHOP)  # equal confidence: by id
