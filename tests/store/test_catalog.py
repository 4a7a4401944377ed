"""The catalog snapshot: its id maps are built once per snapshot and follow the files."""

from __future__ import annotations

from memctl.api import MemoryStore


def test_id_maps_are_built_once_per_snapshot_and_follow_changes(store: MemoryStore) -> None:
    a = store.add_raw("Alice drinks oolong tea", type="preference", user="alice")
    b = store.add_raw("Bob plays chess on Sundays", type="habit", user="bob")
    snap = store.repo.snapshot(refresh=True)
    assert snap.paths() is snap.paths() and snap.hashes is snap.hashes  # no 10k-entry rebuild per call
    assert set(snap.paths()) == set(snap.hashes) == {a.id, b.id}
    assert snap.paths()[a.id] == a.path and snap.hashes[a.id] == snap.entries[a.path].hash
    (store.root / b.path).unlink()
    after = store.repo.snapshot(refresh=True)
    assert set(after.paths()) == set(after.hashes) == {a.id}
