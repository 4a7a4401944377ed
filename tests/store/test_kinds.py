"""Kinds and checks read from their files: shipped, the directory's folders, memctl.toml; errors
reported with file and line, hostile files skipped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memctl.config import Config, parse_config
from memctl.store.kinds import KindFiles, key_lines, parse_tables, table_line


def test_shipped_kinds_and_rules_read_cleanly(tmp_path):
    files = KindFiles(tmp_path, Config())
    assert {"passport", "trip", "medication", "allergy", "birthday", "anniversary", "contract", "warranty",
            "task"} <= set(files.schemas)
    names = {r.name for r in files.rules}
    assert {"passport_before_trip", "medication_allergy", "birthday_upcoming", "anniversary_upcoming",
            "contract_ending", "warranty_expiring", "task_deadline"} <= names
    assert files.drain_problems() == []


def test_toml_errors_name_file_and_line():
    tables, problems = parse_tables('[a]\nkinds = ["x"]\n\n[b]\nwhen = "unterminated\n', "checks/x.toml")
    assert tables == [] and problems[0].startswith("checks/x.toml:5: not valid TOML")


def test_lines_of_tables_and_settings():
    text = '# c\n\n[first]\nkinds = ["a"]\n\n  [second]\n  when = "x"\n  message = "y"\n'
    assert table_line(text, "first") == 3 and table_line(text, "second") == 6
    assert key_lines(text, 6) == {"when": 7, "message": 8}
    assert table_line('[checks.gym]\nwhen = "x"\n', "gym", "checks") == 1


def test_directory_files_override_shipped_and_config_overrides_files(tmp_path):
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "mine.toml").write_text('[passport]\nfields = { expires = "date" }\n')
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "off.toml").write_text('[birthday_upcoming]\nenabled = false\n')
    config_text = '[checks.gym]\nkinds = ["gym"]\nwhen = "true"\nmessage = "m"\n'
    (tmp_path / "memctl.toml").write_text(config_text)
    files = KindFiles(tmp_path, parse_config(config_text))
    assert list(files.schemas["passport"].fields) == ["expires"]
    by_name = {r.name: r for r in files.rules}
    assert by_name["birthday_upcoming"].table == {"enabled": False} and by_name["birthday_upcoming"].file == "checks/off.toml"
    assert by_name["gym"].where("when") == "memctl.toml:3"


def test_bad_schemas_are_reported_and_left_out(tmp_path):
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "bad.toml").write_text(
        '[ok]\nfields = { a = "date" }\n\n[wrong]\nfields = { a = "datetime" }\n\n[today]\nfields = {}\n')
    files = KindFiles(tmp_path, Config())
    assert "ok" in files.schemas and "wrong" not in files.schemas and "today" not in files.schemas
    problems = files.drain_problems()
    assert any(p.startswith("schemas/bad.toml:4: kind 'wrong': fields.a.type: unknown field type") for p in problems)
    assert any(p.startswith("schemas/bad.toml:7: kind 'today'") for p in problems)


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_symlinks_and_oversized_files_are_skipped(tmp_path: Path):
    outside = tmp_path / "outside.toml"
    outside.write_text('[secret]\nkinds = ["trip"]\nwhen = "true"\nmessage = "read from outside"\n')
    root = tmp_path / "mem"
    (root / "checks").mkdir(parents=True)
    (root / "checks" / "link.toml").symlink_to(outside)
    (root / "checks" / "big.toml").write_text("# " + "x" * (300 * 1024) + "\n")
    files = KindFiles(root, Config())
    assert "secret" not in {r.name for r in files.rules}
    problems = files.drain_problems()
    assert any("checks/link.toml:1: skipped: not a regular file" in p for p in problems)
    assert any("checks/big.toml:1: skipped: larger than 256 KiB" in p for p in problems)


def test_an_edited_rule_file_is_read_again(store):
    store.add_raw("Trip to Oslo", user="alice", kind="trip", fields={"departs": "2026-02-01"})
    assert store.check(at="2026-01-20").findings == []
    (store.root / "checks").mkdir()
    rule = store.root / "checks" / "soon.toml"
    rule.write_text('[trip_soon]\nkinds = ["trip"]\nwhen = "trip.departs within 14 days"\nmessage = "{when}"\n')
    assert [f.message for f in store.check(at="2026-01-20").findings] == ["in 12 days"]
    rule.write_text('[trip_soon]\nkinds = ["trip"]\nwhen = "trip.departs within 7 days"\nmessage = "{when}!"\n')
    os.utime(rule, ns=(1, 1))  # a rewrite within the same clock tick still changes the size or mtime
    assert store.check(at="2026-01-20").findings == []
    assert [f.message for f in store.check(at="2026-01-27").findings] == ["in 5 days!"]


def test_the_kinds_filter_picks_typed_memories_from_the_catalog(store):
    from memctl import clock
    from memctl.store.filters import MemoryFilter

    trip = store.add_raw("Trip to Oslo", user="alice", kind="trip", fields={"departs": "2026-02-01"})
    store.add_raw("Alice likes tea", user="alice")
    passport = store.add_raw("Bob's passport", user="bob", kind="passport", fields={"expires": "2030-01-01", "country": "US"})
    pick = lambda **kw: set(store.repo.candidates(MemoryFilter(**kw), clock.now()))  # noqa: E731
    assert pick(kinds=("trip",)) == {trip.id}
    assert pick(kinds=("trip", "passport")) == {trip.id, passport.id}
    assert pick(kinds=("passport",), users=("alice",)) == set()


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
@pytest.mark.parametrize("folder", ["schemas", "checks", "recognisers"])
def test_a_rule_folder_that_is_a_link_is_skipped_and_reported(tmp_path: Path, folder: str):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.toml").write_text('[kite]\nfields = { name = "text" }\n'
                                    '[kite_soon]\nkinds = ["trip"]\nwhen = "true"\nmessage = "read from outside"\n')
    root = tmp_path / "mem"
    root.mkdir()
    (root / folder).symlink_to(outside, target_is_directory=True)
    files = KindFiles(root, Config())
    assert "kite" not in files.schemas and "kite_soon" not in {r.name for r in files.rules}
    files.typing  # noqa: B018 - the recognisers are read on first use
    assert any(p.startswith(f"{folder}:1: skipped: a symbolic link") for p in files.drain_problems())



@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_doctor_names_a_linked_rule_folder_and_a_linked_rule_file(tmp_path: Path):
    from memctl.api import MemoryStore
    from memctl.store.directory import init_directory

    root = tmp_path / "mem"
    init_directory(root)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "x.toml").write_text("")
    (root / "schemas").symlink_to(tmp_path / "outside", target_is_directory=True)
    (root / "checks").mkdir()
    (root / "checks" / "x.toml").symlink_to(tmp_path / "outside" / "x.toml")
    found = {(p["kind"], p["path"]) for p in MemoryStore(root).doctor()["problems"]}
    assert {("symlink", "schemas"), ("symlink", "checks/x.toml")} <= found
