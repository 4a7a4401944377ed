"""Dedupe planning: repeat groups, survivors, conflicts, resolve=newest, the LLM hook."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memctl.policy.decide import Decision
from memctl.policy.dedupe import ConflictPair, DedupeItem, DedupePlan, MergeGroup, plan_dedupe

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def item(id: str, text: str, day: int = 0, *, type: str = "fact", group: str = "user:alice",
         key: str | None = None, confidence: float = 0.8, tags: list[str] | None = None,
         sources: list[str] | None = None) -> DedupeItem:
    when = T0 + timedelta(days=day)
    return DedupeItem(id=id, text=text, type=type, group=group, key=key, confidence=confidence,
                      created=when, updated=when, tags=tags or [], sources=sources or [])


def test_nothing_similar_is_an_empty_plan() -> None:
    items = [item("a", "Alice likes tea"), item("b", "The build uses Bazel")]
    assert plan_dedupe(items, {("a", "b"): 0.2}) == DedupePlan(merges=[], conflicts=[])


def test_same_fingerprint_merges_without_a_cosine() -> None:
    items = [item("a", "Alice is vegetarian", 0, tags=["food"], sources=["chat:1"]),
             item("b", "Alice is a vegetarian.", 1, confidence=0.95, tags=["diet", "food"],
                  sources=["chat:2"])]
    plan = plan_dedupe(items, {})
    assert plan.merges == [MergeGroup(
        survivor="b", merged=["a"], tags=["diet", "food"], sources=["chat:2", "chat:1"],
        text=None, confidence=0.95, reason="b: same content as a after normalisation")]
    assert plan.conflicts == []


@pytest.mark.parametrize("texts,cosines,survivor", [
    # The most complete text wins even when it is older and less confident.
    ({"a": "Alice prefers window seats on long flights", "b": "Alice prefers window seats on flights"},
     {("a", "b"): 0.95}, "a"),
    ({"a": "Alice prefers window seats on flights", "b": "Alice prefers window seats on long flights"},
     {("b", "a"): 0.95}, "b"),
    # Same text: the higher confidence wins (c has 0.9), then the newest.
    ({"a": "Alice is vegetarian", "b": "Alice is a vegetarian", "c": "alice is vegetarian!"},
     {}, "c"),
])
def test_survivor_choice(texts: dict[str, str], cosines: dict[tuple[str, str], float],
                         survivor: str) -> None:
    confidences = {"a": 0.5, "b": 0.9, "c": 0.9}
    items = [item(i, t, day, confidence=confidences[i]) for day, (i, t) in enumerate(texts.items())]
    items[0] = items[0].model_copy(update={"confidence": 0.4})
    (merge,) = plan_dedupe(items, cosines).merges
    assert merge.survivor == survivor
    assert sorted([merge.survivor, *merge.merged]) == sorted(texts)


def test_transitive_repeats_form_one_group() -> None:
    items = [item("a", "Alice prefers window seats", 0),
             item("b", "Alice prefers window seats on flights", 1),
             item("c", "Alice prefers window seats on long flights", 2)]
    # a~b and b~c are given; a~c is not (below the caller's cut-off).
    plan = plan_dedupe(items, {("a", "b"): 0.93, ("b", "c"): 0.95})
    assert [(m.survivor, m.merged) for m in plan.merges] == [("c", ["a", "b"])]
    assert plan.merges[0].reason.count(":") == 2  # one reason per merged pair


def test_conflicting_pair_is_never_merged_even_through_a_chain() -> None:
    items = [item("a", "Bob likes jazz", 0),
             item("b", "Bob likes jazz.", 1),
             item("c", "Bob dislikes jazz", 2),
             item("d", "Bob dislikes jazz!", 3)]
    sims = {("a", "c"): 0.88, ("b", "c"): 0.88, ("a", "d"): 0.88, ("b", "d"): 0.88}
    plan = plan_dedupe(items, sims)
    assert [(m.survivor, m.merged) for m in plan.merges] == [("b", ["a"]), ("d", ["c"])]
    assert plan.conflicts == [ConflictPair(
        older="b", newer="d", reason="c: changes a value of a: 'likes' -> 'dislikes'")]


@pytest.mark.parametrize("resolve,resolved", [(None, False), ("newest", True)])
def test_conflicts_listed_and_resolved_newest(resolve: str | None, resolved: bool) -> None:
    items = [item("new", "The team uses PostgreSQL 16", 5),
             item("old", "The team uses PostgreSQL 15", 1),
             item("k1", "Alice lives in Beijing", 0, key="home.city"),
             item("k2", "Alice moved to Shanghai", 3, key="home.city")]
    plan = plan_dedupe(items, {("new", "old"): 0.91}, resolve=resolve)
    assert plan.merges == []
    assert [(c.older, c.newer, c.resolved) for c in plan.conflicts] == [
        ("k1", "k2", resolved), ("old", "new", resolved)]
    assert "'15' -> '16'" in plan.conflicts[1].reason


def test_unknown_resolve_strategy_is_rejected() -> None:
    with pytest.raises(ValueError, match="resolve"):
        plan_dedupe([], {}, resolve="oldest")


@pytest.mark.parametrize("a,b", [
    ({"type": "fact"}, {"type": "preference"}),
    ({"group": "user:alice"}, {"group": "user:bob"}),
])
def test_repeats_only_within_one_group_and_type(a: dict, b: dict) -> None:
    items = [item("a", "Alice is vegetarian", **a), item("b", "Alice is vegetarian", **b)]
    assert plan_dedupe(items, {("a", "b"): 0.99}) == DedupePlan()


def test_similar_but_different_facts_are_left_alone() -> None:
    items = [item("a", "Alice prefers window seats"), item("b", "Alice books aisle seats for her kids")]
    assert plan_dedupe(items, {("a", "b"): 0.86}) == DedupePlan()


def test_pairs_below_threshold_are_not_merged() -> None:
    items = [item("a", "Alice prefers window seats on flights"),
             item("b", "Alice prefers window seats on long flights", 1)]
    assert plan_dedupe(items, {("a", "b"): 0.8}).merges == []
    assert len(plan_dedupe(items, {("a", "b"): 0.8}, threshold=0.75).merges) == 1


def test_unknown_ids_in_similarity_are_ignored() -> None:
    items = [item("a", "Alice likes tea")]
    assert plan_dedupe(items, {("a", "ghost"): 0.99, ("a", "a"): 1.0}) == DedupePlan()


def test_output_is_deterministic_regardless_of_input_order() -> None:
    items = [item("c", "Bob likes jazz", 2), item("a", "Bob likes jazz.", 0),
             item("b", "Alice is vegetarian", 1), item("d", "Alice is a vegetarian", 3)]
    sims = {("c", "a"): 0.99, ("b", "d"): 0.99}
    first = plan_dedupe(items, sims)
    second = plan_dedupe(list(reversed(items)), dict(reversed(list(sims.items()))))
    assert first == second
    assert [m.survivor for m in first.merges] == sorted(m.survivor for m in first.merges)


def test_llm_is_asked_only_about_ambiguous_pairs_and_can_merge_with_new_text() -> None:
    items = [item("a", "Prefers window seats", 0),
             item("b", "Likes to sit by the window on planes", 1),
             item("c", "Alice is vegetarian", 2), item("d", "Alice is a vegetarian", 3)]
    asked: list[tuple[str, str]] = []

    def llm(older: DedupeItem, newer: DedupeItem) -> Decision | None:
        asked.append((older.id, newer.id))
        return Decision(action="update", target=older.id, decided_by="llm", reason="same wish",
                        text="Prefers window seats on planes")

    plan = plan_dedupe(items, {("a", "b"): 0.9, ("c", "d"): 0.99}, llm_decide=llm)
    assert asked == [("a", "b")]
    merge = next(m for m in plan.merges if "a" in [m.survivor, *m.merged])
    assert merge.text == "Prefers window seats on planes"


@pytest.mark.parametrize("answer,expect_merge,expect_conflict", [
    (None, False, False),  # malformed answer: the rules (leave alone) stand
    (Decision(action="add", decided_by="llm", reason="different"), False, False),
    (Decision(action="supersede", target="a", decided_by="llm", reason="contradicts"), False, True),
    (Decision(action="noop", target="a", decided_by="llm", reason="repeat"), True, False),
])
def test_llm_answers(answer: Decision | None, expect_merge: bool, expect_conflict: bool) -> None:
    items = [item("a", "Prefers window seats", 0), item("b", "Likes to sit by the window", 1)]
    plan = plan_dedupe(items, {("a", "b"): 0.9}, llm_decide=lambda old, new: answer)
    assert bool(plan.merges) is expect_merge
    assert bool(plan.conflicts) is expect_conflict
    if expect_merge:
        assert plan.merges[0].text is None  # no merged text offered: the survivor keeps its own


def test_plan_serialises_to_json() -> None:
    items = [item("a", "Alice is vegetarian"), item("b", "Alice is a vegetarian", 1)]
    data = plan_dedupe(items, {}).model_dump(mode="json")
    assert set(data) == {"merges", "conflicts"}
    assert set(data["merges"][0]) == {"survivor", "merged", "tags", "sources", "text",
                                      "confidence", "reason"}
