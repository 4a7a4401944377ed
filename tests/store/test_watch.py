"""Change notices (inotify): a watching repository sees every change by its next read, without a stat walk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.store import watch
from memctl.store.filerepo import FileRepository
from memctl.store.watch import open_watcher

pytestmark = pytest.mark.skipif(open_watcher(Path("/")) is None, reason="needs Linux inotify")

FILE = ("---\nid: {id}\ntype: fact\nuser: {user}\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n"
        "---\n{body}\n")


def write(root: Path, user: str, memory_id: str, body: str) -> Path:
    path = root / "users" / user / f"note-{memory_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FILE.format(id=memory_id, user=user, body=body), encoding="utf-8")
    return path


def bodies(repo: FileRepository) -> dict[str, str]:
    return {m.id: m.body for m in repo.snapshot().memories}


@pytest.fixture
def repo(tmp_path: Path) -> FileRepository:
    MemoryStore(tmp_path)  # an initialised directory
    (tmp_path / "memctl.toml").write_text("")
    write(tmp_path, "alice", "a1a1a1a1", "Alice lives in Lisbon")
    write(tmp_path, "alice", "b2b2b2b2", "Alice drinks oolong")
    repo = FileRepository(tmp_path)
    assert repo.watch()
    assert bodies(repo) == {"a1a1a1a1": "Alice lives in Lisbon", "b2b2b2b2": "Alice drinks oolong"}
    return repo


def test_an_in_place_edit_is_seen_by_the_next_read(repo: FileRepository) -> None:
    """Written into the same file (same inode, folder mtime unchanged): a stat-scanning process
    would see it only at its next full rescan."""
    path = repo.root / "users" / "alice" / "note-a1a1a1a1.md"
    folder_mtime = path.parent.stat().st_mtime_ns
    with open(path, "r+", encoding="utf-8") as handle:
        text = handle.read()
        handle.seek(0)
        handle.write(text.replace("Lisbon", "Madrid"))
    assert path.parent.stat().st_mtime_ns == folder_mtime
    assert bodies(repo)["a1a1a1a1"] == "Alice lives in Madrid"


def test_a_rename_over_a_new_folder_and_a_delete_are_seen(repo: FileRepository) -> None:
    path = repo.root / "users" / "alice" / "note-b2b2b2b2.md"
    tmp = path.with_name(".edit.tmp")
    tmp.write_text(path.read_text().replace("oolong", "matcha"))
    os.replace(tmp, path)
    assert bodies(repo)["b2b2b2b2"] == "Alice drinks matcha"
    write(repo.root, "bob", "c3c3c3c3", "Bob sails in Porto")  # users/bob/ did not exist
    assert bodies(repo)["c3c3c3c3"] == "Bob sails in Porto"
    write(repo.root, "bob", "d4d4d4d4", "Bob collects maps")  # the new folder is watched now
    assert bodies(repo)["d4d4d4d4"] == "Bob collects maps"
    (repo.root / "users" / "alice" / "note-a1a1a1a1.md").unlink()
    assert "a1a1a1a1" not in bodies(repo)
    nested = repo.root / "projects" / "shop"
    nested.mkdir(parents=True)
    (nested / "stack-e5e5e5e5.md").write_text(FILE.format(id="e5e5e5e5", user="alice", body="x").replace(
        "user: alice", "scope: project\nproject: shop"))
    assert "e5e5e5e5" in bodies(repo)


def test_an_own_write_updates_only_its_folder(repo: FileRepository, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a write, the next read re-stats the folder the notices name, not the whole tree."""
    scanned: list[object] = []
    original = repo.scan.stat_files
    monkeypatch.setattr(repo.scan, "stat_files", lambda root, folders=None: scanned.append(folders) or original(root, folders))
    write(repo.root, "alice", "f6f6f6f6", "Alice plays chess")
    with repo.locked():  # entering the write lock asks for a fresh snapshot
        pass
    assert "f6f6f6f6" in bodies(repo)
    assert scanned and all(folders == ("users/alice",) for folders in scanned)
    scanned.clear()
    write(repo.root, "dave", "0d0d0d0d", "Dave owns a kayak")  # a new owner's folder: read alone, then watched
    assert bodies(repo)["0d0d0d0d"] == "Dave owns a kayak" and scanned == [("users/dave",)]
    write(repo.root, "dave", "1d1d1d1d", "Dave fixes bikes")
    (repo.root / "users" / ".trash").mkdir()
    (repo.root / "users" / ".trash" / "note-2d2d2d2d.md").write_text(FILE.format(id="2d2d2d2d", user="x", body="x"))
    assert "1d1d1d1d" in bodies(repo) and "2d2d2d2d" not in bodies(repo)  # a hidden folder is never read
    assert all(folders is not None for folders in scanned)


def test_an_overflowed_queue_falls_back_to_a_full_rescan(repo: FileRepository, monkeypatch: pytest.MonkeyPatch) -> None:
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    a = repo.root / "users" / "alice" / "note-a1a1a1a1.md"
    b = repo.root / "users" / "alice" / "note-b2b2b2b2.md"
    for i in range(limit // 2 + 10):  # alternating, so the kernel cannot merge repeats
        os.utime(a, ns=(i, i))
        os.utime(b, ns=(i, i))
    write(repo.root, "carol", "0c0c0c0c", "Carol bakes bread")  # lost in the overflow
    a.write_text(a.read_text().replace("Lisbon", "Oslo"))
    scanned: list[object] = []
    original = repo.scan.stat_files
    monkeypatch.setattr(repo.scan, "stat_files", lambda root, folders=None: scanned.append(folders) or original(root, folders))
    assert bodies(repo)["a1a1a1a1"] == "Alice lives in Oslo" and bodies(repo)["0c0c0c0c"] == "Carol bakes bread"
    assert scanned[0] is None  # a full walk, not a folder's re-stat
    a.write_text(a.read_text().replace("Oslo", "Rome"))  # and the notices work again afterwards
    assert bodies(repo)["a1a1a1a1"] == "Alice lives in Rome"
    assert scanned[-1] == ("users/alice",)


def test_without_notices_the_stat_scans_go_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch, "available", False)  # as on macOS or Windows
    MemoryStore(tmp_path)
    write(tmp_path, "alice", "a1a1a1a1", "Alice lives in Lisbon")
    repo = FileRepository(tmp_path)
    assert repo.watch() is False and repo._watcher is None
    write(tmp_path, "alice", "b2b2b2b2", "Alice drinks oolong")  # a new file: the folder mtime moves
    assert set(bodies(repo)) == {"a1a1a1a1", "b2b2b2b2"}


def test_a_watch_that_cannot_be_added_stops_the_notices(tmp_path: Path) -> None:
    watcher = open_watcher(tmp_path)
    assert watcher is not None
    assert watcher.watch(["", "missing"]) == [""] and watcher.lost
    assert watcher.changes() is None  # it can no longer tell everything
    watcher.close()
