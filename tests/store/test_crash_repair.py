"""A process killed in the middle of a write leaves nothing a person must clean up: the next write
(or `doctor --fix`) finishes it, and every memory exists exactly once throughout."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from memctl.api import MemoryStore
from tests.helpers import ROOT, use_hashing_embedder

STEP = """
import json, sys
from memctl.api import MemoryStore
store = MemoryStore(sys.argv[1])
getattr(store, sys.argv[2])(sys.argv[3], **json.loads(sys.argv[4]))
"""


def kill_during(root: Path, method: str, arg: str, pause: str, ready, **kwargs: str) -> None:
    """Run store.<method>(arg, **kwargs) in a subprocess paused at `pause`, and SIGKILL it there."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), pause: "20"}
    proc = subprocess.Popen([sys.executable, "-c", STEP, str(root), method, arg, json.dumps(kwargs)], env=env)
    deadline = time.time() + 30
    while time.time() < deadline and not ready():
        time.sleep(0.05)
    assert ready(), "the process never reached the pause"
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def everything(root: Path) -> list[Path]:
    return sorted(p for top in ("users", "projects", "archive") for p in (root / top).rglob("*.md") if p.name != "MEMORY.md")


def test_a_forget_killed_between_move_and_mark_is_finished_by_the_next_write(memdir: Path) -> None:
    use_hashing_embedder(memdir)
    memory = MemoryStore(memdir).add_raw("Alice is vegetarian", type="fact", user="alice")
    archived = memdir / "archive" / memory.path
    kill_during(memdir, "forget", memory.id, "MEMCTL_TEST_PAUSE_AFTER_MOVE", archived.exists)
    assert [p.name for p in everything(memdir)] == [archived.name]  # exactly once, already moved
    assert "status: active" in archived.read_text()  # ... but not yet marked
    store = MemoryStore(memdir)
    assert store.doctor()["problems"]  # reported until something writes
    store.add("Bob drinks his coffee black", type="habit", user="bob")
    assert "status: forgotten" in archived.read_text() and store.get(memory.id).status == "forgotten"
    assert store.doctor()["problems"] == []
    assert store.restore(memory.id).status == "active"


def test_a_restore_killed_half_way_is_finished_by_doctor_fix(memdir: Path) -> None:
    use_hashing_embedder(memdir)
    store = MemoryStore(memdir)
    memory = store.add_raw("Alice is vegetarian", type="fact", user="alice")
    store.forget(memory.id)
    active = memdir / memory.path
    kill_during(memdir, "restore", memory.id, "MEMCTL_TEST_PAUSE_AFTER_MOVE", active.exists)
    assert len(everything(memdir)) == 1 and "status: forgotten" in active.read_text()
    report = MemoryStore(memdir).doctor(fix=True)
    assert report["removed"] and report["problems"] == []
    assert MemoryStore(memdir).get(memory.id).status == "active"


def test_a_killed_add_leaves_no_temp_file_after_the_next_write(memdir: Path) -> None:
    use_hashing_embedder(memdir)
    folder = memdir / "users" / "alice"
    kill_during(memdir, "add_raw", "Alice is vegetarian", "MEMCTL_TEST_PAUSE_BEFORE_REPLACE",
                lambda: any(folder.glob(".*.tmp")), type="fact", user="alice")
    assert list(folder.glob(".*.tmp")) and everything(memdir) == []
    store = MemoryStore(memdir)
    assert {p["kind"] for p in store.doctor()["problems"]} == {"temp_file"}
    store.add_raw("Alice likes tea", type="preference", user="alice")
    assert not list(folder.glob(".*.tmp")) and store.doctor()["problems"] == []


def test_an_archive_that_would_not_read_back_moves_nothing(memdir: Path, monkeypatch) -> None:
    """The archived form is checked before the file moves: it moved first, then the write was
    refused ('nothing was written'), and its intent, which no write could finish, made every later
    write fail."""
    import pytest

    from memctl.errors import InvalidMemory
    from memctl.store.filerepo import FileRepository

    use_hashing_embedder(memdir)
    store = MemoryStore(memdir)
    memory = store.add_raw("Alice is vegetarian", type="fact", user="alice")
    render = FileRepository.render
    monkeypatch.setattr(FileRepository, "render", lambda self, m, path: "not a memory" if m.status != "active"
                        else render(self, m, path))
    with pytest.raises(InvalidMemory):
        store.forget(memory.id)
    monkeypatch.undo()
    assert everything(memdir) == [memdir / memory.path]
    store = MemoryStore(memdir)
    store.add("Bob drinks his coffee black", type="habit", user="bob")  # no intent left to finish
    assert store.doctor()["problems"] == [] and store.get(memory.id).status == "active"


def test_a_misfiled_memory_that_cannot_be_refiled_blocks_no_write(memdir: Path, monkeypatch) -> None:
    """Repair runs before every write: a misfiled memory whose refiled form would not read back is
    left where it is with a warning (doctor still reports it), and the write goes ahead."""
    from memctl.store.filerepo import FileRepository

    use_hashing_embedder(memdir)
    store = MemoryStore(memdir)
    memory = store.add_raw("Alice is vegetarian", type="fact", user="alice")
    path = memdir / memory.path
    hand_set = path.read_text().replace("\n---\n", "\nstatus: superseded\n---\n", 1)  # set by hand, not moved
    path.write_text(hand_set)
    render = FileRepository.render
    monkeypatch.setattr(FileRepository, "render", lambda self, m, p: "not a memory" if m.status != "active"
                        else render(self, m, p))
    store = MemoryStore(memdir)
    added = store.add_raw("Bob drinks his coffee black", type="habit", user="bob")
    assert (memdir / added.path).exists() and path.read_text() == hand_set
    assert any(memory.id in w and "doctor" in w for w in store.repo.warnings())
    monkeypatch.undo()
    assert [p["kind"] for p in MemoryStore(memdir).doctor()["problems"]] == ["status_location"]


def test_a_restore_that_would_not_read_back_moves_nothing(memdir: Path, monkeypatch) -> None:
    """As for archiving: the restored form is checked before the intent and the move."""
    import pytest

    from memctl.errors import InvalidMemory
    from memctl.store.filerepo import FileRepository

    use_hashing_embedder(memdir)
    store = MemoryStore(memdir)
    memory = store.forget(store.add_raw("Alice is vegetarian", type="fact", user="alice").id)
    render = FileRepository.render
    monkeypatch.setattr(FileRepository, "render", lambda self, m, path: "not a memory" if m.status == "active"
                        else render(self, m, path))
    with pytest.raises(InvalidMemory):
        store.restore(memory.id)
    monkeypatch.undo()
    assert everything(memdir) == [memdir / memory.path]
    store = MemoryStore(memdir)
    store.add("Bob drinks his coffee black", type="habit", user="bob")  # no intent left to finish
    assert store.doctor()["problems"] == [] and store.get(memory.id).status != "active"
