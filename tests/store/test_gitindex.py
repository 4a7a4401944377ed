"""doctor reports files under `.memctl/` that git tracks, read from a real repository's index
(versions 2, 3 and 4, the folder at the top or inside a bigger repository), never by running git."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memctl.store.directory import init_directory
from memctl.store.gitindex import index_paths, tracked_state
from tests.helpers import cli


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args], cwd=cwd, check=True,
                   capture_output=True)


def committed(repo: Path, folder: Path) -> None:
    """A repository holding `folder`, with caches planted and committed in its `.memctl/`."""
    init_directory(folder)
    (folder / ".memctl" / "keyword").mkdir(parents=True)
    (folder / ".memctl" / "keyword" / "_MAIN_1.toc").write_bytes(b"\x80\x04planted")
    (folder / ".memctl" / "catalog.bin").write_bytes(b"planted")
    git("init", "-q", cwd=repo)
    git("add", "-A", cwd=repo)
    git("add", "-f", str(folder / ".memctl"), cwd=repo)
    git("commit", "-q", "-m", "memories", cwd=repo)


@pytest.mark.parametrize("version", ["2", "3", "4"])
@pytest.mark.parametrize("inside", ["", "team/memory"])
def test_tracked_files_under_memctl_are_found(tmp_path: Path, version: str, inside: str) -> None:
    folder = tmp_path / inside if inside else tmp_path
    committed(tmp_path, folder)
    git("update-index", "--index-version", version, cwd=tmp_path)
    assert tracked_state(folder) == [".memctl/catalog.bin", ".memctl/keyword/_MAIN_1.toc"]


def test_outside_a_repository_or_with_a_damaged_index_nothing_is_found(tmp_path: Path) -> None:
    init_directory(tmp_path / "plain")
    assert tracked_state(tmp_path / "plain") == []
    committed(tmp_path / "repo", tmp_path / "repo")
    index = tmp_path / "repo" / ".git" / "index"
    for damaged in (b"", b"DIRC", b"DIRC\x00\x00\x00\x02\xff\xff\xff\xff" + b"\x00" * 100, index.read_bytes()[:90]):
        assert index_paths(damaged) == []
        index.write_bytes(damaged)
        assert tracked_state(tmp_path / "repo") == []


def test_doctor_reports_them(tmp_path: Path) -> None:
    committed(tmp_path, tmp_path)
    result = cli(tmp_path, "doctor", "--json")
    assert result.exit_code == 1
    problems = [p for p in json.loads(result.stdout)["data"]["problems"] if p["kind"] == "tracked_cache"]
    assert [p["path"] for p in problems] == [".memctl/catalog.bin", ".memctl/keyword/_MAIN_1.toc"]
    assert "git rm -r --cached .memctl" in problems[0]["detail"]
    git("rm", "-r", "-q", "--cached", ".memctl", cwd=tmp_path)
    assert cli(tmp_path, "doctor").exit_code == 0
