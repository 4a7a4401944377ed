"""The compaction plan on a 1,000-memory synthetic set and on small tables, plus extractive summaries."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from memctl.config import LifecycleSettings
from memctl.core.fileformat import parse_memory
from memctl.core.models import Memory
from memctl.policy.compact import CompactionPlan, complete_link_clusters, plan_compaction
from memctl.policy.importance import Usage, importance_scores, neighbours
from memctl.policy.summarise import extractive_summary, split_sentences
from tests.synthetic import NOW, make_memories, synthetic_settings, write_directory

SETTINGS = LifecycleSettings()


def plan_for(seed: int = 0, n: int = 1000, **kw: Any) -> tuple[CompactionPlan, Any, list[Memory]]:
    memories, usage, similarity, expected = make_memories(n=n, seed=seed)
    plan = plan_compaction(memories, usage, now=NOW, settings=synthetic_settings(), similarity=similarity, **kw)
    return plan, expected, memories


@pytest.fixture(scope="module")
def synthetic() -> tuple[CompactionPlan, Any, list[Memory]]:
    return plan_for()


def test_synthetic_set_is_full_size(synthetic: Any) -> None:
    _, _expected, memories = synthetic
    assert len(memories) == 1000 and len({m.id for m in memories}) == 1000


@pytest.mark.parametrize("kind", ["expire", "archive_low_importance"])
def test_single_memory_rules_hit_exactly_the_planted_ids(synthetic: Any, kind: str) -> None:
    plan, expected, _ = synthetic
    assert plan.ids_for(kind) == getattr(expected, kind)
    assert all(len(a.ids) == 1 for a in plan.actions if a.kind == kind)


def test_supersede_keeps_the_newest_version(synthetic: Any) -> None:
    plan, expected, _ = synthetic
    got = {a.winner: set(a.ids) for a in plan.actions if a.kind == "supersede_key"}
    assert got == expected.supersede_key


def test_promotions_and_their_target_scope(synthetic: Any) -> None:
    plan, expected, _ = synthetic
    got = {a.ids[0]: a.target_scope for a in plan.actions if a.kind == "promote"}
    assert got == expected.promote


def test_consolidation_clusters(synthetic: Any) -> None:
    plan, expected, _ = synthetic
    clusters = [set(a.ids) for a in plan.actions if a.kind == "consolidate"]
    assert sorted(map(sorted, clusters)) == sorted(map(sorted, expected.consolidate))
    assert all(a.summary for a in plan.actions if a.kind == "consolidate")


def test_archived_ids_are_exactly_the_expected(synthetic: Any) -> None:
    plan, expected, _ = synthetic
    assert plan.archived_ids() == expected.archived()


def test_everything_else_is_untouched(synthetic: Any) -> None:
    plan, expected, _memories = synthetic
    named = [i for a in plan.actions for i in a.ids]
    assert len(named) == len(set(named)), "a memory appears in two actions"
    winners = {a.winner for a in plan.actions if a.winner}
    assert not winners & set(named)
    assert not (expected.inactive | expected.pinned | expected.protected) & plan.archived_ids()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_other_seeds_match_their_expectations(seed: int) -> None:
    plan, expected, _ = plan_for(seed=seed, n=400)
    assert plan.archived_ids() == expected.archived()
    assert {a.ids[0]: a.target_scope for a in plan.actions if a.kind == "promote"} == expected.promote


@pytest.mark.parametrize("seed", [0, 5])
def test_protected_and_pinned_are_never_merged_or_archived_for_importance(seed: int) -> None:
    plan, _, memories = plan_for(seed=seed)
    by_id = {m.id: m for m in memories}
    for action in plan.actions:
        if action.kind in ("consolidate", "archive_low_importance"):
            for i in action.ids:
                assert by_id[i].type not in SETTINGS.protected_types
                assert by_id[i].importance != 1.0


def test_plan_is_deterministic_whatever_the_input_order() -> None:
    memories, usage, similarity, _ = make_memories(n=600, seed=9)
    first = plan_compaction(memories, usage, now=NOW, settings=synthetic_settings(), similarity=similarity)
    shuffled = list(memories)
    random.Random(4).shuffle(shuffled)
    flipped = {(b, a): v for (a, b), v in reversed(list(similarity.items()))}
    again = plan_compaction(shuffled, dict(reversed(list(usage.items()))), now=NOW,
                            settings=synthetic_settings(), similarity=flipped)
    assert again.model_dump(mode="json") == first.model_dump(mode="json")
    assert json.dumps(first.model_dump(mode="json"))  # serialisable for --json


def test_caller_summariser_replaces_the_extractive_one() -> None:
    calls: list[list[str]] = []

    def fake(members: list[Memory]) -> str:
        calls.append([m.id for m in members])
        return f"summary of {len(members)}"

    plan, expected, _ = plan_for(summarise=fake)
    summaries = sorted(a.summary for a in plan.actions if a.kind == "consolidate")
    assert summaries == sorted(f"summary of {len(c)}" for c in expected.consolidate)
    assert all(ids == sorted(ids) for ids in calls)


# Small tables -------------------------------------------------------------------------------

T0 = datetime(2026, 6, 1, tzinfo=timezone.utc)


_NOTES = ("note about the garden", "garden note", "short note about her garden", "note on the garden")


def m(mid: str, **kw: Any) -> Memory:
    age = kw.pop("age", 1)
    created = kw.pop("created", T0 - timedelta(days=age))
    kw.setdefault("type", "fact")
    if kw.get("scope") != "project":
        kw.setdefault("user", "alice")
    return Memory(id=mid, body=kw.pop("body", f"Alice keeps a {_NOTES[sum(map(ord, mid)) % len(_NOTES)]}."),
                  created=created,
                  updated=kw.pop("updated", created), **kw)


def plan(memories: list[Memory], usage: dict[str, Usage] | None = None,
         similarity: dict[tuple[str, str], float] | None = None, **settings: Any) -> CompactionPlan:
    return plan_compaction(memories, usage or {}, now=T0, settings=LifecycleSettings(**settings),
                           similarity=similarity or {})


def kinds(p: CompactionPlan) -> dict[str, list[list[str]]]:
    out: dict[str, list[list[str]]] = {}
    for action in p.actions:
        out.setdefault(action.kind, []).append(action.ids)
    return out


@pytest.mark.parametrize(("expires", "expired"), [
    (T0 - timedelta(days=1), True), (T0, True), (T0 + timedelta(seconds=1), False), (None, False),
])
def test_expiry_boundary(expires: datetime | None, expired: bool) -> None:
    assert plan([m("aaaa0001", expires=expires)]).ids_for("expire") == ({"aaaa0001"} if expired else set())


def test_inactive_memories_are_ignored() -> None:
    p = plan([m("aaaa0001", status="superseded", expires=T0 - timedelta(days=9), age=900, confidence=0.0)])
    assert p.actions == []


@pytest.mark.parametrize(("memories", "policy", "keys", "winner", "losers"), [
    ([m("aaaa0001", key="k", age=9), m("aaaa0002", key="k", age=3)], "latest", {}, "aaaa0002", ["aaaa0001"]),
    ([m("aaaa0001", key="k", age=9, updated=T0), m("aaaa0002", key="k", age=9)], "latest", {},
     "aaaa0001", ["aaaa0002"]),
    ([m("aaaa0002", key="k", age=9), m("aaaa0001", key="k", age=9)], "latest", {}, "aaaa0002", ["aaaa0001"]),
    ([m("aaaa0001", key="k", age=9), m("aaaa0002", key="k", age=3)], "history", {}, None, []),
    ([m("aaaa0001", key="k", age=9), m("aaaa0002", key="k", age=3)], "latest", {"k": "history"}, None, []),
    ([m("aaaa0001", key="k", age=9), m("aaaa0002", key="k", age=3, user="bob")], "latest", {}, None, []),
    ([m("aaaa0001", key="k", age=9, scope="project", project="p", user=None),
      m("aaaa0002", key="k", age=3, scope="project", project="p", user=None)], "latest", {}, "aaaa0002",
     ["aaaa0001"]),
])
def test_supersede_key(memories: list[Memory], policy: str, keys: dict, winner: str | None,
                       losers: list[str]) -> None:
    actions = [a for a in plan(memories, key_policy=policy, keys=keys).actions if a.kind == "supersede_key"]
    assert [(a.winner, a.ids) for a in actions] == ([(winner, losers)] if winner else [])


@pytest.mark.parametrize(("memory", "sessions", "target"), [
    (m("aaaa0001", scope="session", session="s1"), ["s1", "s2"], "user"),
    (m("aaaa0001", scope="session", session="s1", project="p"), ["s1", "s2", "s3"], "project"),
    (m("aaaa0001", scope="session", session="s1", tags=["remember"]), [], "user"),
    (m("aaaa0001", scope="session", session="s1", extra={"remember": True}), [], "user"),
    (m("aaaa0001", scope="session", session="s1"), ["s1", "s1", "s1"], None),
    (m("aaaa0001", scope="session", session="s1", extra={"remember": "no"}), [], None),
    (m("aaaa0001", tags=["remember"]), ["s1", "s2"], None),
])
def test_promotion(memory: Memory, sessions: list[str], target: str | None) -> None:
    usage = {memory.id: Usage(count=len(sessions), last_used=T0, sessions=sessions)}
    got = [a.target_scope for a in plan([memory], usage).actions if a.kind == "promote"]
    assert got == ([target] if target else [])


def clique(ids: list[str], value: float = 0.9) -> dict[tuple[str, str], float]:
    return {(a, b): value for i, a in enumerate(ids) for b in ids[i + 1:]}


IDS4 = ["aaaa0001", "aaaa0002", "aaaa0003", "aaaa0004"]


@pytest.mark.parametrize(("memories", "merged"), [
    ([m(i) for i in IDS4], [IDS4]),
    ([m(i, type="constraint") for i in IDS4], []),
    ([m(i, importance=1.0 if i == IDS4[0] else None) for i in IDS4], []),  # pinned leaves three
    ([m(i, user="bob" if i in IDS4[:2] else "alice") for i in IDS4], []),
    ([m(i, type="habit" if i == IDS4[0] else "fact") for i in IDS4], []),
    ([m(i, scope="session", session="s1") for i in IDS4], []),
    ([m(i, expires=T0 if i == IDS4[0] else None) for i in IDS4], []),
])
def test_consolidation_table(memories: list[Memory], merged: list[list[str]]) -> None:
    got = [a.ids for a in plan(memories, similarity=clique(IDS4)).actions if a.kind == "consolidate"]
    assert got == merged


def test_consolidation_respects_threshold_and_min_size() -> None:
    memories = [m(i) for i in IDS4]
    assert not kinds(plan(memories, similarity=clique(IDS4, 0.79))).get("consolidate")
    assert kinds(plan(memories, similarity=clique(IDS4, 0.79), cluster_threshold=0.75))["consolidate"] == [IDS4]
    assert not kinds(plan(memories, similarity=clique(IDS4), cluster_min_size=5)).get("consolidate")


def test_complete_link_does_not_chain() -> None:
    left, right = ["a1", "a2", "a3"], ["b1", "b2", "b3"]
    similarity = {**clique(left, 0.9), **clique(right, 0.9), ("a3", "b1"): 0.95}
    near = neighbours(similarity, left + right)
    clusters = complete_link_clusters(left + right, near, 0.8)
    assert all(len(c) <= 3 for c in clusters)
    assert sorted(i for c in clusters for i in c) == sorted(left + right)
    assert complete_link_clusters(left + right, neighbours(clique(left + right, 0.85), left + right), 0.8) == [
        sorted(left + right)]


@pytest.mark.parametrize("seed", range(8))
def test_complete_link_clusters_are_cliques_that_cannot_grow(seed: int) -> None:
    rng = random.Random(seed)
    ids = [f"{i:08x}" for i in range(30)]
    similarity = {(a, b): rng.uniform(0.5, 1.0) for i, a in enumerate(ids) for b in ids[i + 1:]
                  if rng.random() < 0.5}
    near = neighbours(similarity, ids)

    def link(x: list[str], y: list[str]) -> float:
        return min(near.get(a, {}).get(b, 0.0) for a in x for b in y)

    clusters = complete_link_clusters(ids, near, 0.8)
    assert sorted(i for c in clusters for i in c) == ids
    assert all(link([a], [b]) >= 0.8 for c in clusters for a in c for b in c if a != b)
    assert all(link(x, y) < 0.8 for i, x in enumerate(clusters) for y in clusters[i + 1:])
    assert clusters == complete_link_clusters(list(reversed(ids)), near, 0.8)


def test_low_importance_archives_old_unused_but_spares_pinned_and_protected() -> None:
    old = {"age": 400, "confidence": 0.3}
    memories = [m("aaaa0001", **old), m("aaaa0002", importance=1.0, **old),
                m("aaaa0003", type="constraint", **old), m("aaaa0004", type="decision", **old),
                m("aaaa0005", age=2, confidence=0.0), m("aaaa0006", importance=0.9, **old)]
    assert plan(memories).ids_for("archive_low_importance") == {"aaaa0001"}


def test_only_the_weaker_of_two_near_duplicates_is_penalised() -> None:
    # Each scores ~0.16 alone (old, unused); a near-copy halves that, but only for the lower-scoring one.
    a, b = m("aaaa0001", age=300, confidence=0.8), m("aaaa0002", age=300, confidence=0.8)
    similarity = {("aaaa0001", "aaaa0002"): 0.97}
    assert plan([a, b]).ids_for("archive_low_importance") == set()
    assert plan([a, b], similarity=similarity).ids_for("archive_low_importance") == {"aaaa0002"}
    usage = {"aaaa0002": Usage(count=3, last_used=T0)}
    assert plan([a, b], usage, similarity).ids_for("archive_low_importance") == {"aaaa0001"}


def test_importance_scores_ignore_other_owners_and_types() -> None:
    a, b = m("aaaa0001", age=75), m("aaaa0002", age=75, user="bob")
    c = m("aaaa0003", age=75, type="habit")
    similarity = {("aaaa0001", "aaaa0002"): 1.0, ("aaaa0001", "aaaa0003"): 1.0}
    scores = importance_scores([a, b, c], {}, now=T0, settings=SETTINGS, similarity=similarity)
    assert scores["aaaa0001"] == scores["aaaa0002"] == scores["aaaa0003"]


def test_rule_order_each_memory_in_one_action() -> None:
    memories = [m("aaaa0001", key="k", age=5, expires=T0),  # expired before it can win the key
                m("aaaa0002", key="k", age=9),
                m("aaaa0003", scope="session", session="s", tags=["remember"], expires=T0)]
    got = kinds(plan(memories))
    assert got == {"expire": [["aaaa0001"], ["aaaa0003"]]}


def test_archived_ids_exclude_promotions_and_winners() -> None:
    memories = [m("aaaa0001", key="k", age=9), m("aaaa0002", key="k", age=3),
                m("aaaa0003", scope="session", session="s", tags=["remember"])]
    p = plan(memories)
    assert p.archived_ids() == {"aaaa0001"}
    assert p.ids_for("promote") == {"aaaa0003"}


# Extractive summary ---------------------------------------------------------------------------

WEATHER = [
    "Alice asked about the weather in Lisbon.",
    "Alice asked for the weather forecast in Lisbon.",
    "Alice asked about the weather in Lisbon.",
    "Alice wanted to know whether it will rain in Porto at the weekend.",
    "Alice asked about the weather in Lisbon. She is cycling to work.",
]


def weather() -> list[Memory]:
    return [m(f"bbbb000{i}", body=body) for i, body in enumerate(WEATHER)]


def test_summary_starts_with_the_most_central_sentence() -> None:
    assert extractive_summary(weather()).startswith("Alice asked about the weather in Lisbon.")


def test_summary_keeps_every_distinct_statement_once() -> None:
    summary = extractive_summary(weather())
    assert summary is not None
    sentences = split_sentences(summary)
    assert len(sentences) == len(set(sentences))
    # every member's statements are there; the exact repeat and the sentence another one already
    # holds word for word appear once
    for body in WEATHER:
        assert all(sentence in summary for sentence in split_sentences(body))
    assert summary.count("Alice asked about the weather in Lisbon.") == 1


def test_summary_is_deterministic_and_order_independent() -> None:
    items = weather()
    assert extractive_summary(items) == extractive_summary(list(reversed(items)))


@pytest.mark.parametrize("limit", [600, 120, 30])
def test_a_summary_that_would_not_fit_is_no_summary(limit: int) -> None:
    long = [m(f"cccc{i:04d}", body=f"Detail number {i} concerns topic {i * 7} and item {i * 13}.")
            for i in range(80)]
    assert extractive_summary(long, max_chars=limit) is None  # never cut: the cluster is left alone
    assert extractive_summary(long[:1], max_chars=limit) in (None, long[0].body)


def test_a_cluster_whose_statements_do_not_fit_is_not_consolidated() -> None:
    plants = "basil mint sage thyme rosemary parsley chives dill fennel lavender oregano tarragon".split()
    members = [m(f"eeee000{i}", body=" ".join(f"Alice grows {p} in the {bed} bed of her garden, near the wall."
                                              for p in plants for bed in ("east", "west", "south")[i:]))
               for i in range(3)] + [m("eeee0003", body="Alice keeps a note about the garden.")]
    assert plan(members, similarity=clique([x.id for x in members])).ids_for("consolidate") == set()


@pytest.mark.parametrize(("text", "expected"), [
    ("One. Two! Three?", ["One.", "Two!", "Three?"]),
    ("- first line\n- second line", ["first line", "second line"]),
    ("王伟喜欢喝茶。他每天早上跑步。", ["王伟喜欢喝茶。", "他每天早上跑步。"]),
    ("Version 2.5 shipped. Done", ["Version 2.5 shipped.", "Done"]),
])
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


# Directory writer ------------------------------------------------------------------------------

def test_write_directory_builds_a_parseable_tree(tmp_path: Path) -> None:
    memories, *_ = make_memories(n=1000)
    paths = write_directory(tmp_path, memories)
    assert len(paths) == len(set(paths)) == 1000
    tops = {p.relative_to(tmp_path).parts[0] for p in paths}
    assert tops == {"users", "projects", "archive"}
    for path, memory in list(zip(paths, memories))[:50]:
        parsed = parse_memory(path.read_text(encoding="utf-8"))
        assert parsed.id == memory.id and parsed.body == memory.body and parsed.owner == memory.owner
