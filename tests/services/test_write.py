"""Acceptance scenarios for the write path, through the CLI."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.helpers import FAKE_LLM, cli, cli_json, tree_bytes
from tests.services.test_dedupe import PLANTED_CONFLICTS, PLANTED_REPEATS

FAKE = FAKE_LLM


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


def test_the_configured_llm_decides_a_change_the_rules_leave_open(memdir: Path, monkeypatch) -> None:
    """MEMCTL_LLM is asked, mem0's way (the candidates shown, SUPERSEDE), only when the rules cannot
    decide; without it the rules decide alone (the default), and a failing command falls back to them."""
    from memctl.api import MemoryStore

    _lower_related_threshold(memdir)
    store = MemoryStore(memdir)
    old = store.add("My phone is an iPhone 13", user="maria").memory
    assert store.gate("I switched to a Pixel 8 last week", user="maria").decision.decided_by == "rules"
    monkeypatch.setenv("MEMCTL_LLM", f"{FAKE} decide ADD Pixel=SUPERSEDE")
    result = store.add("I switched to a Pixel 8 last week", user="maria")
    assert result.decision.action == "supersede" and result.decision.target == old.id
    assert result.decision.decided_by == "llm" and not store.is_active(store.get(old.id))
    monkeypatch.setenv("MEMCTL_LLM", f"{sys.executable} -c 'import sys; sys.exit(3)'")
    fallback = store.add("My tablet is an iPad Air from 2022", user="maria")
    assert fallback.written and fallback.decision.decided_by == "rules"


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
        assert cli_json(samples, "show", memory_id)[1]["data"]["memory"]["path"].startswith("archive/")
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


# -- the write path as a library (no CLI) ---------------------------------------------------------

def test_library_add_writes_one_file_and_says_what_it_decided(store) -> None:
    result = store.add("Alice prefers window seats on flights", type="preference", user="alice")
    assert result.written and result.decision.action == "add" and result.matched is None
    assert store.get(result.memory.id).body == result.memory.body and store.get(result.memory.id).path == result.memory.path
    assert [m.id for m in store.active()] == [result.memory.id]


def test_library_repeat_is_refused_and_reinforces_the_stored_memory(store) -> None:
    from memctl.errors import Refused

    first = store.add("Bob drinks his coffee black", type="habit", user="bob", confidence=0.8).memory
    with pytest.raises(Refused) as refused:
        store.add("Bob drinks his coffee black.", type="habit", user="bob", confidence=0.95, source="ai")
    assert refused.value.code == "duplicate" and refused.value.data["decision"]["action"] == "noop"
    kept = store.get(first.id)
    assert kept.confidence == 0.95 and "ai" in kept.sources and len(store.active()) == 1


def test_a_list_of_two_people_sharing_a_surname_that_loses_one_is_written(store) -> None:
    # the shared surname is not the lost person's whole name: the shorter list is news, not a repeat
    store.add("My emergency contacts are Bob Smith and Carol Smith", type="fact", user="alice")
    result = store.add("My emergency contact is Bob Smith", type="fact", user="alice")
    assert result.written and result.decision.action != "noop"
    assert "My emergency contact is Bob Smith" in [m.body for m in store.active()]


def test_library_same_key_with_more_detail_updates_in_place(store) -> None:
    first = store.add("Alice prefers window seats", type="preference", user="alice", key="travel.seat").memory
    result = store.add("Alice prefers window seats on long flights", type="preference", user="alice", key="travel.seat")
    assert result.decision.action == "update" and result.memory.id == first.id and result.memory.path == first.path
    assert store.get(first.id).body == "Alice prefers window seats on long flights"


def test_library_same_key_new_value_supersedes_and_archives(store) -> None:
    old = store.add("Alice lives in Lisbon", type="fact", user="alice", key="home.city").memory
    new = store.add("Alice lives in Berlin", type="fact", user="alice", key="home.city")
    assert new.decision.action == "supersede" and new.memory.supersedes == old.id
    archived = store.get(old.id)
    assert archived.status == "superseded" and archived.superseded_by == new.memory.id
    assert archived.path.startswith("archive/") and [m.id for m in store.active()] == [new.memory.id]


@pytest.mark.parametrize(("text", "fields", "code"), [
    ("Alice might like tea", {"confidence": 0.3}, "low_confidence"),
    ("Alice's password is hunter2!xY", {}, "sensitive"),
    ("hi", {}, "too_short"),
])
def test_library_gate_refusals_write_nothing(store, text: str, fields: dict, code: str) -> None:
    from memctl.errors import Refused

    before = tree_bytes(store.root)
    with pytest.raises(Refused) as refused:
        store.add(text, type="fact", user="alice", **fields)
    assert refused.value.code == code and refused.value.exit_code == 3
    assert tree_bytes(store.root) == before


def test_library_gate_is_a_dry_run(store) -> None:
    before = tree_bytes(store.root)
    result = store.gate("Alice likes green tea", type="preference", user="alice")
    assert result.verdict.passed and not result.written and tree_bytes(store.root) == before


def test_library_automatic_writes_are_rate_limited_per_session(store) -> None:
    from memctl.errors import Refused

    for n in range(3):
        store.add(f"Alice mentioned hobby number {n}: {'kayaking pottery chess'.split()[n]}", type="fact",
                  user="alice", session="s1", source="ai")
    with pytest.raises(Refused) as refused:
        store.add("Alice mentioned she collects stamps", type="fact", user="alice", session="s1", source="ai")
    assert refused.value.code == "rate_limited"
    store.add("Alice said she collects stamps", type="fact", user="alice", session="s1", source="user")


def test_library_bad_input_raises_memctl_errors(store) -> None:
    from memctl.errors import InvalidMemory, UsageError

    with pytest.raises(InvalidMemory):
        store.add("   ", type="fact", user="alice")
    with pytest.raises(InvalidMemory, match="unknown type"):
        store.add("Alice likes tea", type="banana", user="alice")
    with pytest.raises(UsageError, match="say whose memory"):
        store.add("Alice likes tea", type="fact")
    with pytest.raises(UsageError):
        store.add("Alice likes tea", type="fact", user="alice", ttl="soon")


def test_write_service_takes_its_collaborators(store) -> None:
    from memctl.services.write import WriteService

    service = WriteService(store.repo, store.search, store.config)
    result = service.add("Carol is allergic to peanuts", type="constraint", user="carol")
    assert result.written and store.repo.get(result.memory.id).type == "constraint"


def test_a_change_in_new_wording_is_superseded_by_the_configured_llm(memdir: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """MEMCTL_LLM (the `[llm] command` a person configures) is asked the mem0 way about a case the rules
    leave open, with the candidates shown; its SUPERSEDE retires the old memory."""
    _lower_related_threshold(memdir)
    prompt = tmp_path / "prompt.txt"
    monkeypatch.setenv("MEMCTL_LLM", f"{FAKE} --calls {tmp_path / 'calls'} --prompt {prompt} decide ADD Pixel=SUPERSEDE")
    first = add(memdir, "My phone is an iPhone 13", "--user", "maria")[1]["data"]["memory"]
    code, out = add(memdir, "I switched to a Pixel 8", "--user", "maria")
    assert code == 0 and out["data"]["decision"]["action"] == "supersede", out
    assert out["data"]["decision"]["decided_by"] == "llm" and out["data"]["decision"]["target"] == first["id"]
    assert first["id"] in prompt.read_text() and "iPhone 13" in prompt.read_text()
    assert active_ids(memdir) == {out["data"]["memory"]["id"]}


def test_a_failing_llm_leaves_the_decision_to_the_rules(memdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _lower_related_threshold(memdir)
    monkeypatch.setenv("MEMCTL_LLM", f"{FAKE} garbage")
    first = add(memdir, "My phone is an iPhone 13", "--user", "maria")[1]["data"]["memory"]
    code, out = add(memdir, "I switched to a Pixel 8", "--user", "maria")
    assert code == 0 and out["data"]["decision"]["decided_by"] == "rules", out
    assert "malformed" in out["data"]["decision"]["reason"]
    assert first["id"] in active_ids(memdir)


def test_a_memory_is_dated_after_every_memory_it_conflicts_with_even_in_one_second(store, monkeypatch) -> None:
    """Three changes of one fact written in the same second: each is dated after those it conflicts
    with, also after one already dated a second ahead, so "newer first" never depends on random ids."""
    monkeypatch.setenv("MEMCTL_NOW", "2026-05-01T10:00:00Z")
    first = store.add("Hank lives in Beijing", type="fact", user="hank").memory
    texts = ("Hank moved to Shanghai", "Hank moved to Tokyo")
    later = [store.add(text, type="fact", user="hank").memory for text in texts]
    assert later[0].conflicts_with and later[1].conflicts_with
    for memory in later:
        assert all(memory.created > store.get(other).created for other in memory.conflicts_with)
    assert first.created < later[0].created < later[1].created


@pytest.mark.model
def test_a_persons_facts_about_other_attributes_are_not_linked_as_conflicts_in_either_language(store) -> None:
    """One person's facts of different attributes, some in English, some in Chinese, read alike to the
    embedding models; only the one of the same attribute (where she lives) is a possible conflict."""
    ids = {}
    for text in ("Lena has a cat named Miso", "Lena lives in Graz", "Lena works at a school as a teacher",
                 "Lena likes opera and plays the cello", "Lena 的生日是十一月二号"):
        memory = store.add(text, type="fact", user="lena").memory
        ids[memory.id] = text
        assert not memory.conflicts_with, (text, [ids.get(i, i) for i in memory.conflicts_with])
    moved = store.add("Lena 搬到了维也纳", type="fact", user="lena").memory
    assert [ids.get(i, i) for i in moved.conflicts_with] in ([], ["Lena lives in Graz"])
