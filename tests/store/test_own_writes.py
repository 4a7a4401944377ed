"""A repository's own writes go into its snapshot without a walk, and that snapshot is the one a
full scan of the folder would make."""

from __future__ import annotations

from pathlib import Path

from memctl.api import MemoryStore
from memctl.store import catalog
from memctl.store.filerepo import FileRepository


def _view(repo: FileRepository) -> tuple:
    snap = repo.snapshot()
    owners = sorted({m.owner for m in snap.memories} | {"users/nobody"})
    return (sorted((rel, e.hash, e.data) for rel, e in snap.entries.items()), list(snap.order),
            dict(snap.hashes), dict(snap.paths()), [m.model_dump() for m in snap.memories],
            {owner: [m.model_dump() for m in snap.owned(owner)] for owner in owners})


def test_own_writes_patch_the_snapshot_as_a_scan_would(memdir: Path, monkeypatch) -> None:
    store = MemoryStore(memdir)
    store.add("Alice lives in Berlin", user="alice")
    walks = []
    real = catalog.scan_files
    monkeypatch.setattr(catalog, "scan_files", lambda *a, **k: walks.append(1) or real(*a, **k))
    repo = store.repo
    assert isinstance(repo, FileRepository)
    with repo.command(), repo.locked():
        before = len(walks)
        repo.snapshot().owned("users/alice")  # memoised (the memories and their owner index), then patched
        for text in ("Alice moved to Lisbon", "Bob drinks espresso", "Alice likes green tea"):
            store._writer.add(text, user="bob" if "Bob" in text else "alice")
        patched = _view(repo)
        assert len(walks) == before  # no walk after the first
        old = next(m for m in repo.active() if "Berlin" in m.body)
        repo.archive(old, "forgotten", "test", "forget")
        archived = _view(repo)
        assert len(walks) == before
    fresh = FileRepository(memdir)
    fresh.drop_caches()
    assert _view(fresh) == archived
    assert len(patched[1]) == 4 and len(archived[1]) == 4
    assert patched[5]["users/alice"] == [m for m in patched[4] if m["user"] == "alice"]  # in the folder's order
    assert len(patched[5]["users/alice"]) == 3 and patched[5]["users/nobody"] == []
    assert any(rel.startswith("archive/") for rel in archived[1][-1:])


def test_changed_since_names_the_ids_written(memdir: Path) -> None:
    store = MemoryStore(memdir)
    repo = store.repo
    assert isinstance(repo, FileRepository)
    with repo.command(), repo.locked():
        start = repo.snapshot()
        first = store._writer.add("Carol plays the cello", user="carol").memory
        second = store._writer.add("Carol owns a red bicycle", user="carol").memory
        end = repo.snapshot()
    assert first is not None and second is not None
    assert end.changed_since(start) == ({first.id, second.id}, set())
    assert start.changed_since(end) is None


def test_many_rewrites_write_each_file_and_refuse_a_hand_edited_one(memdir: Path, monkeypatch) -> None:
    """FileRepository.rewrite_many (conflict links of a lock hold): every file written atomically and
    journaled as rewrite does, the snapshot what a scan reads, and a file edited by hand since the
    scan refused (Conflict) and left as the person wrote it."""
    monkeypatch.setattr("memctl.store.filerepo.STAGED", 1)  # staged a file at a time: groups as at 64
    store = MemoryStore(memdir)
    written = [store.add_raw(f"Alice note {word}", type="fact", user="alice") for word in ("one", "two", "three")]
    repo = store.repo
    assert isinstance(repo, FileRepository)
    edited = memdir / str(written[1].path)
    with repo.command(), repo.locked():
        stored = [repo.get(m.id) for m in written]
        edited.write_text(edited.read_text().replace("note two", "note two, by hand"))
        changed = [m.model_copy(update={"conflicts_with": ["0000abcd"]}) for m in stored]
        failed = repo.rewrite_many(changed, "link", actor="tester", details=[{"other": "0000abcd"}] * 3)
        patched = _view(repo)
    assert set(failed) == {written[1].id} and failed[written[1].id].code == "conflict"
    assert "by hand" in edited.read_text() and not list(edited.parent.glob(".*.tmp"))
    fresh = FileRepository(memdir)
    fresh.drop_caches()
    assert fresh.get(written[0].id).conflicts_with == ["0000abcd"] == fresh.get(written[2].id).conflicts_with
    links = [e for e in store.history(written[0].id) if e.op == "link"]
    assert len(links) == 1 and links[0].before and links[0].after and links[0].detail == {"other": "0000abcd", "actor": "tester"}
    rewritten = {str(written[0].path), str(written[2].path)}
    assert [e for e in patched[0] if e[0] in rewritten] == [e for e in _view(fresh)[0] if e[0] in rewritten]
