"""MEMORY.md hygiene (issue 24): an archived memory's line leaves a Claude Code MEMORY.md, `doctor`
reports a line whose file is gone and a MEMORY.md git left conflict-marked (both layouts), the
markers are never kept as hand-written lines, and `show ID` of a conflict-marked file says where."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import claude_folder, cli, cli_json

CONFLICT = """<<<<<<< HEAD
- [Alice's note](alice_note.md) — hand-written on one side
=======
- [Bob's note](bob_note.md) — hand-written on the other
>>>>>>> theirs
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = claude_folder(tmp_path)
    assert cli(None, "init", "--preset", "claude", str(root)).exit_code == 0
    return root


def memory_id(root: Path, path: str) -> str:
    listed = cli_json(root, "list", "--status", "all")[1]["data"]["memories"]
    return str(next(m["id"] for m in listed if m["path"] == path))


def doctor(root: Path) -> list[dict]:
    _code, out = cli_json(root, "doctor")
    return list(out["data"]["problems"])


def test_forget_takes_the_archived_files_hand_written_line_out(folder: Path) -> None:
    assert "(reference_dashboards.md)" in (folder / "MEMORY.md").read_text()
    assert cli(folder, "forget", memory_id(folder, "reference_dashboards.md")).exit_code == 0
    index = (folder / "MEMORY.md").read_text()
    assert (folder / "archive" / "reference_dashboards.md").is_file()
    assert "reference_dashboards.md" not in index
    assert "Ask before touching the on-call schedule." in index and "## Notes" in index  # other hand lines stay
    assert doctor(folder) == []


def test_compact_archiving_a_memory_takes_its_line_out_too(folder: Path) -> None:
    path = folder / "project_release_freeze.md"
    path.write_text(path.read_text().replace("type: project\n", "type: project\nexpires: 2020-01-01T00:00:00Z\n"))
    code, _out = cli_json(folder, "compact")
    assert code == 0
    assert (folder / "archive" / "project_release_freeze.md").is_file()
    assert "project_release_freeze.md" not in (folder / "MEMORY.md").read_text()


def test_doctor_reports_a_line_whose_file_is_gone(folder: Path) -> None:
    (folder / "user_role.md").unlink()
    problems = doctor(folder)
    assert {"kind": "index_link", "path": "MEMORY.md", "detail": "lists user_role.md, which is gone"} in problems


def test_a_conflict_marked_claude_index_is_reported_and_never_kept_as_hand_lines(folder: Path) -> None:
    index = folder / "MEMORY.md"
    index.write_text(index.read_text() + CONFLICT)
    for name in ("alice_note", "bob_note"):
        (folder / f"{name}.md").write_text(f"---\nname: {name}\ndescription: a note\ntype: reference\n---\nA note.\n")
    kinds = [p["kind"] for p in doctor(folder)]
    assert "index_conflict" in kinds
    assert cli(folder, "index").exit_code == 0
    text = index.read_text()
    assert "<<<<<<<" not in text and "=======" not in text and ">>>>>>>" not in text
    assert "(alice_note.md) — hand-written on one side" in text and "(bob_note.md) — hand-written on the other" in text
    assert doctor(folder) == []


def test_a_conflict_marked_memctl_index_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    assert cli(None, "init", str(root)).exit_code == 0
    assert cli(root, "add", "Alice prefers window seats on flights", "--user", "alice").exit_code == 0
    assert cli(root, "index", "--user", "alice").exit_code == 0
    index = root / "users" / "alice" / "MEMORY.md"
    index.write_text(index.read_text() + CONFLICT)
    problems = doctor(root)
    assert [p["path"] for p in problems if p["kind"] == "index_conflict"] == ["users/alice/MEMORY.md"]
    assert cli(root, "index", "--all").exit_code == 0
    assert "<<<<<<<" not in index.read_text() and doctor(root) == []


def conflict_mark(path: Path, field: str) -> None:
    """Turn one line of `path` starting with `field` into a two-sided conflict, as git leaves it."""
    lines = path.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith(field))
    lines[at:at + 1] = ["<<<<<<< HEAD\n", lines[at], "=======\n", lines[at].rstrip("\n") + " (theirs)\n", ">>>>>>> b\n"]
    path.write_text("".join(lines))


def test_show_of_a_conflict_marked_memctl_file_says_where(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    assert cli(None, "init", str(root)).exit_code == 0
    code, out = cli_json(root, "add", "Alice prefers window seats on flights", "--user", "alice")
    mid, rel = out["data"]["memory"]["id"], out["data"]["memory"]["path"]
    conflict_mark(root / rel, "confidence:")
    code, out = cli_json(root, "show", mid)
    assert code == 4 and out["errors"][0]["code"] == "conflict_marked"
    message = out["errors"][0]["message"]
    assert rel in message and "conflict-marked" in message and "lines " in message
    result = cli(root, "show", mid[:6])
    assert result.exit_code == 4 and rel in result.output
    assert cli_json(root, "show", "ffffffff")[1]["errors"][0]["code"] == "not_found"


def test_show_of_a_conflict_marked_topic_file_says_where(folder: Path) -> None:
    mid = memory_id(folder, "feedback_testing.md")
    conflict_mark(folder / "feedback_testing.md", "description:")
    code, out = cli_json(folder, "show", mid)
    assert code == 4 and "feedback_testing.md" in out["errors"][0]["message"] and "lines 4-8" in out["errors"][0]["message"]
