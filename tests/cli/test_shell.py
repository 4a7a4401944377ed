"""The shell experience (gh, git and sqlite-utils as models) and inputs that used to escape as tracebacks.

Most tests go through `main()` in a real subprocess, as a user's shell would run memctl.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, cli, cli_json, tree_bytes, use_hashing_embedder


def memctl(*args: str, input: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m memctl ARGS` in a fresh process, stdout piped (not a terminal)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80"}
    return subprocess.run([sys.executable, "-m", "memctl", *args], capture_output=True, text=True,
                          input=input, env=env, cwd=cwd, timeout=120)


@pytest.fixture
def mem(memdir: Path) -> Path:
    use_hashing_embedder(memdir)
    for text, user in (("Alice prefers window seats on long flights", "alice"),
                       ("Bob drinks his coffee black every morning", "bob")):
        assert cli(memdir, "add", text, "--user", user).exit_code == 0
    return memdir


def test_piped_output_is_plain_tab_separated_lines(mem: Path) -> None:
    out = memctl("-d", str(mem), "list").stdout
    lines = out.splitlines()
    assert len(lines) == 2 and all(len(line.split("\t")) == 6 for line in lines)
    assert not set("┃│─╭╮┏━") & set(out)
    long_text = "Carol keeps a detailed reading list of " + "very " * 40 + "long science fiction novels"
    assert cli(mem, "add", long_text, "--user", "carol").exit_code == 0
    shown = memctl("-d", str(mem), "show", memctl("-d", str(mem), "list", "-u", "carol", "-q").stdout.strip()).stdout
    assert any(line.startswith("content\t") and line.endswith("novels") for line in shown.splitlines())  # no wrapping


def test_quiet_prints_ids_only(mem: Path) -> None:
    ids = memctl("-d", str(mem), "list", "-q").stdout.split()
    _, out = cli_json(mem, "list")
    assert ids == [m["id"] for m in out["data"]["memories"]]
    hit = memctl("-d", str(mem), "recall", "window seat", "-u", "alice", "-q").stdout.split()
    assert hit and hit[0] in ids
    added = memctl("-d", str(mem), "add", "Bob plays the trumpet in a band", "-u", "bob", "-q").stdout.split()
    assert len(added) == 1 and len(added[0]) == 8


def test_help_uses_readable_metavars() -> None:
    text = memctl("recall", "--help").stdout
    assert "USER" in text and "TAG" in text and "<str>" not in text and "<list[str]>" not in text
    assert "<bool>" not in memctl("--help").stdout


def test_help_lists_commands_in_groups_in_order() -> None:
    text = memctl("--help").stdout
    panels = ["Memories", "Recall", "Many at once", "Upkeep", "Agents", "Setup"]
    positions = [text.index(p) for p in panels]
    assert positions == sorted(positions)
    assert text.index(" add ") < text.index(" list ") < text.index(" recall ") < text.index(" init ")


@pytest.mark.parametrize(("args", "option"), [(["list", "--limit", "abc"], "--limit"),
                                               (["list", "--limit", "-3"], "--limit"),
                                               (["recall", "x", "-k", "0"], "-k"),
                                               (["context", "x", "--budget", "0"], "--budget")])
def test_option_errors_name_the_option(mem: Path, args: list[str], option: str) -> None:
    done = memctl("-d", str(mem), *args)
    assert done.returncode == 2 and option in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    as_json = json.loads(memctl("-d", str(mem), *args, "--json").stdout)
    assert as_json["ok"] is False and as_json["errors"][0]["code"] == "usage" and option in as_json["errors"][0]["message"]


def test_global_options_before_or_after_the_command(mem: Path) -> None:
    after = memctl("list", "-d", str(mem), "-q")
    before = memctl("-d", str(mem), "list", "-q")
    assert after.returncode == 0 and after.stdout == before.stdout and after.stdout.strip()
    assert json.loads(memctl("--json", "-d", str(mem), "list").stdout)["command"] == "list"
    assert json.loads(memctl("list", f"--dir={mem}", "--json").stdout)["data"]["count"] == 2
    assert cli(mem, "add", "Alice is in Lisbon this week for a conference", "-u", "alice", "--ttl", "7d").exit_code == 0
    planned = json.loads(memctl("compact", "--dry-run", "--now", "2099-01-01", "-d", str(mem), "--json").stdout)
    assert planned["ok"] and "expire" in {a["kind"] for a in planned["data"]["plan"]["actions"]}
    assert not json.loads(memctl("compact", "--dry-run", "-d", str(mem), "--json").stdout)["data"]["plan"]["actions"]


def test_text_from_stdin_when_none_is_given(mem: Path) -> None:
    done = memctl("-d", str(mem), "add", "--user", "carol", "--json", input="Carol is allergic to peanuts\n")
    assert done.returncode == 0 and json.loads(done.stdout)["data"]["memory"]["content"] == "Carol is allergic to peanuts"
    recall = memctl("-d", str(mem), "recall", "-u", "carol", "-q", input="peanut allergy")
    assert recall.returncode == 0 and recall.stdout.strip()


def test_a_folder_without_memctl_toml_is_not_silently_adopted(tmp_path: Path) -> None:
    bare = tmp_path / "notes"
    bare.mkdir()
    done = memctl("-d", str(bare), "add", "Alice likes tea", "--user", "alice")
    assert done.returncode == 1 and "memctl init" in done.stderr
    assert list(bare.iterdir()) == []


def test_the_first_commands_after_init_print_no_warning(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    assert memctl("init", str(root)).returncode == 0
    use_hashing_embedder(root)
    for args in (["recall", "anything", "-u", "alice"], ["context", "hello", "-u", "alice"], ["list"], ["stats"],
                 ["index", "--all"], ["doctor"]):
        done = memctl("-d", str(root), *args)
        said = "memctl: no memories found for 'anything' (0 considered)\n" if args[0] == "recall" else ""
        assert done.returncode == 0 and done.stderr == said, (args, done.stderr)  # "nothing found": stderr


def test_shell_completion_is_offered() -> None:
    assert "--show-completion" in memctl("--help").stdout
    script = memctl("--show-completion", "bash")
    assert script.returncode == 0 and "_MEMCTL_COMPLETE" in script.stdout


# -- inputs that escaped as tracebacks ------------------------------------------------------------

@pytest.mark.parametrize("args", [["index", "--user", "../x"], ["index", "--project", "a/b"],
                                  ["recall", "x", "--user", "../../etc"], ["list", "--user", "../x"],
                                  ["compact", "--user", "a/../b"], ["log", "hi", "--user", "..", "--session", "s"]])
def test_bad_names_are_usage_errors(mem: Path, args: list[str]) -> None:
    before = tree_bytes(mem)
    done = memctl("-d", str(mem), *args)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "invalid" in done.stderr
    assert tree_bytes(mem) == before


def test_click_exceptions_map_to_exit_codes(mem: Path) -> None:
    unknown = memctl("-d", str(mem), "frobnicate")
    assert unknown.returncode == 2 and "No such command" in unknown.stderr and "Traceback" not in unknown.stderr
    missing = memctl("-d", str(mem), "show")
    assert missing.returncode == 2 and "memory_id is required" in missing.stderr
    bare = memctl()
    assert bare.returncode == 2 and "Usage" in bare.stdout + bare.stderr


def test_explain_final_is_the_row_score_after_conflict_reordering(mem: Path) -> None:
    old = cli_json(mem, "add", "Alice lives in Lisbon", "--user", "alice", "--key", "home.city")[1]
    new = cli_json(mem, "add", "Alice lives in Berlin", "--user", "alice", "--key", "home.city", "--type", "fact")[1]
    assert old["ok"] and new["ok"]
    code, out = cli_json(mem, "recall", "Alice lives", "-u", "alice", "--explain", "--status", "all")
    assert code == 0 and out["data"]["hits"]
    for hit in out["data"]["hits"]:
        assert hit["explain"]["final"] == hit["score"]


def test_library_validation_raises_memctl_errors(mem: Path) -> None:
    import memctl
    from memctl.errors import UsageError

    store = memctl.open(mem)
    for bad in ({"mode": "bad"}, {"k": 0}, {"status": "nope"}, {"users": ["../x"]}, {"colour": "red"}):
        with pytest.raises(UsageError):
            store.recall("x", **bad)
    with pytest.raises(UsageError):
        store.list(sort="size")
    with pytest.raises(UsageError):
        store.write_memory_md(users=["../x"])


def test_a_pasted_query_that_finds_nothing_is_named_by_its_start_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    assert memctl("init", str(root)).returncode == 0
    use_hashing_embedder(root)
    query = "B: where did we say the team dinner is on Friday?\n" * 400  # 20 KB: a pasted chat
    done = memctl("-d", str(root), "recall", query, "-u", "alice")  # stderr is a pipe here
    assert done.returncode == 0 and done.stderr.count("\n") == 1 and len(done.stderr) < 300
    assert done.stderr.startswith("memctl: no memories found for 'B: where did we say the team dinner")
