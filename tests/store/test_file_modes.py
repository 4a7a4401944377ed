"""Files keep their modes: under umask 022 every file memctl writes or rewrites in a memory folder is
0644 (a new file gets what the umask gives, a rewritten one keeps its own), in both layouts."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterator

import pytest

from memctl.store.files import write_atomic
from tests.helpers import claude_folder, cli, cli_json


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def modes(root: Path) -> dict[str, int]:
    """The permission bits of every file of the folder but memctl's caches."""
    return {p.relative_to(root).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in sorted(root.rglob("*"))
            if p.is_file() and ".memctl" not in p.relative_to(root).parts}


def test_a_new_file_gets_the_umask_mode_and_a_rewritten_one_keeps_its_own(tmp_path: Path, umask_022: None) -> None:
    path = tmp_path / "a.md"
    write_atomic(path, "one\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    path.chmod(0o664)
    write_atomic(path, "two\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o664 and path.read_text() == "two\n"
    os.umask(0o077)
    write_atomic(tmp_path / "b.md", "private\n")
    assert stat.S_IMODE((tmp_path / "b.md").stat().st_mode) == 0o600


def test_an_explicit_mode_wins(tmp_path: Path, umask_022: None) -> None:
    path = tmp_path / "record.json"
    write_atomic(path, "{}", mode=0o600)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_memctl_layout_every_file_written_or_rewritten_is_0644(tmp_path: Path, umask_022: None) -> None:
    root = tmp_path / "mem"
    assert cli(None, "init", str(root)).exit_code == 0
    code, out = cli_json(root, "add", "Alice prefers window seats on flights", "--user", "alice", "--type", "preference")
    assert code == 0
    mid = out["data"]["memory"]["id"]
    assert cli(root, "edit", mid, "--set", "tags=[travel]").exit_code == 0
    code, _ = cli_json(root, "add", "Alice's team ships on Thursdays", "--user", "alice", "--type", "fact")
    assert code == 0
    assert cli(root, "forget", mid).exit_code == 0
    assert cli(root, "index", "--user", "alice").exit_code == 0
    found = modes(root)
    assert any(k.startswith("archive/") for k in found) and "users/alice/MEMORY.md" in found
    assert set(found.values()) == {0o644}, found


def test_claude_layout_adopted_644_files_stay_644(tmp_path: Path, umask_022: None) -> None:
    root = claude_folder(tmp_path)
    for path in root.rglob("*"):
        path.chmod(0o644 if path.is_file() else 0o755)
    assert cli(None, "init", "--preset", "claude", str(root)).exit_code == 0
    code, _out = cli_json(root, "add", "Run the linters before pushing; CI rejects unformatted code",
                         "--type", "feedback", "--name", "Lint before push")
    assert code == 0
    listed = cli_json(root, "list")[1]["data"]["memories"]
    first = next(m for m in listed if m["path"] == "feedback_testing.md")
    assert cli(root, "edit", first["id"], "--set", "description=How we test").exit_code == 0
    assert cli(root, "index").exit_code == 0
    found = modes(root)
    assert set(found.values()) == {0o644}, found
