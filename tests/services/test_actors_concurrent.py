"""The actor travels with each call, never as state of the shared repository: two threads writing
as different people through `as_actor` views of one store journal each write under its own writer
(on both backends). A mutable `repo.actor` swapped per call let one thread's writes be journaled
under the other's name."""

from __future__ import annotations

import threading
from pathlib import Path

from memctl.api import MemoryStore

WRITES = 12
PEOPLE = ("alice", "bob")


def _write_as(view: MemoryStore, person: str, ids: list[str], start: threading.Barrier) -> None:
    start.wait()
    for i in range(WRITES):
        memo = f"{person.title()} noted item {i}: the {['red', 'green', 'blue', 'amber'][i % 4]} box {i * 7}"
        result = view.add(memo, type="fact", user=person)
        ids.append(result.memory.id)


def test_two_threads_acting_as_different_people_are_journaled_apart(memdir: Path) -> None:
    store = MemoryStore(memdir)
    written: dict[str, list[str]] = {person: [] for person in PEOPLE}
    start = threading.Barrier(len(PEOPLE))
    threads = [threading.Thread(target=_write_as, args=(store.as_actor(person), person, written[person], start))
               for person in PEOPLE]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert all(len(written[person]) == WRITES for person in PEOPLE)
    for person, ids in written.items():
        for memory_id in ids:
            entries = store.history(memory_id)
            assert entries and all(e.detail.get("actor") == person for e in entries), (person, memory_id)
            assert store.get(memory_id).author == person
    assert not hasattr(store.repo, "actor")
