"""Ordinary input that used to end in a traceback, or to write something wrong, now gets a clear
one-line error and a documented exit code (each case is one found by hostile testing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import cli, cli_json, tree_bytes


def add(root: Path, text: str, *extra: str) -> dict:
    code, out = cli_json(root, "add", text, *extra)
    assert code == 0, out
    return out["data"]["memory"]


@pytest.mark.parametrize("ttl", ["99999999999d", "0d", "0s", "-3d", "1e400d"])
def test_out_of_range_ttls_are_usage_errors(memdir: Path, ttl: str) -> None:
    before = tree_bytes(memdir)
    code, out = cli_json(memdir, "add", "Alice is in Lisbon this week", "-u", "alice", "--ttl", ttl)
    assert code == 2 and out["errors"][0]["code"] == "bad_duration"
    assert tree_bytes(memdir) == before


def test_markup_like_text_is_text(memdir: Path, tmp_path: Path) -> None:
    add(memdir, "Alice's regex is [/x] and [bold]not bold[/bold]", "-u", "alice")
    result = cli(memdir, "recall", "[/x] zzz")
    assert result.exit_code == 0 and "Traceback" not in result.output
    listed = cli(memdir, "list")
    assert "[bold]not bold[/bold]" in listed.stdout
    made = cli(None, "init", str(tmp_path / "mem[/x]"))
    assert made.exit_code == 0 and "mem[/x]" in made.stdout


def test_terminal_escape_sequences_never_reach_the_terminal(memdir: Path) -> None:
    path = memdir / "users" / "alice" / "evil.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\nid: e0e0e0e1\ntype: fact\nuser: alice\ncreated: 2026-01-01T00:00:00Z\n"
                    "updated: 2026-01-01T00:00:00Z\n---\nAlice \x1b[2J\x1b]0;pwned\x07likes tea\n")
    for args in (["list"], ["show", "e0e0e0e1"], ["recall", "tea"], ["context", "what tea does alice like", "-u", "alice"],
                 ["context", "tea", "-u", "alice", "--format", "xml"]):
        out = cli(memdir, *args).output
        assert "\x1b" not in out and "\x07" not in out and "likes tea" in out, args
    assert cli(memdir, "index", "--user", "alice").exit_code == 0  # MEMORY.md is read with cat, and in a prompt
    index = (memdir / "users" / "alice" / "MEMORY.md").read_text()
    assert "\x1b" not in index and "\x07" not in index and "likes tea" in index


def test_bidi_controls_and_invisible_characters_are_shown_nowhere(memdir: Path) -> None:
    path = memdir / "users" / "alice" / "spoof.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    stored = ("---\nid: e0e0e0e2\ntype: fact\nuser: alice\ncreated: 2026-01-01T00:00:00Z\n"
              "updated: 2026-01-01T00:00:00Z\n---\nAlice pays rent to account \u202e9021\u202c via\u200b bank\ufeff\n")
    path.write_text(stored)
    hidden = ("\u202e", "\u202c", "\u200b", "\ufeff")
    for args in (["list"], ["show", "e0e0e0e2"], ["recall", "rent account"],
                 ["context", "where does alice pay rent", "-u", "alice"],
                 ["context", "rent", "-u", "alice", "--format", "xml"]):
        out = cli(memdir, *args).output
        assert not any(ch in out for ch in hidden) and "9021" in out, args
    assert cli(memdir, "index", "--user", "alice").exit_code == 0
    index = (memdir / "users" / "alice" / "MEMORY.md").read_text()
    assert not any(ch in index for ch in hidden) and "9021" in index
    assert path.read_text() == stored  # only what is shown changes


def test_deeply_nested_import_lines_are_refused_one_by_one(memdir: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    lines = "\n".join([json.dumps({"content": "Alice likes tea", "type": "preference", "user": "alice"}),
                       '{"content": ' + deep + "}", "[fact] Alice lives in Lisbon"])
    code, out = cli_json(memdir, "import", "-", "--user", "alice", input=lines)
    assert code == 3
    assert [i["outcome"] for i in out["data"]["items"]] == ["added", "refused", "added"]
    assert "nested deeper" in out["data"]["items"][1]["message"]


def test_forget_and_restore_onto_a_taken_file_name(memdir: Path) -> None:
    memory = add(memdir, "Alice is vegetarian", "-u", "alice")
    name = Path(memory["path"]).name
    squatter = memdir / "archive" / "users" / "alice" / name
    squatter.parent.mkdir(parents=True)
    squatter.write_text("not a memory\n")
    code, out = cli_json(memdir, "forget", memory["id"])
    assert code == 0 and out["data"]["memory"]["path"] != f"archive/users/alice/{name}"
    assert squatter.read_text() == "not a memory\n"
    (memdir / memory["path"]).write_text("squatting the active name too\n")
    code, out = cli_json(memdir, "restore", memory["id"])
    assert code == 0 and out["data"]["memory"]["path"] != memory["path"]
    assert (memdir / memory["path"]).read_text() == "squatting the active name too\n"


def test_edit_set_body_to_nothing_is_refused(memdir: Path) -> None:
    memory = add(memdir, "Alice is vegetarian", "-u", "alice")
    before = (memdir / memory["path"]).read_bytes()
    code, out = cli_json(memdir, "edit", memory["id"], "--set", "body=")
    assert code == 2 and out["errors"][0]["code"] == "empty_content"
    assert (memdir / memory["path"]).read_bytes() == before and b"None" not in before


def test_package_import_needs_no_posix_only_module() -> None:
    import ast

    from tests.helpers import ROOT

    for path in (ROOT / "memctl").rglob("*.py"):
        tree = ast.parse(path.read_text())
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        names = {a.name for n in top if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module for n in top if isinstance(n, ast.ImportFrom) and n.module}
        assert not names & {"fcntl", "termios", "pwd", "grp", "resource"}, path


@pytest.mark.parametrize("args, code", [(["query", "count"], "bad_kind"), (["query", "passport"], "bad_kind"),
                                        (["query"], "bad_query")])
def test_a_required_option_left_out_is_a_usage_error(memdir: Path, args: list[str], code: str) -> None:
    result = cli(memdir, *args)  # a TypeError traceback: the CLI's options are all optional
    assert result.exit_code == 2 and "is required" in result.output and "Traceback" not in result.output
    assert cli_json(memdir, *args)[1]["errors"][0]["code"] == code
