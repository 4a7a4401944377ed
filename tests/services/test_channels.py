"""One write channel at a time: extract skips turns an explicit write covered, sees the stored
memories (numbered) so it reports changes, writes absolute dates; automatic writes with no session
are limited per owner."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memctl import clock
from memctl.api import MemoryStore
from memctl.errors import Refused
from tests.helpers import FAKE_LLM

START = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def _ticking():
    clock.set_now(START)


def tick(minutes: int = 1) -> None:
    clock.set_now(clock.now() + timedelta(minutes=minutes))


def say(store: MemoryStore, text: str, role: str = "user") -> None:
    store.log("alice", "s1", text, role=role)
    tick()


def test_a_turn_covered_by_an_explicit_write_is_not_sent_to_the_extractor(store: MemoryStore, tmp_path: Path):
    say(store, "remember: Alice lives in Lisbon")
    store.add("Alice lives in Lisbon", user="alice", rate_session="s1")  # the agent saved it itself
    tick()
    say(store, "Noted, saved.", role="assistant")
    say(store, "remember: Alice prefers window seats")
    prompt = tmp_path / "prompt.txt"
    result = store.extract("alice", "s1", f"{FAKE_LLM} --prompt {prompt} extract")
    assert result.skipped == ["s1:1", "s1:2"]
    assert "Lisbon" not in prompt.read_text().split("MESSAGES:")[1]
    assert result.report.counts["added"] == 1
    assert sorted(m.body for m in store.list(user="alice")) == ["Alice lives in Lisbon", "Alice prefers window seats"]


def test_a_fully_covered_batch_calls_no_model_and_moves_on(store: MemoryStore, tmp_path: Path):
    say(store, "remember: Alice lives in Lisbon")
    store.add("Alice lives in Lisbon", user="alice", session="s1")
    calls = tmp_path / "calls"
    result = store.extract("alice", "s1", f"{FAKE_LLM} --calls {calls} extract")
    assert not result.called_model and not calls.exists() and result.watermark == "s1:1"
    assert store.extract("alice", "s1", f"{FAKE_LLM} extract").pending == 0


def test_the_extractor_sees_stored_memories_by_number_and_reports_a_change(store: MemoryStore, tmp_path: Path):
    old = store.add("Alice lives in Lisbon", user="alice").memory
    store.add("Kim likes jazz", user="kim")  # another owner's memory is never shown
    say(store, "remember: Alice has a new flat in Porto (replaces 1)")
    prompt = tmp_path / "prompt.txt"
    result = store.extract("alice", "s1", f"{FAKE_LLM} --prompt {prompt} extract")
    shown = prompt.read_text()
    assert "[1] Alice lives in Lisbon" in shown and old.id not in shown and "jazz" not in shown
    assert "absolute dates" in shown and "2026-03-01T09:00:00Z" in shown  # messages carry their time
    assert result.report.counts["superseded"] == 1
    assert "the extractor reports it replaces" in result.report.items[0].message
    assert [m.body for m in store.list(user="alice")] == ["Alice has a new flat in Porto"]


def test_automatic_writes_without_a_session_are_limited_per_owner(memdir: Path):
    (memdir / "memctl.toml").write_text((memdir / "memctl.toml").read_text().replace(
        "max_auto_writes_without_session = 10", "max_auto_writes_without_session = 2"))
    store = MemoryStore(memdir)
    for text in ("Alice likes tea", "Alice plays chess"):
        store.add(text, user="alice", source="auto", confidence=0.9)
    with pytest.raises(Refused, match=r"users/alice \(no session\) already made 2 automatic writes") as refused:
        store.add("Alice reads poetry", user="alice", source="auto", confidence=0.9)
    assert refused.value.code == "rate_limited"
    store.add("Bob likes tea", user="bob", source="auto", confidence=0.9)  # another owner has their own
    store.add("Alice reads poetry", user="alice")  # explicit writes are never limited
    clock.set_now(START + timedelta(hours=25))
    store.add("Alice swims", user="alice", source="auto", confidence=0.9)  # the window moved on


def test_a_relative_date_left_by_the_extractor_is_read_against_the_message_time(store: MemoryStore):
    say(store, "remember:event: Alice flies to Rome tomorrow")
    clock.set_now(START + timedelta(days=5))  # extracted days later
    store.extract("alice", "s1", f"{FAKE_LLM} extract")
    assert [m.occurred for m in store.list(user="alice")] == ["2026-03-02"]


@pytest.mark.parametrize("pinned", ["env", "clock"])
def test_a_pinned_clock_does_not_change_which_channel_wrote_a_turn(store: MemoryStore, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch, pinned: str):
    """Issue 22: with MEMCTL_NOW (or --now) every message and write carries the same time; the turn
    an explicit write covers is still told by its place in the transcript, so no second copy."""
    clock.set_now(None)
    if pinned == "env":
        monkeypatch.setenv("MEMCTL_NOW", "2026-03-01T09:00:00Z")
    else:
        clock.set_now(START)
    store.log("finn", "s10", "remember: Finn's daughter is named Ida")
    store.add("Finn's daughter is called Ida", user="finn", rate_session="s10")
    store.log("finn", "s10", "Saved.", role="assistant")
    store.log("finn", "s10", "remember: Finn sails on Sundays")
    prompt = tmp_path / "prompt.txt"
    result = store.extract("finn", "s10", f"{FAKE_LLM} --prompt {prompt} extract")
    assert result.skipped == ["s10:1", "s10:2"]
    assert "Ida" not in prompt.read_text().split("MESSAGES:")[1]
    assert sorted(m.body for m in store.list(user="finn")) == ["Finn sails on Sundays", "Finn's daughter is called Ida"]


def test_a_write_before_a_turn_does_not_cover_it_under_a_pinned_clock(store: MemoryStore, monkeypatch: pytest.MonkeyPatch):
    clock.set_now(None)
    monkeypatch.setenv("MEMCTL_NOW", "2026-03-01T09:00:00Z")
    store.log("finn", "s11", "hello")
    store.add("Finn's daughter is called Ida", user="finn", rate_session="s11")
    store.log("finn", "s11", "remember: Finn sails on Sundays")
    result = store.extract("finn", "s11", f"{FAKE_LLM} extract")
    assert result.skipped == ["s11:1"] and result.report.counts["added"] == 1


# -- per-session state is keyed by whose session it is (issue 21) ------------------------------------

def test_one_persons_automatic_writes_never_limit_anothers_session_of_the_same_name(store: MemoryStore):
    for text in ("Alice likes tea", "Alice plays chess", "Alice reads poetry"):  # max_auto_writes = 3
        store.add(text, user="alice", session="chat1", source="auto", confidence=0.9)
    with pytest.raises(Refused, match="automatic writes"):
        store.add("Alice swims", user="alice", session="chat1", source="auto", confidence=0.9)
    written = store.add("Bob likes jazz", user="bob", session="chat1", source="auto", confidence=0.9)
    assert written.written
    extracted = store.add("Bob plays golf", user="bob", rate_session="chat1", source="auto", confidence=0.9)
    assert extracted.written  # bob's long-term write during his chat1: his session's count, not alice's


def test_another_persons_explicit_write_in_a_session_of_the_same_name_never_covers_a_turn(store: MemoryStore):
    store.log("carol", "chat9", "remember: Carol's locker code is 4471")
    tick()
    store.add("Dave parks on level 3", user="dave", rate_session="chat9")  # dave's own chat9
    tick()
    result = store.extract("carol", "chat9", f"{FAKE_LLM} extract")
    assert result.skipped == [] and result.called_model
    assert [m.body for m in store.list(user="carol")] == ["Carol's locker code is 4471"]
    store.log("carol", "chat9", "remember: Carol bikes to work")
    tick()
    store.add("Carol bikes to work", user="carol", rate_session="chat9")  # her own write still covers her turn
    assert store.extract("carol", "chat9", f"{FAKE_LLM} extract").skipped == ["chat9:2"]


def test_usage_counts_each_persons_session_apart(store: MemoryStore):
    memory = store.add("The office wifi is called Falcon", project="shop").memory
    for user in ("alice", "bob"):
        store.recall("office wifi", users=[user], projects=["shop"], session="chat1", mode="keyword")
    assert sorted(store.repo.usage()[memory.id]["sessions"]) == ["users/alice/chat1", "users/bob/chat1"]
