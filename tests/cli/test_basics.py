"""CLI wiring for the everyday commands, the output contract, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import cli, cli_json, tree_bytes

ENVELOPE_KEYS = {"version", "command", "ok", "data", "errors"}


def add(root: Path, text: str, *extra: str) -> dict:
    code, out = cli_json(root, "add", text, *extra)
    assert code == 0, out
    return out["data"]["memory"]


def test_init_then_add_creates_one_greppable_file(tmp_path: Path) -> None:
    root = tmp_path / "D"
    assert cli(None, "init", str(root)).exit_code == 0
    code, out = cli_json(root, "add", "Alice prefers window seats on flights", "--user", "alice", "--type", "preference")
    assert code == 0 and set(out) == ENVELOPE_KEYS and out["ok"] is True and out["command"] == "add"
    files = list((root / "users" / "alice").glob("*.md"))
    assert len(files) == 1 and out["data"]["memory"]["path"] == f"users/alice/{files[0].name}"
    text = files[0].read_text()
    for field in ("id", "type", "scope", "user", "confidence", "source", "status", "created", "updated"):
        assert f"\n{field}: " in text
    grep = subprocess.run(["grep", "-rl", "window seats", str(root / "users")], capture_output=True, text=True)
    assert grep.stdout.strip() == str(files[0])


def test_init_is_idempotent_and_never_overwrites(tmp_path: Path) -> None:
    root = tmp_path / "D"
    cli(None, "init", str(root))
    (root / "memctl.toml").write_text("# mine\n")
    code, out = cli_json(None, "init", str(root))
    assert code == 0 and out["data"]["created"] == []
    assert (root / "memctl.toml").read_text() == "# mine\n"
    assert (root / ".gitignore").read_text().strip().endswith(".memctl/")
    for folder in ("users", "projects", "archive"):
        assert (root / folder).is_dir()


def test_directory_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "D"
    cli(None, "init", str(root))
    add(root, "Bob drinks his coffee black", "--user", "bob", "--type", "habit")
    nested = root / "users" / "bob"
    monkeypatch.chdir(nested)
    code, out = cli_json(None, "list")
    assert code == 0 and out["data"]["count"] == 1
    monkeypatch.chdir(tmp_path)
    code, out = cli_json(None, "list", env={"MEMCTL_DIR": str(root)})
    assert code == 0 and out["data"]["count"] == 1
    code, out = cli_json(None, "list")
    assert code == 1 and out["ok"] is False and "memctl init" in out["errors"][0]["message"]


def test_list_filters_and_sorts(memdir: Path) -> None:
    add(memdir, "Alice is vegetarian", "--user", "alice", "--type", "fact", "--tag", "food")
    add(memdir, "Alice codes in Rust", "--user", "alice", "--type", "skill")
    add(memdir, "The shop uses PostgreSQL 16", "--project", "shop", "--type", "decision")
    assert cli_json(memdir, "list", "--user", "alice")[1]["data"]["count"] == 2
    assert cli_json(memdir, "list", "--project", "shop")[1]["data"]["count"] == 1
    assert [m["type"] for m in cli_json(memdir, "list", "--tag", "food")[1]["data"]["memories"]] == ["fact"]
    types = [m["type"] for m in cli_json(memdir, "list", "--sort", "type")[1]["data"]["memories"]]
    assert types == sorted(types)
    code, out = cli_json(memdir, "list", "--sort", "bogus")
    assert code == 2 and out["errors"][0]["code"] == "bad_sort"
    assert len(cli(memdir, "list").stdout.splitlines()) == 3  # piped: one tab-separated line per memory


def test_show_edit_forget_restore_history_keep_unknown_keys(memdir: Path) -> None:
    memory = add(memdir, "Alice prefers window seats on flights", "--user", "alice", "--type", "preference")
    path = memdir / memory["path"]
    path.write_text(path.read_text().replace("---\nAlice", "favourite_colour: teal\n---\nAlice"))
    original = path.read_bytes()
    code, out = cli_json(memdir, "show", memory["id"])
    assert code == 0 and out["data"]["memory"]["favourite_colour"] == "teal"
    code, out = cli_json(memdir, "forget", memory["id"], "--reason", "test")
    archived = memdir / out["data"]["memory"]["path"]
    assert code == 0 and not path.exists() and archived.exists() and "favourite_colour: teal" in archived.read_text()
    assert "status: forgotten" in archived.read_text()
    code, out = cli_json(memdir, "restore", memory["id"])
    assert code == 0 and path.read_bytes() == original and not archived.exists()
    code, out = cli_json(memdir, "edit", memory["id"], "--set", "confidence=0.8", "--set", "tags=[travel, seats]")
    assert code == 0 and "favourite_colour: teal" in path.read_text() and "tags: [travel, seats]" in path.read_text()
    code, out = cli_json(memdir, "edit", memory["id"], "--body", "-", input="Alice prefers aisle seats now.\n")
    assert code == 0 and path.read_text().endswith("Alice prefers aisle seats now.\n")
    ops = [e["op"] for e in cli_json(memdir, "history", memory["id"])[1]["data"]["entries"]]
    assert ops == ["add", "forget", "restore", "edit", "edit"]


def test_edit_is_validated_before_saving(memdir: Path) -> None:
    memory = add(memdir, "Alice is vegetarian", "--user", "alice")
    before = tree_bytes(memdir)
    for bad, code_name in ((["--set", "type=nonsense"], "unknown_type"), (["--set", "confidence=2"], "invalid_memory"),
                           (["--set", "id=deadbeef"], "immutable_field"), (["--set", "novalue"], "bad_set"),
                           (["--body", ""], "empty_content")):
        code, out = cli_json(memdir, "edit", memory["id"], *bad)
        assert code == 2 and out["errors"][0]["code"] == code_name, (bad, out)
    assert tree_bytes(memdir) == before


def test_edit_with_editor(memdir: Path, tmp_path: Path) -> None:
    memory = add(memdir, "Alice is vegetarian", "--user", "alice")
    script = tmp_path / "ed.sh"
    script.write_text("#!/bin/sh\necho 'Alice is vegan.' > \"$1\"\n")
    script.chmod(0o755)
    code, out = cli_json(memdir, "edit", memory["id"], env={"EDITOR": str(script)})
    assert code == 0 and out["data"]["memory"]["content"] == "Alice is vegan."


@pytest.mark.parametrize("bad_id", ["../x", "/etc/passwd", "users/alice", "a\x00b", "ZZZZ", "..", ""])
@pytest.mark.parametrize("command", ["show", "forget", "restore", "history", "edit"])
def test_path_traversal_in_ids_is_refused(memdir: Path, command: str, bad_id: str) -> None:
    add(memdir, "Alice is vegetarian", "--user", "alice")
    before = tree_bytes(memdir)
    extra = ["--set", "confidence=0.5"] if command == "edit" else []
    code, out = cli_json(memdir, command, bad_id, *extra)
    assert code == 2 and out["errors"][0]["code"] == "invalid_id"
    assert "\n" not in out["errors"][0]["message"]
    assert tree_bytes(memdir) == before


@pytest.mark.parametrize("args", [["--user", "../evil"], ["--user", "a/b"], ["--project", "/etc"], ["--session", "x\x00"]])
def test_path_traversal_in_names_is_refused(memdir: Path, args: list[str]) -> None:
    before = tree_bytes(memdir)
    code, out = cli_json(memdir, "add", "Alice is vegetarian", *args)
    assert code == 2 and not out["ok"]
    assert tree_bytes(memdir) == before


def test_bad_input_has_documented_codes_and_changes_nothing(memdir: Path) -> None:
    before = tree_bytes(memdir)
    cases = [
        (["add", "", "--user", "alice"], 2, "empty_content"),
        (["add", "   ", "--user", "alice"], 2, "empty_content"),
        (["add", "Alice likes tea", "--user", "alice", "--type", "weird"], 2, "unknown_type"),
        (["add", "Alice likes tea"], 2, "no_owner"),
        (["add", "Alice likes tea", "--user", "alice", "--ttl", "soon"], 2, "bad_duration"),
        (["show", "deadbeef"], 4, "not_found"),
    ]
    for args, exit_code, code_name in cases:
        code, out = cli_json(memdir, *args)
        assert (code, out["errors"][0]["code"]) == (exit_code, code_name), args
    code, out = cli_json(memdir, "add", "-", "--user", "alice", input=b"\xff\xfe not utf8")
    assert code == 2 and out["errors"][0]["code"] == "not_utf8"
    assert tree_bytes(memdir) == before


def test_broken_files_are_reported_and_skipped(memdir: Path) -> None:
    good = add(memdir, "Alice is vegetarian", "--user", "alice")
    folder = memdir / "users" / "alice"
    (folder / "broken-yaml.md").write_text("---\nid: [oops\n---\nbody\n")
    (folder / "missing-fields.md").write_text("---\nid: 0a0b0c0d\n---\nbody\n")
    (folder / "bad-type.md").write_text((memdir / good["path"]).read_text().replace("type: fact", "type: 42").replace(good["id"], "0f0f0f0f"))
    (folder / "binary.md").write_bytes(b"---\nid: \xff\xfe\n---\n")
    result = cli(memdir, "list", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["data"]["count"] == 1
    for name in ("broken-yaml.md", "missing-fields.md", "binary.md"):
        assert name in result.stderr
    assert len([line for line in result.stderr.splitlines() if "skipped broken file" in line]) >= 3
    assert cli_json(memdir, "stats")[1]["data"]["broken"] >= 3
    assert cli_json(memdir, "recall", "vegetarian")[1]["data"]["hits"][0]["id"] == good["id"]


def test_stats_and_ttl(memdir: Path) -> None:
    add(memdir, "Alice is in a planning session today", "--user", "alice", "--type", "context", "--ttl", "1d")
    add(memdir, "Alice is vegetarian", "--user", "alice")
    code, out = cli_json(memdir, "stats")
    assert code == 0 and out["data"]["active"] == 2 and out["data"]["by_type"] == {"context": 1, "fact": 1}
    later = cli_json(memdir, "--now", "2099-01-01T00:00:00Z", "stats")[1]["data"]
    assert later["expired"] == 1


def test_usage_error_is_exit_2_with_json_envelope(memdir: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "memctl", "-d", str(memdir), "list", "--bogus", "--json"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["errors"][0]["code"] == "usage"
    proc = subprocess.run([sys.executable, "-m", "memctl", "-d", str(memdir), "list", "--bogus"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr


def test_doctor_reports_problems_and_fixes_temp_files(memdir: Path) -> None:
    import os
    import time

    memory = add(memdir, "Alice is vegetarian", "--user", "alice")
    assert cli_json(memdir, "doctor")[0] == 0
    (memdir / "users" / "alice" / "bad.md").write_text("---\nid: [x\n---\nbody\n")
    misplaced = memdir / "users" / "bob" / Path(memory["path"]).name
    misplaced.parent.mkdir(parents=True)
    misplaced.write_text((memdir / memory["path"]).read_text().replace(memory["id"], "0badc0de"))
    tmp = memdir / "users" / "alice" / ".x.md.tmp"
    tmp.write_text("half")
    code, out = cli_json(memdir, "doctor")
    assert code == 1 and {p["kind"] for p in out["data"]["problems"]} == {"broken", "misplaced", "temp_file"}
    old = time.time() - 3600
    os.utime(tmp, (old, old))
    code, out = cli_json(memdir, "doctor", "--fix")
    assert not tmp.exists() and out["data"]["removed"] == ["users/alice/.x.md.tmp"]


def test_version_and_library_entry_points(memdir: Path) -> None:
    import memctl

    result = cli(None, "--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"memctl {memctl.__version__}"
    store = memctl.open(memdir)
    written = store.add("Alice prefers window seats on flights", type="preference", user="alice")
    assert written.decision.action == "add" and written.memory.path.startswith("users/alice/")
    assert [h.id for h in memctl.open(memdir).recall("window seat", users=["alice"]).hits] == [written.memory.id]


@pytest.mark.parametrize(("argv", "expected"), [
    (["-d", "x", "list", "--json"], "list"),
    (["--now", "2026-01-01", "recall", "list"], "recall"),
    (["--dir=x", "stats"], "stats"),
    (["-d", "list"], None),          # "list" is the directory here: keep everything
    (["--help"], None),
    (["bogus"], None),
])
def test_only_the_invoked_command_is_built(argv: list[str], expected: str | None) -> None:
    from memctl.cli.main import invoked_command

    assert invoked_command(argv) == expected


def test_the_command_table_matches_the_command_modules() -> None:
    from importlib import import_module

    from memctl.cli.main import GROUPS

    for _, module_name, names in GROUPS:
        module = import_module(f"memctl.cli.commands.{module_name}")
        assert tuple(name for name, _ in module.COMMANDS) == names, module_name


def test_a_run_imports_only_its_own_command_module(memdir: Path) -> None:
    code = ("import sys; from memctl.cli.main import main\n"
            "try: main(['-d', sys.argv[1], 'list', '--json'])\n"
            "except SystemExit: pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('memctl.cli.commands.')))")
    out = subprocess.run([sys.executable, "-c", code, str(memdir)], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "['memctl.cli.commands.memories']"


def test_add_sets_a_visibility_and_refuses_an_unknown_one(tmp_path: Path) -> None:
    root = tmp_path / "D"
    cli(None, "init", str(root))
    memory = add(root, "Alice keeps her diary in a blue notebook", "-u", "alice", "--visibility", "owner_only")
    assert memory["visibility"] == "owner_only"
    code, out = cli_json(root, "add", "Alice likes plums a lot", "-u", "alice", "--visibility", "everyone")
    assert code == 2 and out["errors"][0]["code"] == "bad_visibility" and "owner_only" in out["errors"][0]["message"]


def test_init_creates_the_directory_named_by_the_global_dir_option(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli(None, "-d", str(tmp_path / "D"), "init").exit_code == 0
    assert (tmp_path / "D" / "memctl.toml").is_file() and not (tmp_path / "memctl.toml").exists()


def test_init_refuses_a_dir_and_a_global_dir_that_differ(tmp_path: Path) -> None:
    result = cli(None, "-d", str(tmp_path / "A"), "init", str(tmp_path / "B"))
    assert result.exit_code == 2 and "two directories" in result.output
    assert not (tmp_path / "A").exists() and not (tmp_path / "B").exists()


@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_directory_option_is_bad_input_not_the_working_directory(tmp_path: Path, monkeypatch, empty: str) -> None:
    # `memctl -d "$UNSET_VAR" init` must not initialise (or read) whatever directory the shell is in
    monkeypatch.chdir(tmp_path)
    result = cli(None, "-d", empty, "init")
    assert result.exit_code == 2 and "--dir: an empty directory name" in result.stderr
    assert list(tmp_path.iterdir()) == []
