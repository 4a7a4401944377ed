"""Plain statements become typed facts, on both backends: what `add` infers (and says it did),
how `edit` corrects it, and `structure` typing the memories already stored (offline rules, or an
LLM command: a fake one here)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memctl import clock
from tests.helpers import FAKE_LLM

JAN_10 = datetime(2026, 1, 10, 9, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def _january() -> None:
    clock.set_now(JAN_10)


def test_add_types_a_plain_statement_and_says_so(store) -> None:
    result = store.add("My US passport expires on 2 April 2026", user="alice")
    assert result.inferred == {"kind": "passport", "fields": {"country": "US", "expires": "2026-04-02"}, "by": "rules"}
    memory = store.get(result.memory.id)
    assert (memory.kind, memory.fields, memory.type) == ("passport", {"country": "US", "expires": "2026-04-02"}, "fact")
    assert memory.extra.get("typed") == "rules" and memory.occurred == "2026-04-02"
    assert any("typed as passport" in note and "memctl edit" in note for note in result.notes)
    assert result.to_data()["inferred"]["kind"] == "passport"


def test_a_statement_of_no_kind_is_left_untyped(store) -> None:
    result = store.add("Alice prefers window seats on flights", user="alice")
    assert result.inferred is None and result.memory.kind is None


def test_infer_false_and_an_explicit_kind_win(store) -> None:
    plain = store.add("My US passport expires on 2 April 2026", user="alice", infer=False)
    assert plain.memory.kind is None and plain.inferred is None
    given = store.add("Trip on 2026-05-01", user="bob", kind="trip", fields={"departs": "2026-05-01"})
    assert given.inferred is None and "typed" not in store.get(given.memory.id).extra


def test_edit_corrects_an_inferred_field_and_removes_a_wrong_kind(store) -> None:
    memory = store.add("Jake's birthday is 14 March", user="alice").memory
    fixed = store.edit(memory.id, {"fields.person": "Jake Miller"})
    assert fixed.fields["person"] == "Jake Miller" and "typed" not in fixed.extra  # the person's now
    untyped = store.edit(memory.id, {"kind": ""})
    assert untyped.kind is None and untyped.fields == {} and untyped.extra.get("typed") == "none"
    assert store.structure(user="alice").typed == []  # a person said it is no kind: left alone


def test_structure_dry_run_lists_then_writes_and_check_uses_them(store) -> None:
    passport = store.add_raw("My US passport expires on 2 April 2026", user="alice")
    trip = store.add_raw("I'm flying to Tokyo on 10 March 2026 for an international trip", user="alice")
    store.add_raw("Alice likes green tea", user="alice")
    assert store.check(user="alice").findings == []
    plan = store.structure(dry_run=True)
    assert plan.dry_run and plan.read == 3 and plan.by == "rules"
    assert {(i.id, i.proposal.kind) for i in plan.typed} == {(passport.id, "passport"), (trip.id, "trip")}
    assert store.get(passport.id).kind is None  # nothing written
    done = store.structure()
    assert len(done.typed) == 2 and store.get(trip.id).fields["departs"] == "2026-03-10"
    assert store.get(trip.id).extra.get("typed") == "rules" and store.get(trip.id).occurred == "2026-03-10"
    (finding,) = store.check(user="alice").findings
    assert finding.rule == "passport_before_trip" and set(finding.memories) == {passport.id, trip.id}
    assert store.structure().typed == []  # typed ones are not typed again
    assert [e.op for e in store.history(trip.id)][-1] == "structure"


def test_structure_with_an_llm_command(store) -> None:
    kept = store.add_raw("Passport renewed: valid to 2031-06-30", user="alice")
    store.add_raw("My US passport expires on 2 April 2026", user="bob")
    report = store.structure(user="alice", llm=f"{FAKE_LLM} structure")
    assert report.by == "llm" and [i.id for i in report.typed] == [kept.id]
    memory = store.get(kept.id)
    assert memory.fields == {"expires": "2031-06-30"} and memory.extra.get("typed") == "llm"  # "colour" dropped
    assert store.get(store.list(user="bob")[0].id).kind is None  # only alice's


def test_structure_offline_ignores_the_configured_llm(store, monkeypatch) -> None:
    store.add_raw("My US passport expires on 2 April 2026", user="alice")
    monkeypatch.setenv("MEMCTL_LLM", f"{FAKE_LLM} garbage")
    assert store.structure(dry_run=True).by == "llm"
    report = store.structure(dry_run=True, offline=True)
    assert report.by == "rules" and len(report.typed) == 1


def test_the_folder_cannot_name_the_llm_command(store, tmp_path) -> None:
    """A shared folder's memctl.toml is untrusted: it has no setting that names a command to run."""
    from memctl.config import parse_config
    from memctl.errors import MemctlError

    with pytest.raises((MemctlError, ValueError)):
        parse_config('[llm]\ncommand = "touch /tmp/pwned"\n')
    store.add_raw("My US passport expires on 2 April 2026", user="alice")
    assert store.structure(dry_run=True).by == "rules"


def test_a_failing_llm_is_a_clear_error_and_writes_nothing(store) -> None:
    from memctl.services.llm import LLMError

    memory = store.add_raw("My US passport expires on 2 April 2026", user="alice")
    with pytest.raises(LLMError):
        store.structure(llm="memctl-no-such-llm-command")
    assert store.get(memory.id).kind is None


@pytest.mark.parametrize("passport, trip", [
    ("My US passport expires on 2 April 2026", "I'm flying to Tokyo on 10 March 2026 for an international trip"),
    ("我的美国护照2026年4月2日到期", "我3月10日飞东京，这是一次国际旅行"),
])
def test_seed_level_3_in_plain_language(store, passport: str, trip: str) -> None:
    p = store.add(passport, user="alice").memory
    t = store.add(trip, user="alice").memory
    (finding,) = store.check(user="alice").findings
    assert finding.rule == "passport_before_trip" and set(finding.memories) == {p.id, t.id}
    block = store.context("book the flight", user="alice")
    assert block["text"].index("Passport (US) expires 2026-04-02") < block["text"].index(trip[:8])


def test_an_answer_line_nested_too_deep_is_skipped() -> None:
    from memctl.services.structure import parse_structure_answer

    deep = '{"n": 1, "kind": "passport", "fields": ' + "[" * 20_000 + "]" * 20_000 + "}"  # a RecursionError before
    assert parse_structure_answer(deep + "\nnot json\n", 1, {}) == {}
