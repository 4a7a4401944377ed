"""Roles and visibility for shared memories (core/access.py), through the library and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.core.access import Access, can_read, write_refusal
from memctl.errors import Forbidden, NotFound
from tests.helpers import cli_json, tree_bytes

MEMBERS = """
[projects.shop.members]
olga = "owner"
adam = "admin"
eddy = "editor"
erin = "editor"
vera = "viewer"
"""


@pytest.fixture
def team(memdir: Path) -> Path:
    (memdir / "memctl.toml").write_text((memdir / "memctl.toml").read_text() + MEMBERS)
    return memdir


def as_(root: Path, actor: str | None) -> MemoryStore:
    return MemoryStore(root, actor=actor)


ACCESS = Access.of("eddy", {"shop": {"olga": "owner", "eddy": "editor", "vera": "viewer"}})


@pytest.mark.parametrize(("record", "readable"), [
    ({"scope": "user", "user": "eddy"}, True),
    ({"scope": "user", "user": "bob"}, False),
    ({"scope": "session", "user": "bob", "session": "s1"}, False),
    ({"scope": "project", "project": "shop"}, True),
    ({"scope": "project", "project": "shop", "visibility": "owner_only", "author": "olga"}, False),
    ({"scope": "project", "project": "shop", "visibility": "owner_only", "author": "eddy"}, True),
    ({"scope": "project", "project": "other"}, True),  # an open project: no members table
])
def test_read_rules(record: dict, readable: bool) -> None:
    assert can_read(ACCESS, record) is readable
    assert can_read(None, record)  # no actor: nothing restricted


@pytest.mark.parametrize(("actor", "action", "author", "allowed"), [
    ("vera", "create", None, False), ("eddy", "create", None, True), ("eddy", "change", "eddy", True),
    ("eddy", "change", "olga", False), ("olga", "change", "eddy", True), ("nobody", "create", None, False),
])
def test_write_rules(actor: str, action: str, author: str | None, allowed: bool) -> None:
    access = Access.of(actor, {"shop": {"olga": "owner", "eddy": "editor", "vera": "viewer"}})
    record = {"scope": "project", "project": "shop", "author": author}
    assert (write_refusal(access, action, record) is None) is allowed  # type: ignore[arg-type]


def test_author_is_recorded_on_every_write(team: Path) -> None:
    mine = as_(team, "eddy").add("The shop deploys on Fridays", type="fact", project="shop").memory
    assert mine.author == "eddy"
    personal = as_(team, None).add("Alice likes tea", type="preference", user="alice").memory
    assert personal.author == "alice"
    entries = as_(team, None).history(mine.id)
    assert entries[0].detail.get("actor") == "eddy"


def test_viewers_read_only(team: Path) -> None:
    as_(team, "olga").add("Shop p99 latency must stay under 300 ms", type="constraint", project="shop")
    vera = as_(team, "vera")
    assert vera.recall("latency", projects=["shop"]).hits
    with pytest.raises(Forbidden) as refused:
        vera.add("The shop uses Go", type="fact", project="shop")
    assert refused.value.code == "forbidden" and refused.value.exit_code == 3


def test_editors_change_only_their_own(team: Path) -> None:
    theirs = as_(team, "erin").add("The shop's CDN is Fastly", type="fact", project="shop").memory
    mine = as_(team, "eddy").add("The shop's queue is SQS", type="fact", project="shop").memory
    eddy = as_(team, "eddy")
    eddy.edit(mine.id, {"confidence": "0.9"})
    for act in (lambda: eddy.edit(theirs.id, {"confidence": "0.5"}), lambda: eddy.forget(theirs.id)):
        with pytest.raises(Forbidden):
            act()
    as_(team, "adam").forget(theirs.id)  # admins change everything


def test_a_change_to_another_authors_memory_becomes_an_add(team: Path) -> None:
    theirs = as_(team, "erin").add("The shop's database is PostgreSQL 15", type="fact", project="shop",
                                   key="shop.db").memory
    result = as_(team, "eddy").add("The shop's database is PostgreSQL 16", type="fact", project="shop", key="shop.db")
    assert result.decision.action == "add" and theirs.id in result.memory.conflicts_with
    assert as_(team, None).get(theirs.id).status == "active"


def test_owner_only_memories_are_hidden_from_other_members(team: Path) -> None:
    secret = as_(team, "olga").add("Olga plans to reorganise the shop team in May", type="decision",
                                   project="shop", visibility="owner_only").memory
    assert [h.id for h in as_(team, "olga").recall("reorganise team", projects=["shop"]).hits] == [secret.id]
    for other in ("eddy", "adam", "vera"):
        store = as_(team, other)
        assert secret.id not in [h.id for h in store.recall("reorganise the shop team", projects=["shop"]).hits]
        assert secret.id not in [m.id for m in store.list()]
        assert "reorganise" not in store.context("team plans", project="shop")["text"]
        with pytest.raises(NotFound):
            store.get(secret.id)
    everyone = as_(team, None)
    everyone.write_memory_md(projects=["shop"])
    assert "reorganise" not in str(everyone.repo.read_memory_md("projects/shop"))


def test_members_only_memories_and_outsiders(team: Path) -> None:
    inside = as_(team, "olga").add("The shop's launch date is June 3", type="event", project="shop").memory
    public = as_(team, "olga").add("The shop is open source", type="fact", project="shop", visibility="public").memory
    outsider = as_(team, "zoe")
    seen = {h.id for h in outsider.recall("shop launch open source", projects=["shop"]).hits}
    assert public.id in seen and inside.id not in seen


def test_an_actor_never_reaches_other_users_personal_memories(team: Path) -> None:
    bob = as_(team, None).add("Bob has a medical appointment on Friday", type="event", user="bob").memory
    alice = as_(team, "alice")
    assert bob.id not in [h.id for h in alice.recall("medical appointment").hits]  # no user, no project given
    assert bob.id not in [h.id for h in alice.recall("medical appointment", users=["bob"]).hits]
    assert bob.id not in [m.id for m in alice.list()]
    assert "medical" not in alice.context("appointment on Friday", user="bob")["text"]
    for act in (lambda: alice.add("Bob likes jazz", type="preference", user="bob"), lambda: alice.forget(bob.id),
                lambda: alice.log("bob", "s1", "hello"), lambda: alice.write_memory_md(users=["bob"])):
        with pytest.raises((Forbidden, NotFound)):
            act()


def test_roles_through_the_cli(team: Path) -> None:
    code, out = cli_json(team, "--actor", "olga", "add", "The shop freezes deploys in December", "-p", "shop")
    assert code == 0
    before = tree_bytes(team)
    code, out = cli_json(team, "--actor", "vera", "add", "The shop uses Kafka", "-p", "shop")
    assert code == 3 and out["errors"][0]["code"] == "forbidden"
    code, out = cli_json(team, "forget", out_id := cli_json(team, "list", "-q")[1]["data"]["memories"][0]["id"],
                         "--actor", "eddy")
    assert code == 3 and out["errors"][0]["code"] == "forbidden"
    assert tree_bytes(team) == before
    code, out = cli_json(team, "recall", "deploys", "-p", "shop", env={"MEMCTL_ACTOR": "vera"})
    assert code == 0 and [h["id"] for h in out["data"]["hits"]] == [out_id]
