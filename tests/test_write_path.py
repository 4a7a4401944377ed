"""Acceptance scenarios for the write path, through the CLI."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.helpers import cli, cli_json, tree_bytes
from tests.test_dedupe import PLANTED_CONFLICTS, PLANTED_REPEATS

FAKE = f"{sys.executable} {Path(__file__).parent / 'fake_llm.py'}"


def add(root: Path, text: str, *extra: str) -> tuple[int, dict]:
    return cli_json(root, "add", text, *extra)


def active_ids(root: Path, *extra: str) -> set[str]:
    return {m["id"] for m in cli_json(root, "list", *extra)[1]["data"]["memories"]}


def recall_ids(root: Path, query: str, *extra: str) -> list[str]:
    code, out = cli_json(root, "recall", query, *extra)
    assert code == 0, out
    return [h["id"] for h in out["data"]["hits"]]


def test_a_changed_key_supersedes_and_history_keeps_both(memdir: Path) -> None:
    code, out = add(memdir, "Alice lives in Beijing", "--user", "alice", "--key", "home.city")
    assert code == 0
    beijing = out["data"]["memory"]["id"]
    code, out = add(memdir, "Alice moved to Shanghai", "--user", "alice", "--key", "home.city")
    assert code == 0 and out["data"]["decision"]["action"] == "supersede"
    shanghai = out["data"]["memory"]["id"]
    assert active_ids(memdir, "--user", "alice") == {shanghai}
    old = cli_json(memdir, "show", beijing)[1]["data"]["memory"]
    assert old["status"] == "superseded" and old["superseded_by"] == shanghai and old["path"].startswith("archive/")
    assert recall_ids(memdir, "where does Alice live", "--user", "alice") == [shanghai]
    entries = cli_json(memdir, "history", beijing)[1]["data"]["entries"]
    assert {e["id"] for e in entries} == {beijing, shanghai}
    assert {e["op"] for e in entries} >= {"add", "supersede", "superseded"}
    assert cli_json(memdir, "restore", beijing)[0] == 0 and beijing in active_ids(memdir)


def test_an_opposite_preference_is_never_a_noop_and_the_newer_ranks_first(memdir: Path) -> None:
    # Pinned clocks: two writes within one second would leave "newer" to the id order.
    likes = cli_json(memdir, "--now", "2026-05-01T10:00:00Z", "add", "Bob likes jazz", "--user", "bob",
                     "--type", "preference")[1]["data"]["memory"]["id"]
    code, out = cli_json(memdir, "--now", "2026-05-02T10:00:00Z", "add", "Bob dislikes jazz", "--user", "bob",
                         "--type", "preference")
    assert code == 0
    decision, dislikes = out["data"]["decision"], out["data"]["memory"]["id"]
    assert decision["action"] in ("supersede", "add") and decision["action"] != "noop"
    if decision["action"] == "add":
        assert likes in decision["conflicts_with"]
        pairs = cli_json(memdir, "conflicts", "--user", "bob")[1]["data"]["conflicts"]
        assert [(c["older"], c["newer"]) for c in pairs] == [(likes, dislikes)]
    assert dislikes in active_ids(memdir, "--user", "bob")
    assert recall_ids(memdir, "Bob jazz", "--user", "bob")[0] == dislikes


def _lower_related_threshold(root: Path) -> None:
    # The fake embedder scores this paraphrase at about 0.26; the shipped model scores it higher.
    config = root / "memctl.toml"
    config.write_text(config.read_text().replace("related_threshold = 0.55", "related_threshold = 0.2"))


def test_a_paraphrase_is_an_update_by_the_llm_and_similar_without_it(memdir: Path) -> None:
    _lower_related_threshold(memdir)
    first = add(memdir, "Prefers window seats", "--user", "alice", "--type", "preference")[1]["data"]["memory"]
    code, out = add(memdir, "Likes to sit by the window on planes", "--user", "alice", "--type", "preference",
                    "--llm", f"{FAKE} decide UPDATE")
    assert code == 0 and out["data"]["decision"]["action"] == "update"
    assert out["data"]["decision"]["decided_by"] == "llm" and out["data"]["memory"]["id"] == first["id"]
    assert active_ids(memdir) == {first["id"]}


def test_a_paraphrase_without_an_llm_is_added_and_names_the_similar_one(memdir: Path) -> None:
    _lower_related_threshold(memdir)
    first = add(memdir, "Prefers window seats", "--user", "alice", "--type", "preference")[1]["data"]["memory"]
    code, out = add(memdir, "Likes to sit by the window on planes", "--user", "alice", "--type", "preference")
    assert code == 0 and out["data"]["decision"]["action"] == "add"
    assert first["id"] in out["data"]["decision"]["similar"]
    assert len(active_ids(memdir)) == 2


def test_the_fourth_automatic_write_in_a_session_is_refused(memdir: Path) -> None:
    facts = ["Alice keeps bees", "Alice plays the cello", "Alice speaks Portuguese", "Alice drives an electric car"]
    codes = [add(memdir, fact, "--user", "alice", "--source", "auto", "--session", "s1")[0] for fact in facts[:3]]
    assert codes == [0, 0, 0]
    code, out = add(memdir, facts[3], "--user", "alice", "--source", "auto", "--session", "s1")
    assert code == 3 and out["errors"][0]["code"] == "rate_limited"
    assert add(memdir, facts[3], "--user", "alice", "--session", "s1")[0] == 0
    assert add(memdir, "Alice collects stamps", "--user", "alice", "--source", "auto", "--session", "s2")[0] == 0


def test_dedupe_on_the_samples_finds_every_repeat_merges_no_conflict_and_restores(samples: Path) -> None:
    before = tree_bytes(samples)
    active_before = active_ids(samples)
    code, out = cli_json(samples, "dedupe", "--threshold", "0.5", "--dry-run")
    assert code == 0 and tree_bytes(samples) == before
    plan = out["data"]["plan"]
    found = ({frozenset((m["survivor"], i)) for m in plan["merges"] for i in m["merged"]}
             | {frozenset((c["older"], c["newer"])) for c in plan["conflicts"]}
             | {frozenset((p["a"], p["b"])) for p in out["data"]["similar"]})
    assert all(frozenset(pair) in found for pair in PLANTED_REPEATS)
    llm = f"{FAKE} decide ADD Berlin=DELETE 杭州=DELETE VS=DELETE EU=DELETE =UPDATE"
    code, out = cli_json(samples, "dedupe", "--threshold", "0.5", "--llm", llm)
    assert code == 0
    groups = [{m["survivor"], *m["merged"]} for m in out["data"]["plan"]["merges"]]
    assert all(any(set(pair) <= g for g in groups) for pair in PLANTED_REPEATS)
    assert not any(set(pair) <= g for pair in PLANTED_CONFLICTS for g in groups)
    removed = active_before - active_ids(samples)
    assert removed == set(out["data"]["merged"]) | set(out["data"]["superseded"]) and removed
    for memory_id in sorted(removed):
        assert list((samples / "archive").rglob(f"*{memory_id}.md"))
        assert cli_json(samples, "restore", memory_id)[0] == 0
    assert active_ids(samples) == active_before


def test_log_then_extract_then_nothing_more(memdir: Path) -> None:
    for text in ("hello", "remember:habit: Alice runs every morning", "remember@home.city: Alice lives in Porto"):
        assert cli(memdir, "log", "--user", "alice", "--session", "s7", text).exit_code == 0
    code, out = cli_json(memdir, "extract", "--user", "alice", "--session", "s7", "--llm", FAKE)
    assert code == 0 and out["data"]["counts"]["added"] == 2
    memories = cli_json(memdir, "list", "--user", "alice")[1]["data"]["memories"]
    assert sorted((m["content"], tuple(m["source_ids"]), m["source"]) for m in memories) == [
        ("Alice lives in Porto", ("s7:3",), "auto"), ("Alice runs every morning", ("s7:2",), "auto")]
    code, out = cli_json(memdir, "extract", "--user", "alice", "--session", "s7", "--llm", FAKE)
    assert code == 0 and out["data"]["called_model"] is False
    assert len(cli_json(memdir, "list", "--user", "alice")[1]["data"]["memories"]) == 2


def test_repeats_and_updates_keep_every_source_id(store) -> None:
    from memctl.errors import Refused

    first = store.add("Alice is vegetarian", type="fact", user="alice", source_ids=["s1:1"]).memory
    with pytest.raises(Refused):
        store.add("Alice is a vegetarian", type="fact", user="alice", source_ids=["s2:4"])
    assert store.get(first.id).source_ids == ["s1:1", "s2:4"]
