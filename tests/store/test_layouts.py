"""The same behaviour in both folder layouts (memctl's users/ and projects/, Claude Code's flat folder):
the write decision, edits, archive and restore, compaction undo, dedupe, doctor, concurrent writers,
reads that never write, and export / import with no loss."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from memctl import clock
from memctl.api import MemoryStore
from memctl.errors import Refused
from memctl.store.directory import init_directory
from tests.helpers import tree_bytes, use_hashing_embedder
from tests.store.test_filerepo import ADDER, CONCURRENT_EDIT


@pytest.fixture(params=["memctl", "claude"])
def root(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    folder = tmp_path / request.param
    init_directory(folder, "claude" if request.param == "claude" else None)
    return folder


@pytest.fixture
def store(root: Path) -> MemoryStore:
    return MemoryStore(root)


def test_each_layout_is_what_it_says(store: MemoryStore, root: Path) -> None:
    memory = store.add("Alice prefers window seats on long flights", type=store.config.types[0], user="alice").memory
    assert memory is not None
    expected = "users/alice/" if root.name == "memctl" else ""
    assert str(memory.path).startswith(expected) and str(memory.path).count("/") == (2 if expected else 0)


def test_add_list_get_recall(store: MemoryStore) -> None:
    kind = store.config.types[0]
    added = store.add("Alice keeps three beehives on the roof of her building", type=kind, user="alice").memory
    assert added is not None and [m.id for m in store.list(user="alice")] == [added.id]
    assert store.get(added.id[:6]).body == added.body
    assert [h.id for h in store.recall("beehives on the roof", users=["alice"], k=1).hits] == [added.id]


def test_the_write_decision_refuses_repeats_and_supersedes_by_key(store: MemoryStore) -> None:
    kind = store.config.types[0]
    first = store.add("Alice lives in Paris", type=kind, user="alice", key="home.city").memory
    with pytest.raises(Refused):
        store.add("Alice lives in Paris", type=kind, user="alice", key="home.city")
    second = store.add("Alice lives in Berlin", type=kind, user="alice", key="home.city")
    assert second.decision.action == "supersede" and first is not None
    old = store.get(first.id)
    assert old.status == "superseded" and old.superseded_by == second.memory.id  # type: ignore[union-attr]
    assert [m.body for m in store.list(user="alice")] == ["Alice lives in Berlin"]


def test_edit_forget_restore_and_history(store: MemoryStore, root: Path) -> None:
    memory = store.add("Bob plays the cello on Sundays", type=store.config.types[0], user="bob").memory
    assert memory is not None
    original = (root / str(memory.path)).read_bytes()
    edited = store.edit(memory.id, {"tags": "[music]"}, body="Bob plays the cello on Sundays and Wednesdays")
    assert edited.tags == ["music"] and store.get(memory.id).body.endswith("Wednesdays")
    forgotten = store.forget(memory.id, reason="test")
    assert forgotten.status == "forgotten" and str(forgotten.path).startswith("archive/")
    assert store.restore(memory.id).status == "active"
    assert [e.op for e in store.history(memory.id)] == ["add", "edit", "forget", "restore"]
    assert (root / str(store.get(memory.id).path)).read_bytes() != original  # the edit stays


def test_compaction_undo_puts_every_file_back_byte_for_byte(store: MemoryStore, root: Path) -> None:
    kind = store.config.types[0]
    for n in range(4):
        store.add_raw(f"Carol waters the roof garden on day {n}", type=kind, user="carol", ttl="1d" if n < 2 else None)
    before = tree_bytes(root)
    clock.set_now(clock.now() + timedelta(days=2))  # two have expired (the four are distinct facts: never merged)
    result = store.compact(user="carol", dry_run=False)
    assert result["plan"]["actions"]
    store.undo_compaction()
    assert {k: v for k, v in tree_bytes(root).items() if k != "MEMORY.md"} == \
        {k: v for k, v in before.items() if k != "MEMORY.md"}


def test_dedupe_merges_repeats_already_stored(store: MemoryStore) -> None:
    kind = store.config.types[0]
    a = store.add_raw("Dana drinks green tea every morning", type=kind, user="dana")
    b = store.add_raw("Dana drinks green tea every morning", type=kind, user="dana")
    report = store.dedupe(user="dana")
    assert len(report.merged) == 1 and {a.id, b.id} >= set(report.merged)
    assert len(store.list(user="dana")) == 1


def test_reading_never_rewrites_and_a_broken_file_is_reported_and_skipped(store: MemoryStore, root: Path) -> None:
    store.add("Erin bikes to work", type=store.config.types[0], user="erin")
    broken = root / ("users/erin/broken.md" if root.name == "memctl" else "broken.md")
    broken.write_text("---\nname: [unclosed\n---\nbody\n")
    before = tree_bytes(root)
    fresh = MemoryStore(root)
    assert len(fresh.list()) == 1 and fresh.recall("bikes", k=1).hits
    assert any("broken.md" in w for w in fresh.drain_warnings())
    assert [p["kind"] for p in fresh.doctor()["problems"]] == ["broken"]
    assert tree_bytes(root) == before


def test_concurrent_writers_lose_nothing_and_concurrent_edits_all_land(root: Path) -> None:
    use_hashing_embedder(root)
    env = dict(os.environ)
    adder = ADDER.replace('type="fact"', "type=store.config.default_type")  # the layout's own types
    procs = [subprocess.Popen([sys.executable, "-c", adder, str(root), name, "5"], env=env) for name in "ab"]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    memories = MemoryStore(root).list()
    assert len(memories) == 10 and len({m.id for m in memories}) == 10
    target = memories[0].id
    procs = [subprocess.Popen([sys.executable, "-c", CONCURRENT_EDIT, str(root), target, f"k{p}_"], env=env)
             for p in "ab"]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    extra = MemoryStore(root).get(target).extra
    assert len([k for k in extra if k.startswith(("ka_", "kb_"))]) == 20


def test_export_then_import_into_the_same_layout_loses_nothing(store: MemoryStore, root: Path, tmp_path: Path) -> None:
    kind = store.config.types[0]
    store.add("Frank lives in Rome", type=kind, user="frank", key="home.city")
    store.add("Frank lives in Milan", type=kind, user="frank", key="home.city")
    gone = store.add("Frank collects stamps from Chile", type=kind, user="frank", tags=["hobby"]).memory
    store.forget(gone.id)  # type: ignore[union-attr]
    lines = store.export_records()
    target = tmp_path / "target"
    init_directory(target, "claude" if root.name == "claude" else None)
    report = MemoryStore(target).import_from("jsonl", text="\n".join(lines))
    assert report.summary["taken"] == len(lines) == 3

    def view(folder: Path) -> dict:
        return {m.id: m.model_dump(exclude={"path"}) for m in MemoryStore(folder).list(status="all")}

    assert view(target) == view(root)
