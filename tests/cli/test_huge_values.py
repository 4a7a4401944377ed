"""A memory file with a value over the limits (a number of 5,000 digits: int() itself refuses it)
is reported in one line and skipped by every command, and the other memories still work (issue 21)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import cli, use_hashing_embedder

HUGE = {
    "int": "importance: " + "9" * 5000,
    "typed": "fields: {amount: -" + "1" * 4400 + "}",
    "text": "description: " + "x" * 9000,
    "list": "tags: [" + ", ".join(f"t{i}" for i in range(2000)) + "]",
}
COMMANDS = [["list"], ["recall", "tea", "--mode", "keyword"], ["recall", "tea"], ["stats"], ["doctor"],
            ["index", "--all"], ["export", "--to", "jsonl"], ["reindex"], ["compact"], ["context", "tea", "-u", "alice"],
            ["show", "1234abcd"], ["edit", "1234abcd", "--set", "confidence=0.5"], ["forget", "1234abcd"]]


def plant(memdir: Path, kind: str) -> Path:
    use_hashing_embedder(memdir)
    assert cli(memdir, "add", "Alice likes green tea", "-u", "alice").exit_code == 0
    (memdir / "users" / "alice" / "huge-1234abcd.md").write_text(
        "---\nid: 1234abcd\ntype: fact\nuser: alice\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n"
        + HUGE[kind] + "\n---\nAlice likes tea too.\n")
    return memdir


CASES = [("int", c) for c in COMMANDS] + [(kind, c) for kind in sorted(HUGE) if kind != "int"
                                          for c in (["list"], ["doctor"])]


@pytest.mark.parametrize(("kind", "command"), CASES, ids=[f"{k}-{' '.join(c[:2])}" for k, c in CASES])
def test_every_command_reports_it_in_one_line_and_goes_on(memdir: Path, kind: str, command: list[str]) -> None:
    folder = plant(memdir, kind)
    result = cli(folder, *command)  # catch_exceptions=False: a traceback fails the test
    about = [line for line in result.stderr.splitlines() if "huge-1234abcd.md" in line]
    if command[0] in ("show", "edit", "forget"):  # the skipped memory is not there to act on
        assert result.exit_code == 4, result.stderr
    elif command[0] == "doctor":
        assert result.exit_code == 1 and len(about) == 2 and "over the limits" in about[0]  # the warning and the problem
    else:
        assert result.exit_code == 0, result.stderr
        assert len(about) == 1 and about[0].startswith("memctl: warning: skipped broken file users/alice/huge-1234abcd.md: "
                                                       "frontmatter value over the limits at line "), result.stderr
    if command[0] in ("list", "recall", "export", "context"):
        assert "green tea" in result.stdout, result.stdout
    assert (folder / "users" / "alice" / "huge-1234abcd.md").exists()
