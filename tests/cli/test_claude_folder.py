"""Acceptance: a hand-written Claude Code memory folder adopted by memctl, through the command line.

list, recall and index leave every file byte-identical; add then index write files and index lines of
Claude Code's shape within its 200-line / 25 KB budget; a hand-edited MEMORY.md line survives an add.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from tests.helpers import ROOT, claude_folder, cli, cli_json, tree_bytes, use_hashing_embedder

LINE = re.compile(r"^- \[[^\]]+\]\([^)\s]+\.md\) — \S.*$")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = claude_folder(tmp_path)
    result = cli(None, "init", "--preset", "claude", str(root))
    assert result.exit_code == 0 and "adopted" in result.stdout and "layout claude" in result.stdout
    return root


def memory_files(root: Path) -> dict[str, bytes]:
    """Every file of the folder but memctl's own (memctl.toml, .memctl/)."""
    return {k: v for k, v in tree_bytes(root).items() if k != "memctl.toml"}


def frontmatter_keys(path: Path) -> list[str]:
    lines = path.read_text().split("---\n")[1].splitlines()
    return [line.split(":", 1)[0] for line in lines if line and not line.startswith((" ", "-", "#"))]


def test_list_recall_and_index_leave_every_file_byte_identical(folder: Path) -> None:
    before = memory_files(folder)
    listed = cli_json(folder, "list")[1]["data"]
    assert listed["count"] == 6 and {m["path"] for m in listed["memories"]} >= {"feedback_testing.md", "user_role.md"}
    hits = cli_json(folder, "recall", "should integration tests mock the database?")[1]["data"]["hits"]
    assert hits[0]["path"] == "feedback_testing.md"
    code, out = cli_json(folder, "index")
    assert code == 0 and out["data"]["indexes"][0]["changed"] is False and out["data"]["indexes"][0]["listed"] == 6
    for args in (["show", hits[0]["id"]], ["stats"], ["doctor"], ["conflicts"], ["context", "testing rules"]):
        assert cli(folder, *args).exit_code == 0, args
    assert memory_files(folder) == before


def test_add_then_index_write_what_claude_code_reads(folder: Path) -> None:
    original_index = (folder / "MEMORY.md").read_text()
    code, out = cli_json(folder, "add", "Run the linters before pushing; CI rejects unformatted code",
                         "--type", "feedback", "--name", "Lint before push")
    assert code == 0
    new = folder / out["data"]["memory"]["path"]
    assert new.name == "feedback_lint_before_push.md" and new.parent == folder
    assert frontmatter_keys(new)[:3] == ["name", "description", "type"]
    assert new.read_text().endswith("---\nRun the linters before pushing; CI rejects unformatted code\n")
    assert cli(folder, "index").exit_code == 0
    index = (folder / "MEMORY.md").read_text()
    assert index.startswith(original_index.split("\n## Notes")[0])  # the hand-written lines, where they were
    assert "Ask before touching the on-call schedule." in index
    assert "- [Lint before push](feedback_lint_before_push.md) — Run the linters before pushing; CI rejects" in index
    links = [line for line in index.splitlines() if line.startswith("- [")]
    assert len(links) == 7 and all(LINE.match(line) for line in links)


def test_add_without_a_type_takes_the_presets_first(folder: Path) -> None:
    code, out = cli_json(folder, "add", "The user is on call every second week")
    assert code == 0 and out["data"]["memory"]["type"] == "user"
    assert out["data"]["memory"]["name"] and out["data"]["memory"]["description"]  # derived


def test_the_index_stays_within_claude_codes_budget(folder: Path) -> None:
    store = MemoryStore(folder)
    for n in range(260):
        store.add_raw(f"Ingestion note {n}: partition {n} is replayed from the raw bucket on failure",
                      type="reference", project=store.config.layout.project, confidence=0.5 + n / 1000)
    assert cli(folder, "index").exit_code == 0
    text = (folder / "MEMORY.md").read_text()
    lines = text.splitlines()
    assert len(lines) <= 200 and len(text.encode()) <= 25_000
    assert re.match(r"^- … and \d+ more memories not listed here", lines[-1])
    omitted = int(re.search(r"and (\d+) more", lines[-1]).group(1))  # type: ignore[union-attr]
    assert omitted == 266 - sum(1 for line in lines if LINE.match(line))
    assert "Ask before touching the on-call schedule." in text and "note 259:" in text and "note 0:" not in text


def test_a_hand_edited_line_survives_an_add(folder: Path) -> None:
    cli(folder, "add", "Dashboards refresh every five minutes", "--type", "reference", "--name", "Refresh rate")
    index = folder / "MEMORY.md"
    text = index.read_text()
    mine = next(line for line in text.splitlines() if "refresh" in line.lower())
    text = text.replace(mine, "- [Refresh rate](reference_refresh_rate.md) — every 5 min (I checked)")
    index.write_text(text + "One more note of mine.\n")
    assert cli(folder, "add", "Backfills run on the weekend only", "--type", "project").exit_code == 0
    after = index.read_text()
    assert "- [Refresh rate](reference_refresh_rate.md) — every 5 min (I checked)" in after
    assert "One more note of mine." in after and after.count("reference_refresh_rate.md") == 1
    assert "project_backfills_run_on_the_weekend_only.md" in after


def test_an_edit_keeps_the_users_comments_and_key_order(folder: Path) -> None:
    path = folder / "feedback_testing.md"
    original = path.read_text()
    memory_id = next(m["id"] for m in cli_json(folder, "list")[1]["data"]["memories"] if m["path"] == path.name)
    assert cli(folder, "edit", memory_id, "--set", "description=Use the real database").exit_code == 0
    assert path.read_text() == original.replace("Never mock the database in integration tests", "Use the real database")
    assert cli(folder, "forget", memory_id).exit_code == 0 and cli(folder, "restore", memory_id).exit_code == 0
    assert path.read_text() == original.replace("Never mock the database in integration tests", "Use the real database")


def test_an_unadopted_folder_is_refused_with_the_way_to_adopt_it(tmp_path: Path) -> None:
    root = claude_folder(tmp_path)
    result = cli(root, "list")
    assert result.exit_code == 1 and f"memctl init --preset claude {root}" in result.stderr
    assert not (root / ".memctl").exists()


def test_a_fresh_memctl_process_reads_the_adopted_folder(folder: Path) -> None:
    use_hashing_embedder(folder)
    before = memory_files(folder)
    run = subprocess.run([sys.executable, "-m", "memctl", "-d", str(folder), "recall", "release freeze", "-k", "1"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0 and "Merges to main are frozen" in run.stdout
    assert memory_files(folder) == before
