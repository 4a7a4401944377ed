"""Checks compiled and evaluated as data: findings, templates, and proof that no rule runs code."""

from __future__ import annotations

import os
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from memctl.core.models import Memory
from memctl.core.schemas import parse_schema
from memctl.policy.checks import RuleError, compile_rule, evaluate, how_soon, render_message
from memctl.policy.conditions import subject

SCHEMAS = {
    "passport": parse_schema("passport", {"fields": {"country": "country", "expires": "date"}}),
    "trip": parse_schema("trip", {"fields": {"departs": "date", "destination": "text", "international": "bool"}}),
    "birthday": parse_schema("birthday", {"fields": {"person": "text", "date": {"type": "date", "yearly": True}}}),
    "expense": parse_schema("expense", {"fields": {"amount": "money", "item": "text"}}),
}
T0 = datetime(2025, 12, 1, tzinfo=timezone.utc)
PASSPORT_RULE = {"kinds": ["passport", "trip"], "due": "trip.departs",
                 "when": "trip.international = true and passport.expires - trip.departs < 180 days",
                 "message": "Passport expires {passport.expires}, trip departs {trip.departs} ({when})"}


def memory(n: int, kind: str, user: str = "alice", **fields: Any) -> Memory:
    return Memory(id=f"{n:08x}", type="fact", user=user, kind=kind, fields=fields, created=T0, updated=T0,
                  body=f"{kind} {n}")


def test_two_kinds_are_bound_pairwise_per_owner():
    rule = compile_rule("p", PASSPORT_RULE, SCHEMAS)
    memories = [memory(1, "passport", country="US", expires="2026-04-02"),
                memory(2, "trip", departs="2026-03-10", international=True, destination="Tokyo"),
                memory(3, "trip", departs="2026-03-12", international=False),
                memory(4, "trip", user="bob", departs="2026-03-10", international=True)]
    (finding,) = evaluate([rule], memories, SCHEMAS, date(2026, 1, 20))
    assert finding.memories == ["00000001", "00000002"] and finding.owner == "users/alice"
    assert finding.message == "Passport expires 2026-04-02, trip departs 2026-03-10 (in 49 days)"
    assert (finding.due, finding.days) == (date(2026, 3, 10), 49)


@pytest.mark.parametrize("when,expected", [
    ("expense.amount > 100 EUR", ["00000001"]),
    ("expense.amount >= 99.5 EUR and expense.item != 'bike'", ["00000001", "00000002"]),
    ("expense.amount > 10 USD", ["00000003"]),  # other currencies never compare
    ("expense.item in ('bike', 'books')", ["00000003"]),
])
def test_thresholds(when, expected):
    rule = compile_rule("t", {"kinds": ["expense"], "when": when, "message": "{expense.item}: {expense.amount}"}, SCHEMAS)
    memories = [memory(1, "expense", amount="120.50 EUR", item="rent"), memory(2, "expense", amount="99.50 EUR", item="food"),
                memory(3, "expense", amount={"amount": 40, "currency": "USD"}, item="books")]
    assert sorted(i for f in evaluate([rule], memories, SCHEMAS, date(2026, 1, 1)) for i in f.memories) == expected


def test_yearly_dates_and_how_soon():
    rule = compile_rule("b", {"kinds": ["birthday"], "when": "birthday.date within 14 days",
                              "message": "{person} {due} {days} {when}"}, SCHEMAS)
    leap = [memory(1, "birthday", person="Lee", date="2000-02-29")]
    (finding,) = evaluate([rule], leap, SCHEMAS, date(2027, 2, 20))
    assert finding.message == "Lee 2027-02-28 8 in 8 days"  # 29 February is the 28th in other years
    assert evaluate([rule], leap, SCHEMAS, date(2027, 3, 1)) == []
    assert [how_soon(d) for d in (0, 1, 5, -1, -3)] == ["today", "tomorrow", "in 5 days", "1 day ago", "3 days ago"]


@pytest.mark.parametrize("table,message", [
    ({"kinds": ["trip"], "when": "trip.departs < 180 days", "message": "x"}, "when: cannot compare a date with a duration"),
    ({"kinds": ["trip"], "when": "trip.leaves within 3 days", "message": "x"}, "trip has no field 'leaves'"),
    ({"kinds": ["rocket"], "when": "true", "message": "x"}, "kinds: unknown kind 'rocket'"),
    ({"kinds": ["trip"], "when": "trip.departs within 3 days", "message": "x", "severty": "info"}, "severty: Extra inputs"),
    ({"kinds": ["trip"], "when": "trip.departs within 3 days", "message": "x", "severity": "panic"}, "unknown severity"),
    ({"kinds": ["trip"], "when": "trip.departs within 3 days", "message": "{trip.colour}"}, "message: {trip.colour}"),
    ({"kinds": ["trip"], "when": "trip.departs within 3 days", "message": "x", "due": "trip.destination"}, "due: name one date"),
    ({"kinds": ["trip", "trip"], "when": "true", "message": "x"}, "two different kinds"),
    ({"kinds": ["trip"], "when": "trip.destination", "message": "x"}, "must be true or false"),
    ("not a table", "a rule is a table"),
])
def test_rules_that_do_not_compile_say_why(table, message):
    with pytest.raises(RuleError) as err:
        compile_rule("r", table, SCHEMAS)
    assert message in str(err.value)


def test_a_switched_off_rule_is_none():
    assert compile_rule("p", {**PASSPORT_RULE, "enabled": False}, SCHEMAS) is None


HOSTILE_CONDITIONS = [
    "__import__('os').system('touch PWNED')",
    "open('/etc/passwd')",
    "os.system('touch PWNED')",
    "trip.__class__",
    "trip.departs.__class__.__mro__",
    "eval('1')",
    "exec('import os')",
    "trip.departs; import os",
    "`touch PWNED`",
    "$(touch PWNED)",
    "lambda: 1",
    "[x for x in ()]",
    "trip['departs']",
    "{0.__class__}",
    "subprocess.run('touch PWNED')",
]


@pytest.mark.parametrize("when", HOSTILE_CONDITIONS)
def test_no_rule_can_import_open_a_file_or_run_a_command(when, tmp_path, monkeypatch):
    """Every hostile condition is refused at compile time, and nothing in the process ran: no import,
    no file opened, no command (the audit hook sees every one)."""
    monkeypatch.chdir(tmp_path)
    events: list[str] = []
    import sys

    active = [True]

    def hook(event: str, args: Any) -> None:
        if active[0] and event in ("import", "open", "os.system", "subprocess.Popen", "exec", "compile", "os.exec",
                                   "os.posix_spawn"):
            events.append(event)

    sys.addaudithook(hook)  # hooks cannot be removed: `active` switches this one off after the test
    try:
        with pytest.raises(RuleError):
            compile_rule("evil", {"kinds": ["trip"], "when": when, "message": "x"}, SCHEMAS)
    finally:
        active[0] = False
    assert events == [] and not (tmp_path / "PWNED").exists() and os.listdir(tmp_path) == []


@pytest.mark.parametrize("template,shown", [
    ("{0.__class__}", "{0.__class__}"),
    ("{trip.__class__.__mro__}", "{trip.__class__.__mro__}"),
    ("{trip.departs!r:>99999}", "{trip.departs!r:>99999}"),
    ("{trip.departs:%Y}", "{trip.departs:%Y}"),
    ("{__import__}", "{__import__}"),
    ("{{trip.departs}}", "{2026-03-10}"),
    ("{trip.destination}", "?"),
])
def test_templates_only_substitute_field_placeholders(template, shown):
    env = {"trip": subject(memory(2, "trip", departs="2026-03-10"), SCHEMAS)}
    assert render_message(template, env, None, None) == shown


def test_hostile_templates_are_inert_in_a_compiled_rule():
    rule = compile_rule("t", {"kinds": ["trip"], "when": "trip.departs within 30 days",
                              "message": "{0.__class__} {trip.departs} {trip.departs.__class__}"}, SCHEMAS)
    (finding,) = evaluate([rule], [memory(1, "trip", departs="2026-01-25")], SCHEMAS, date(2026, 1, 20))
    assert finding.message == "{0.__class__} 2026-01-25 {trip.departs.__class__}"
    with pytest.raises(RuleError, match="unknown name 'os'"):  # a placeholder naming no bound kind is refused
        compile_rule("t", {"kinds": ["trip"], "when": "true", "message": "{os.system}"}, SCHEMAS)


def test_evaluation_reads_no_files(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rule = compile_rule("p", PASSPORT_RULE, SCHEMAS)
    memories = [memory(1, "passport", country="US", expires="2026-04-02"),
                memory(2, "trip", departs="2026-03-10", international=True)]
    assert len(evaluate([rule], memories, SCHEMAS, date(2026, 1, 20))) == 1
    assert os.listdir(tmp_path) == []


def test_focus_gives_only_the_findings_those_memories_take_part_in():
    rule = compile_rule("p", PASSPORT_RULE, SCHEMAS)
    memories = [memory(1, "passport", country="US", expires="2026-04-02"),
                memory(2, "trip", departs="2026-03-10", international=True),
                memory(3, "trip", departs="2026-03-20", international=True),
                memory(4, "passport", user="bob", country="US", expires="2026-04-02"),
                memory(5, "trip", user="bob", departs="2026-03-10", international=True)]
    everything = evaluate([rule], memories, SCHEMAS, date(2026, 1, 20))
    assert [f.memories for f in everything] == [["00000001", "00000002"], ["00000004", "00000005"],
                                                ["00000001", "00000003"]]
    for focus in ({"00000002"}, {"00000001"}, {"00000003", "00000005"}, set()):
        focused = evaluate([rule], memories, SCHEMAS, date(2026, 1, 20), focus)
        assert focused == [f for f in everything if focus.intersection(f.memories)]
