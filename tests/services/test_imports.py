"""Import: line parsing, type mapping, per-line outcomes through the write path, and the CLI contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memctl.config import PRESETS
from memctl.services.imports import parse_line, parse_lines, resolve_type
from tests.helpers import cli, cli_json


@pytest.mark.parametrize("line, expected", [
    ('{"content": "Alice likes tea", "type": "preference"}', {"content": "Alice likes tea", "type": "preference"}),
    ('{"content": "x y z", "tags": "food", "confidence": 0.8}', {"tags": ["food"], "confidence": 0.8, "type": "fact"}),
    ('{"content": "x y z", "unknown": 1, "key": "a.b"}', {"key": "a.b"}),
    ("[fact] Alice lives in Berlin", {"content": "Alice lives in Berlin", "type": "fact", "subtype": None}),
    ("[profile:name] Alice Smith", {"content": "Alice Smith", "type": "profile", "subtype": "name"}),
    ("[ event : trip ] Went to Rome", {"type": "event", "subtype": "trip", "content": "Went to Rome"}),
])
def test_parse_line(line: str, expected: dict) -> None:
    cand = parse_line(line).model_dump()
    assert {k: cand[k] for k in expected} == expected


@pytest.mark.parametrize("line, message", [
    ("{bad json", "not valid JSON"),
    ('{"type": "fact"}', "content"),
    ('{"content": "   "}', "content is empty"),
    ('{"content": "ok text", "confidence": "high"}', "confidence"),
    ('{"content": "ok text", "tags": 5}', "tags"),
    ("just some words", "expected a JSON object or '[type] content'"),
    ("[fact]", "content"),
    ('["a", "b"]', "expected a JSON object or '[type] content'"),
])
def test_parse_line_rejects_malformed(line: str, message: str) -> None:
    with pytest.raises(ValueError, match=None) as info:
        parse_line(line)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_parse_lines_skips_blanks_and_comments_and_keeps_line_numbers() -> None:
    parsed = parse_lines("# header\n\n[fact] one two three\nnonsense\n")
    assert [n for n, _ in parsed] == [3, 4]
    assert isinstance(parsed[1][1], str)


@pytest.mark.parametrize("name, configured, expected", [
    ("fact", PRESETS["default"], ("fact", None)),
    ("profile", PRESETS["default"], ("fact", "profile")),
    ("relation", PRESETS["default"], ("fact", "relation")),
    ("topic", PRESETS["default"], ("context", "topic")),
    ("feedback", PRESETS["default"], ("preference", "feedback")),
    ("project", PRESETS["default"], ("context", "project")),
    ("user", PRESETS["claude"], ("user", None)),          # configured names are never mapped
    ("profile", PRESETS["claude"], ("profile", None)),    # alias target not configured: left to be refused
    ("banana", PRESETS["default"], ("banana", None)),
])
def test_resolve_type(name: str, configured: tuple, expected: tuple) -> None:
    assert resolve_type(name, configured) == expected


def test_import_mixed_formats_with_defaults(store) -> None:
    text = "\n".join([
        json.dumps({"content": "Alice lives in Lisbon", "type": "fact", "key": "home.city", "tags": ["home"]}),
        "[preference] Alice prefers window seats on flights",
        "[profile:job] Alice works as a product designer",
        json.dumps({"content": "Bob drinks his coffee black", "type": "habit", "user": "bob", "source": "chat"}),
    ])
    report = store.import_text(text, user="alice")
    assert report.counts == {"added": 4, "updated": 0, "superseded": 0, "skipped": 0, "refused": 0}
    by_line = {item.line: store.get(item.id) for item in report.items}
    assert by_line[1].key == "home.city" and by_line[1].tags == ["home"] and by_line[1].source == "import"
    assert (by_line[3].type, by_line[3].subtype) == ("fact", "job")
    assert by_line[4].user == "bob" and by_line[4].source == "chat" and by_line[4].type == "habit"
    assert all(store.is_active(m) for m in by_line.values())


def test_import_reports_every_outcome(store) -> None:
    store.add("Alice lives in Lisbon", type="fact", user="alice", key="home.city")
    text = "\n".join([
        "[fact] Alice lives in Lisbon",                                   # 1 repeat -> skipped
        json.dumps({"content": "Alice lives in Berlin", "key": "home.city"}),   # 2 same key -> superseded
        "[banana] Alice likes bananas",                                   # 3 unknown type
        json.dumps({"content": "Alice maybe likes opera", "confidence": 0.2}),  # 4 low confidence
        "{not json",                                                      # 5 malformed
        json.dumps({"content": "Alice has a cat named Miso", "user": "../x"}),  # 6 invalid name
    ])
    report = store.import_text(text, user="alice")
    outcome = {i.line: (i.outcome, i.codes) for i in report.items}
    assert outcome[1] == ("skipped", ["duplicate"])
    assert outcome[2] == ("superseded", [])
    assert outcome[3] == ("refused", ["unknown_type"])
    assert outcome[4] == ("refused", ["low_confidence"])
    assert outcome[5] == ("refused", ["malformed"])
    assert outcome[6][0] == "refused"
    assert report.counts == {"added": 0, "updated": 0, "superseded": 1, "skipped": 1, "refused": 4}
    assert [m.body for m in store.active()] == ["Alice lives in Berlin"]


def test_import_without_owner_is_refused_per_line(store) -> None:
    report = store.import_text("[fact] Somebody likes tea\n")
    assert report.items[0].outcome == "refused" and report.items[0].codes == ["no_owner"]


def test_claude_preset_maps_nothing_it_does_not_know(memdir: Path) -> None:
    from memctl.api import MemoryStore

    config = memdir / "memctl.toml"
    config.write_text(config.read_text().replace('preset = "default"', 'preset = "claude"'))
    report = MemoryStore(memdir).import_text("[feedback] Alice wants terse answers\n[fact] Alice likes tea\n",
                                             user="alice")
    assert [(i.outcome, i.codes) for i in report.items] == [("added", []), ("refused", ["unknown_type"])]


# -- CLI ---------------------------------------------------------------------------------------
def test_cli_import_file_json_and_exit_codes(memdir: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("[fact] Alice lives in Porto\n[preference] Alice likes green tea\n", encoding="utf-8")
    code, out = cli_json(memdir, "import", str(source), "--user", "alice", "--session", "s9", "--source", "crm")
    assert code == 0 and out["ok"] is True
    assert out["data"]["counts"]["added"] == 2
    item = out["data"]["items"][0]
    assert set(item) == {"line", "outcome", "decision", "id", "codes", "message"}
    code, out = cli_json(memdir, "list", "--user", "alice")
    assert {(m["source"], m.get("session")) for m in out["data"]["memories"]} == {("crm", "s9")}


def test_cli_import_refusal_exits_3_with_the_whole_summary(memdir: Path) -> None:
    code, out = cli_json(memdir, "import", "-", "--user", "alice",
                         input="[fact] Alice lives in Porto\n[nope] Alice is tall\nbroken line\n")
    assert code == 3 and out["ok"] is False
    assert out["errors"][0]["code"] == "refused" and "2 of 3" in out["errors"][0]["message"]
    assert [(i["line"], i["outcome"]) for i in out["data"]["items"]] == [(1, "added"), (2, "refused"), (3, "refused")]
    result = cli(memdir, "import", "-", "--user", "alice", input="[nope] Alice is tall\n")
    assert result.exit_code == 3 and "unknown_type" in result.stdout
    assert result.stderr.strip().count("\n") == 0 and "refused" in result.stderr


def test_cli_import_non_utf8_is_a_one_line_usage_error(memdir: Path) -> None:
    result = cli(memdir, "import", "-", "--user", "alice", input=b"[fact] caf\xe9 au lait\n")
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0 and "UTF-8" in result.stderr


def test_cli_import_missing_file_is_a_usage_error(memdir: Path, tmp_path: Path) -> None:
    result = cli(memdir, "import", str(tmp_path / "nope.jsonl"), "--user", "alice")
    assert result.exit_code == 2 and "cannot read" in result.stderr


def test_a_candidate_without_a_type_takes_the_presets_first_type(tmp_path: Path) -> None:
    from memctl.api import MemoryStore
    from memctl.store.directory import init_directory

    init_directory(tmp_path / "c", "claude")
    report = MemoryStore(tmp_path / "c").import_text('{"content": "The user reviews pull requests in the morning"}')
    assert report.counts["added"] == 1
    assert MemoryStore(tmp_path / "c").list()[0].type == "user"


def test_imported_lines_keep_their_own_times_and_names(store) -> None:
    lines = "\n".join([
        '{"content": "Alice moved to Lisbon in spring", "user": "alice", "created": "2024-03-01T10:00:00+02:00"}',
        '{"content": "Bob plays the cello every evening", "user": "bob", "createdAt": 1}',
        '{"content": "Carol likes '
        'hiking in the Alps", "user": "carol", "updated": 1709287200000, "name": "Hiking", "description": "Alps"}',
    ])
    report = store.import_text(lines)
    assert report.counts["added"] == 3, report.to_data()
    by_user = {m.user: m for m in store.list()}
    assert by_user["alice"].created.isoformat() == "2024-03-01T08:00:00+00:00" == by_user["alice"].updated.isoformat()
    assert by_user["carol"].created.isoformat() == "2024-03-01T10:00:00+00:00"
    assert (by_user["carol"].name, by_user["carol"].description) == ("Hiking", "Alps")
    assert by_user["bob"].created.year >= 2026  # an unknown key (createdAt) is ignored: now


def test_add_takes_a_name_and_a_description(memdir: Path) -> None:
    code, out = cli_json(memdir, "add", "Alice prefers window seats", "--user", "alice", "--name", "Seats",
                         "--description", "Window, always")
    assert code == 0 and (out["data"]["memory"]["name"], out["data"]["memory"]["description"]) == ("Seats", "Window, always")


def _moves(users: tuple[str, ...] = ("alice", "bob")) -> str:
    """Each user's cities and employers, one after another, then a change of each: keyed, so later
    lines supersede earlier ones whatever the model, and a repeat of an earlier line."""
    lines = []
    for user in users:
        name = user.capitalize()
        lines += [(f"{name} lives in {city}", "home.city") for city in ("Berlin", "Lisbon", "Porto", "Madrid")]
        lines += [(f"{name} works at {firm} as an engineer", "work.employer") for firm in ("Siemens", "Bosch", "SAP")]
        lines += [(f"{name} no longer works at Siemens", None), (f"{name} moved to Lisbon", "home.city"),
                  (f"{name} lives in Berlin", None), (f"{name} lives in Porto", None), (f"{name} no longer works at Siemens", None)]
    return "\n".join(json.dumps({"content": text, "user": text.split()[0].lower(), "key": key}) for text, key in lines)


def _all(store) -> list[tuple]:
    return sorted((m.id, m.status, m.body, tuple(m.conflicts_with)) for m in store.repo.all_memories())


def test_a_second_run_of_an_import_adds_nothing(store) -> None:
    """Lines that later lines of the same input superseded, merged or repeated are known too."""
    first = store.import_text(_moves())
    assert first.counts["superseded"] + first.counts["skipped"] > 0, first.counts  # the case this is about
    before = _all(store)
    again = store.import_text(_moves())
    assert _all(store) == before
    assert [(i.outcome, i.codes) for i in again.items] == [("skipped", ["already_imported"])] * 24
    assert {i.id for i in again.items} <= {m[0] for m in before}


def test_an_import_of_new_lines_after_one_imported_before_decides_them(store) -> None:
    store.import_text(_moves(("alice",)))
    report = store.import_text(_moves(("alice",)) + "\n" + json.dumps({"content": "Alice moved to Oslo", "user": "alice"}))
    assert [i.outcome for i in report.items[:-1]] == ["skipped"] * 12
    assert report.items[-1].outcome in ("superseded", "added") and report.items[-1].codes == []
    assert "Alice moved to Oslo" in [m.body for m in store.list(user="alice")]


def test_a_dated_line_states_a_new_fact_when_its_time_is_new(store) -> None:
    line = {"content": "Alice lives in Berlin", "user": "alice", "created": "2024-01-01T00:00:00Z"}
    assert store.import_text(json.dumps(line)).items[0].outcome == "added"
    assert store.import_text(json.dumps(line)).items[0].codes == ["already_imported"]
    later = store.import_text(json.dumps({**line, "created": "2025-01-01T00:00:00Z"})).items[0]
    assert later.codes != ["already_imported"]


def test_cli_import_from_jsonl_twice_takes_nothing_the_second_time(memdir: Path, tmp_path: Path) -> None:
    source = tmp_path / "moves.jsonl"
    source.write_text(_moves(), encoding="utf-8")
    cli(memdir, "import", "--from", "jsonl", str(source))
    code, out = cli_json(memdir, "import", "--from", "jsonl", str(source))
    assert code == 0 and out["data"]["summary"] == {"taken": 0, "merged": 0, "already": 24, "refused": 0}


def _unlink(store, memory_id: str, other: str) -> None:
    """Take `memory_id` off `other`'s links: the state a write killed before its lock hold ended leaves
    (the new memory names the stored one; the stored one's back-link was still pending in memory)."""
    from memctl.core.models import Memory

    stored = store.repo.get(other)
    data = stored.model_dump(exclude={"path"})
    data["conflicts_with"] = [c for c in stored.conflicts_with if c != memory_id]
    with store.repo.locked():
        store.repo.rewrite(Memory(**data, path=stored.path), "link")


def _one_way(store) -> list[tuple[str, str]]:
    active = {m.id: m for m in store.repo.active()}
    return [(m.id, other) for m in active.values() for other in m.conflicts_with
            if other in active and m.id not in active[other].conflicts_with]


@pytest.mark.parametrize("how", ["import", "jsonl"])
def test_a_second_run_restores_the_links_a_killed_run_left_one_way(store, tmp_path: Path, how: str) -> None:
    text = "\n".join(json.dumps({"content": t, "user": "alice"}) for t in (
        "Alice works at Siemens as an engineer", "Alice works at Bosch as an engineer",
        "Alice lives in Berlin", "Alice works at SAP as an engineer"))

    def run() -> None:
        store.import_text(text) if how == "import" else store.import_from("jsonl", None, text=text)

    run()
    pairs = [(m.id, o) for m in store.repo.active() for o in m.conflicts_with]
    assert pairs and not _one_way(store)
    newer, older = pairs[0]
    _unlink(store, newer, older)
    assert _one_way(store) == [(newer, older)]
    run()
    assert not _one_way(store)
    assert newer in store.repo.get(older).conflicts_with


def test_a_line_whose_memory_was_forgotten_is_skipped_and_says_how_to_bring_it_back(store) -> None:
    # a forget is kept through a re-run of the import, and the report says so instead of a bare skip
    first = store.import_text("[fact] I live in Lisbon\n[fact] I work as a nurse", user="bob").items[0]
    store.forget(first.id, reason="moved to Porto")
    again = store.import_text("[fact] I live in Lisbon", user="bob").items[0]
    assert (again.outcome, again.codes, again.id) == ("skipped", ["already_imported"], first.id)
    assert f"forgotten since; `memctl restore {first.id}` brings it back" in again.message
    assert "since" not in store.import_text("[fact] I work as a nurse", user="bob").items[0].message
