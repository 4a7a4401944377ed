"""Documentation stays true: every command has help text and is in the README; Quick start shape."""

from __future__ import annotations

import re

from memctl.cli.app import app
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def command_names() -> list[str]:
    return [c.name or c.callback.__name__ for c in app.registered_commands]


def test_every_command_has_help_and_is_documented() -> None:
    for command in app.registered_commands:
        name = command.name or command.callback.__name__
        assert (command.callback.__doc__ or "").strip(), f"{name} has no help text"
        assert f"memctl {name}" in README, f"{name} is missing from README.md"


def test_quick_start_is_two_lines_in_one_block() -> None:
    match = re.search(r"^## Quick start\n+```[a-z]*\n(.*?)```", README, re.S | re.M)
    assert match, "no Quick start code block"
    lines = [line for line in match.group(1).splitlines() if line.strip()]
    assert len(lines) == 2
    assert "sample_memories" in lines[0] and "pytest" in lines[1]


def test_exit_codes_are_documented() -> None:
    for code in range(5):
        assert re.search(rf"^\| {code} \|", README, re.M)


def test_template_copies_are_identical() -> None:
    assert (ROOT / "MEMORY.md.template").read_bytes() == (ROOT / "memctl" / "data" / "MEMORY.md.template").read_bytes()


def test_sample_indexes_are_golden_and_within_budget(samples) -> None:
    """`memctl index --all` on sample_memories reproduces the committed MEMORY.md files."""
    from tests.helpers import cli_json

    code, out = cli_json(samples, "--now", "2026-11-30T12:00:00Z", "index", "--all")
    assert code == 0
    owners = {p.parent.relative_to(ROOT / "sample_memories").as_posix()
              for p in (ROOT / "sample_memories").glob("*/*/*.md") if p.parts[-3] != "archive"}
    assert {i["path"] for i in out["data"]["indexes"]} == {f"{o}/MEMORY.md" for o in owners if not o.startswith("archive")}
    for entry in out["data"]["indexes"]:
        text = (samples / entry["path"]).read_bytes()
        assert len(text) <= 25_000 and text.count(b"\n") <= 200
        assert text == (ROOT / "sample_memories" / entry["path"]).read_bytes(), entry["path"]
