"""Dedupe on disk: merges, conflicts (listed, linked, resolved), dry runs, restore, and the sample directory."""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from tests.helpers import FAKE_LLM, cli, cli_json, tree_bytes

FAKE = FAKE_LLM
T1 = datetime(2026, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2026, 6, 1, tzinfo=timezone.utc)

# sample_memories/README.md: repeats the rules can prove (merged with no model), and paraphrases
PROVABLE_REPEATS = [("909fb443", "5e1c0a7b"), ("7a1157f7", "2b7d9e31"), ("0cb59915", "6c0f2d94"),
                    ("cd6e1a1d", "9a4e7c15"), ("faf6643f", "a51e384d"),
                    ("b626853a", "b32d2af2")]  # the newer says nothing the older does not: no model needed
PARAPHRASES = [("cdb5877f", "44c20b69"), ("a1bff12e", "f28a88b6"), ("d697f1a3", "69d435b7"),
               ("8f695771", "63a8fc79"), ("0b3a879f", "5db01356")]
PLANTED_REPEATS = PROVABLE_REPEATS + PARAPHRASES
PLANTED_CONFLICTS = [("a2e969b4", "e3e2c360"), ("2c2deba6", "eb3385ae"), ("a62d0e43", "1d486409"),
                     ("becbd10b", "4eef6365")]


def raw(store: MemoryStore, text: str, when: datetime = T1, **fields) -> str:
    fields.setdefault("user", "alice")
    fields.setdefault("type", "fact")
    return store.add_raw(text, created=when, updated=when, **fields).id


def journal_ops(store: MemoryStore) -> list[tuple[str, str]]:
    return [(e.op, e.id) for e in store.repo.journal.read() if e.op != "intent"]


def test_repeats_merge_into_one_survivor(store: MemoryStore) -> None:
    a = raw(store, "Alice is vegetarian.", tags=["food"], confidence=0.8)
    b = raw(store, "alice is  VEGETARIAN", when=T2, tags=["diet"], source="chat", confidence=0.95)
    raw(store, "Alice plays the cello", type="skill")
    before = len(journal_ops(store))
    report = store.dedupe()
    assert [(m.survivor, m.merged) for m in report.plan.merges] in ([(a, [b])], [(b, [a])])
    group = report.plan.merges[0]
    survivor, other = store.get(group.survivor), store.get(group.merged[0])
    assert store.is_active(survivor) and sorted(survivor.tags) == ["diet", "food"]
    assert survivor.confidence == 0.95 and survivor.merged_from == [other.id]
    assert {survivor.source, *survivor.sources} == {"user", "chat"}
    assert other.status == "merged" and other.merged_into == survivor.id and other.path.startswith("archive/")
    new_ops = journal_ops(store)[before:]
    assert sorted(new_ops) == sorted([("dedupe:merge", survivor.id), ("dedupe:merged", other.id)])
    assert report.merged == [other.id]


def test_dry_run_changes_nothing(store: MemoryStore, memdir: Path) -> None:
    raw(store, "Alice is vegetarian.")
    raw(store, "Alice is vegetarian", when=T2)
    raw(store, "Alice lives in Lisbon", key="home.city")
    raw(store, "Alice lives in Berlin", when=T2, key="home.city")
    before = tree_bytes(memdir)
    report = store.dedupe(dry_run=True, resolve="newest")
    assert len(report.plan.merges) == 1 and report.plan.conflicts[0].resolved
    assert not (report.merged or report.superseded or report.linked)
    assert tree_bytes(memdir) == before


def test_conflicts_are_listed_and_linked_never_merged(store: MemoryStore) -> None:
    old = raw(store, "Alice lives in Lisbon", key="home.city")
    new = raw(store, "Alice lives in Berlin", when=T2, key="home.city")
    report = store.dedupe()
    assert report.plan.merges == [] and [(c.older, c.newer, c.resolved) for c in report.plan.conflicts] == [
        (old, new, False)]
    assert report.linked == [new] and store.is_active(store.get(old)) and store.is_active(store.get(new))
    assert [(c.older, c.newer) for c in store.conflicts()] == [(old, new)]
    assert store.dedupe().linked == []  # already linked: nothing touched again


def test_resolve_newest_supersedes_the_older_and_restore_brings_it_back(store: MemoryStore) -> None:
    old = raw(store, "Alice lives in Lisbon", key="home.city")
    new = raw(store, "Alice lives in Berlin", when=T2, key="home.city")
    report = store.dedupe(resolve="newest")
    assert report.superseded == [old]
    archived = store.get(old)
    assert archived.status == "superseded" and archived.superseded_by == new
    assert store.get(new).supersedes == old and store.conflicts() == []
    restored = store.restore(old)
    assert store.is_active(restored) and restored.superseded_by is None


def test_open_conflicts_newest_first_and_only_between_active(store: MemoryStore) -> None:
    a = raw(store, "Bob likes jazz", user="bob")
    b = raw(store, "Bob dislikes jazz", when=T2, user="bob", conflicts_with=[a])
    c = raw(store, "Alice drinks coffee", conflicts_with=["deadbeef"])
    d = raw(store, "Alice drinks no coffee", when=datetime(2026, 9, 1, tzinfo=timezone.utc), conflicts_with=[c])
    assert [(x.older, x.newer) for x in store.conflicts()] == [(c, d), (a, b)]
    assert [(x.older, x.newer) for x in store.conflicts(user="bob")] == [(a, b)]
    store.forget(c)
    assert [(x.older, x.newer) for x in store.conflicts()] == [(a, b)]


def test_llm_decides_ambiguous_pairs_and_conflicts(store: MemoryStore) -> None:
    a = raw(store, "Alice prefers window seats on flights", type="preference", key="travel.seat")
    b = raw(store, "Alice likes to sit by the window on planes", when=T2, type="preference", key="travel.seat")
    c = raw(store, "Alice lives in Lisbon", key="home.city")
    d = raw(store, "Alice lives in Berlin", when=T2, key="home.city")
    report = store.dedupe(llm=f"{FAKE} decide ADD window=UPDATE Berlin=DELETE")
    assert [(m.survivor, m.merged) for m in report.plan.merges] == [(b, [a])]
    assert report.superseded == [c]
    assert store.get(a).merged_into == b and store.get(c).superseded_by == d


def test_llm_failure_is_a_note_and_the_rules_decide(store: MemoryStore) -> None:
    raw(store, "Alice lives in Lisbon", key="home.city")
    raw(store, "Alice lives in Berlin", when=T2, key="home.city")
    report = store.dedupe(llm=f"{sys.executable} -c 'import sys; sys.exit(4)'", dry_run=True)
    assert len(report.plan.conflicts) == 1 and not report.plan.conflicts[0].resolved
    assert report.notes and "llm failed" in report.notes[0]


def test_scope_filters(store: MemoryStore) -> None:
    raw(store, "Alice is vegetarian")
    raw(store, "Alice is vegetarian.", when=T2)
    raw(store, "Bob is vegetarian", user="bob")
    raw(store, "Bob is vegetarian.", user="bob", when=T2)
    assert store.dedupe(user="bob", dry_run=True).considered == 2
    assert len(store.dedupe(user="bob").merged) == 1
    assert len(store.list(user="alice")) == 2


# -- the sample directory -----------------------------------------------------------------------
def _pairs(report) -> dict[frozenset, str]:
    out = {}
    for m in report.plan.merges:
        for i in m.merged:
            out[frozenset((m.survivor, i))] = "merged"
    for c in report.plan.conflicts:
        out[frozenset((c.older, c.newer))] = "conflict"
    for p in report.similar:
        out.setdefault(frozenset((p.a, p.b)), "similar")
    return out


def _full(store: MemoryStore, prefix: str) -> str:
    return store.get(prefix).id


def test_samples_every_planted_repeat_is_found_and_no_conflict_is_merged(samples: Path) -> None:
    # The fake embedder's cosines are lower than the real model's, hence the lower threshold.
    store = MemoryStore(samples)
    before = tree_bytes(samples)
    report = store.dedupe(threshold=0.5, dry_run=True)
    assert tree_bytes(samples) == before
    found = _pairs(report)
    for a, b in PLANTED_REPEATS:
        assert frozenset((a, b)) in found, (a, b)
    merged_ids = {i for m in report.plan.merges for i in (m.survivor, *m.merged)}
    for a, b in PLANTED_CONFLICTS:
        assert found.get(frozenset((a, b))) == "conflict"
        assert not {a, b} <= merged_ids


def test_samples_provable_repeats_merge_without_a_model(samples: Path) -> None:
    store = MemoryStore(samples)
    report = store.dedupe(threshold=0.5)
    groups = [{m.survivor, *m.merged} for m in report.plan.merges]
    assert sorted(map(sorted, groups)) == sorted(map(sorted, PROVABLE_REPEATS))
    for a, b in PROVABLE_REPEATS:
        kept = [i for i in (a, b) if store.is_active(store.get(i))]
        assert len(kept) == 1 and store.get(({a, b} - set(kept)).pop()).merged_into == kept[0]
    for a, b in PLANTED_CONFLICTS:
        assert store.is_active(store.get(a)) and store.is_active(store.get(b))
    # the survivor is the most complete text
    assert store.is_active(store.get("7a1157f7")) and store.is_active(store.get("6c0f2d94"))


def test_samples_with_an_llm_merge_every_repeat_and_supersede_every_conflict(samples: Path) -> None:
    store = MemoryStore(samples)
    active_before = {m.id for m in store.active()}
    llm = f"{FAKE} decide ADD Berlin=DELETE 杭州=DELETE VS=DELETE EU=DELETE =UPDATE"
    report = store.dedupe(threshold=0.5, llm=llm)
    groups = [{m.survivor, *m.merged} for m in report.plan.merges]
    for a, b in PLANTED_REPEATS:
        assert any({a, b} <= g for g in groups), (a, b)
    for older, newer in PLANTED_CONFLICTS:
        assert not any({older, newer} <= g for g in groups)
        assert store.get(older).status == "superseded" and store.get(older).superseded_by == newer
        assert store.is_active(store.get(newer))
    gone = active_before - {m.id for m in store.active()}
    assert gone == set(report.merged) | set(report.superseded)
    for memory_id in sorted(gone):
        assert store.get(memory_id).path.startswith("archive/")
        store.restore(memory_id)
    assert {m.id for m in store.active()} == active_before


def test_cli_dedupe_and_conflicts(memdir: Path) -> None:
    store = MemoryStore(memdir)
    raw(store, "Alice is vegetarian")
    raw(store, "Alice is vegetarian!", when=T2)
    old = raw(store, "Alice lives in Lisbon", key="home.city")
    new = raw(store, "Alice lives in Berlin", when=T2, key="home.city")
    code, out = cli_json(memdir, "dedupe", "--dry-run")
    assert code == 0 and out["data"]["dry_run"] is True and len(out["data"]["plan"]["merges"]) == 1
    assert set(out["data"]) >= {"plan", "similar", "merged", "superseded", "linked", "threshold", "considered"}
    human = cli(memdir, "dedupe")
    assert human.exit_code == 0 and "merged 1, superseded 0, linked 1" in human.stdout
    code, out = cli_json(memdir, "conflicts", "--user", "alice")
    assert code == 0 and [(c["older"], c["newer"]) for c in out["data"]["conflicts"]] == [(old, new)]
    code, out = cli_json(memdir, "dedupe", "--resolve", "newest")
    assert code == 0 and out["data"]["superseded"] == [old]
    assert cli_json(memdir, "conflicts")[1]["data"]["conflicts"] == []
    assert cli_json(memdir, "restore", old)[0] == 0


@pytest.mark.parametrize("args", [["--resolve", "oldest"], ["--threshold", "1.5"]])
def test_cli_dedupe_bad_arguments_exit_2(memdir: Path, args: list[str]) -> None:
    code, out = cli_json(memdir, "dedupe", *args)
    assert code == 2 and out["ok"] is False
