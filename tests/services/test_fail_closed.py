"""A visibility the access rules do not know fails closed (issue 21): the memory is its author's only,
and doctor and the command that met it say so. Runs on both backends."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.core.access import Access, can_read, effective_visibility
from memctl.core.models import Memory
from memctl.errors import UsageError

MEMBERS = '\n[projects.board.members]\ncarol = "owner"\nvic = "viewer"\n'
NOTE = "Board-only note: the layoffs are planned for January"
ODD = ("owner-only", "private", "Owner_Only", "PUBLIC", "everyone")


@pytest.mark.parametrize("value", ODD)
def test_an_unknown_visibility_is_owner_only(value: str) -> None:
    access = Access.of("mallory", {"board": {"carol": "owner"}})
    record = {"scope": "project", "project": "board", "visibility": value, "author": "carol"}
    assert effective_visibility(value, True) == effective_visibility(value, False) == "owner_only"
    assert not can_read(access, record)
    assert not can_read(Access.of("mallory", {}), {**record, "project": "open"})  # an open project too
    assert can_read(Access.of("carol", {}), record)


def plant(root: Path, value: str, project: str = "board") -> str:
    """A memory by carol whose visibility is `value`, stored as a file or a row would hold it."""
    store = MemoryStore(root)
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    memory = Memory(id=store.repo.new_id(), type="fact", scope="project", project=project, author="carol",
                    visibility=value, created=now, updated=now, body=NOTE)
    store.repo.put(memory, op="import")
    return memory.id


@pytest.fixture
def board(memdir: Path) -> Path:
    (memdir / "memctl.toml").write_text((memdir / "memctl.toml").read_text() + MEMBERS)
    return memdir


@pytest.mark.parametrize("value", ["owner-only", "private", "Owner_Only"])
@pytest.mark.parametrize("project", ["board", "open"])  # a managed project and one with no members table
def test_nobody_but_the_author_sees_it(board: Path, value: str, project: str) -> None:
    memory_id = plant(board, value, project)
    for reader in ("mallory", "vic"):
        store = MemoryStore(board, actor=reader)
        assert [m.id for m in store.list()] == []
        assert store.recall("layoffs planned January", projects=[project], mode="keyword").hits == []
        assert store.recall("layoffs planned January").hits == []
        assert "layoffs" not in store.context("layoffs in January", project=project)["text"]
        assert store.stats()["total"] == 0
        if store.repo.kind == "files":  # a folder's scan meets every file; a database filters the row out in SQL
            warnings = store.drain_warnings()
            assert any(f"unknown visibility {value!r}" in w for w in warnings), warnings
    carol = MemoryStore(board, actor="carol")
    assert [m.id for m in carol.list()] == [memory_id]
    assert any(f"unknown visibility {value!r}" in w for w in carol.drain_warnings())  # the command that met it
    assert [h.id for h in carol.recall("layoffs planned January", mode="keyword").hits] == [memory_id]


def test_doctor_reports_it(board: Path) -> None:
    plant(board, "private")
    problems = MemoryStore(board).doctor()["problems"]
    assert [p["kind"] for p in problems] == ["unknown_visibility"]
    assert "'private'" in problems[0]["detail"] and "public, members, owner_only" in problems[0]["detail"]


def test_a_project_index_leaves_it_out(board: Path) -> None:
    plant(board, "private")
    assert NOTE not in MemoryStore(board).memory_md(project="board")


def test_an_edit_to_an_unknown_visibility_is_refused(board: Path) -> None:
    store = MemoryStore(board)
    memory = store.add("The board meets on Mondays", type="fact", project="board", visibility="members").memory
    with pytest.raises(UsageError, match="choose from public, members, owner_only") as refused:
        store.edit(memory.id, {"visibility": "private"})
    assert refused.value.code == "bad_visibility" and refused.value.exit_code == 2
    assert store.get(memory.id).visibility == "members"
    assert store.edit(memory.id, {"visibility": "owner_only"}).visibility == "owner_only"
