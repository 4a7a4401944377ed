"""The merge driver on hostile or odd input (services/gitmerge.py through api.git_merge_file): it
never leaves a marker, never writes outside the work tree, and bounds what it reads."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memctl.api import git_merge_file
from memctl.core.conflicts import conflict_regions
from memctl.errors import StoreError
from memctl.services.gitmerge import MAX_BYTES, merge_file
from memctl.store.git import write_beside

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

BASE = "---\nid: abcd1234\ntype: fact\ncreated: 2026-11-30T08:00:00Z\nupdated: 2026-11-30T08:00:00Z\n---\nThe sky is blue.\n"


def versions(tmp_path: Path, base: str, ours: str, theirs: str) -> list[str]:
    paths = []
    for name, text in (("o", base), ("a", ours), ("b", theirs)):
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    return paths


def test_a_body_clash_keeps_ours_and_theirs_as_a_linked_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "users" / "al").mkdir(parents=True)
    o, a, b = versions(tmp_path, BASE, BASE.replace("blue", "grey"), BASE.replace("blue", "green"))
    result = git_merge_file(o, a, b, "users/al/sky-abcd1234.md")
    assert result["clean"] and result["conflicts"] == ["body"]
    assert Path(a).read_text() == BASE.replace("blue", "grey")
    copy = (tmp_path / result["copy"]).read_text()
    assert result["copy"].startswith("users/al/sky-conflict-") and "conflicts_with: [abcd1234]" in copy
    assert "green" in copy and not conflict_regions(copy)


def test_a_conflict_marked_or_unparseable_side_is_merged_as_text_without_markers(tmp_path: Path) -> None:
    marked = BASE + "<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n"
    merged = merge_file(BASE, marked, BASE.replace("blue", "green"), "users/al/sky-abcd1234.md")
    assert not conflict_regions(merged.text) or merged.text == marked  # never new markers of its own
    merged = merge_file(BASE, "---\n[1, 2]\n---\nlist\n", "---\n- a\n---\nother\n", "users/al/x.md")
    assert not conflict_regions(merged.text) and merged.copy is not None


def test_an_oversized_version_is_left_to_git(tmp_path: Path) -> None:
    o, a, b = versions(tmp_path, BASE, BASE + "x" * (MAX_BYTES + 1), BASE)
    result = git_merge_file(o, a, b, "users/al/sky-abcd1234.md")
    assert result["clean"] is False and Path(a).stat().st_size > MAX_BYTES


def test_a_copy_is_never_written_outside_the_work_tree(tmp_path: Path) -> None:
    for rel, name in (("../x.md", "y.md"), ("/etc/x.md", "y.md"), ("users/x.md", "../y.md"), ("users/x.md", ".hidden.md")):
        with pytest.raises(StoreError):
            write_beside(rel, name, "text", top=tmp_path)


def test_an_index_keeps_both_sides_lines() -> None:
    base = "# Index\n- [A](a.md) — a\n"
    merged = merge_file(base, base + "- [B](b.md) — b\n", base + "- [C](c.md) — c\n", "MEMORY.md")
    assert merged.copy is None and "(b.md)" in merged.text and "(c.md)" in merged.text
    assert not conflict_regions(merged.text)
