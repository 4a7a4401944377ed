"""One command, one snapshot: a fresh recall stats each memory file once, however slow the machine.

The clock is a fake monotonic one that jumps ahead at every reading, as if each step of the command
took longer than the repository's re-scan interval (a loaded machine): a command must still not
walk the folder again.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import pytest

from memctl import clock
from memctl.api import MemoryStore
from memctl.store.filerepo import RESCAN_SECONDS
from tests.helpers import cli_json

MEMORIES = 12


class _Entry:
    """A directory entry whose stat() calls are counted (os.DirEntry cannot be subclassed)."""

    def __init__(self, entry: os.DirEntry, seen: Counter) -> None:
        self._entry, self._seen = entry, seen

    def stat(self, *args: Any, **kwargs: Any) -> os.stat_result:
        self._seen[os.path.abspath(self._entry.path)] += 1
        return self._entry.stat(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._entry, name)


class _Listing:
    def __init__(self, listing: Any, seen: Counter) -> None:
        self._listing, self._seen = listing, seen

    def __iter__(self) -> Iterator[_Entry]:
        return (_Entry(entry, self._seen) for entry in self._listing)

    def __enter__(self) -> "_Listing":
        return self

    def __exit__(self, *exc: object) -> None:
        self._listing.close()

    def close(self) -> None:
        self._listing.close()


@pytest.fixture
def stats(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """Every stat of a path in this process, by real path: os.stat, os.lstat and scandir entries."""
    seen: Counter = Counter()
    real_scandir, real_stat, real_lstat = os.scandir, os.stat, os.lstat

    def counted(real: Any) -> Any:
        def call(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
            if isinstance(path, (str, os.PathLike)):
                seen[os.path.abspath(path)] += 1
            return real(path, *args, **kwargs)
        return call

    monkeypatch.setattr(os, "scandir", lambda *args: _Listing(real_scandir(*args), seen))
    monkeypatch.setattr(os, "stat", counted(real_stat))
    monkeypatch.setattr(os, "lstat", counted(real_lstat))
    return seen


@pytest.fixture
def slow_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """A monotonic clock that moves on by twice the re-scan interval at each reading."""
    now = [1000.0]

    def tick() -> float:
        now[0] += 2 * RESCAN_SECONDS
        return now[0]

    monkeypatch.setattr(clock, "monotonic", tick)
    return now


def _folder(root: Path) -> list[str]:
    """A directory with memories of two users and caches built (a first recall ran)."""
    store = MemoryStore(MemoryStore.open(root).root)
    for n in range(MEMORIES):
        store.add(f"Person {n} drinks espresso in Lisbon on day {n}", user=f"user{n % 2}", type="fact")
    store.recall("espresso in Lisbon", users=["user0"])
    return [os.path.abspath(p) for p in root.glob("users/*/*.md") if p.name != "MEMORY.md"]


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_fresh_cli_recall_stats_each_file_once(memdir: Path, stats: Counter, slow_clock: list[float], mode: str) -> None:
    files = _folder(memdir)
    assert len(files) == MEMORIES
    stats.clear()
    before = slow_clock[0]
    code, out = cli_json(memdir, "recall", "who drinks espresso in Lisbon", "--user", "user0", "--mode", mode)
    assert code == 0 and out["data"]["hits"], out
    assert slow_clock[0] > before, "the clock was read: each reading saw the last scan as stale"
    assert {path: stats[path] for path in files} == dict.fromkeys(files, 1)


def test_library_commands_each_check_once(memdir: Path, stats: Counter, slow_clock: list[float]) -> None:
    """A long-running library user: each call is one command, and sees a file written before it."""
    files = _folder(memdir)
    store = MemoryStore(memdir)
    stats.clear()
    assert store.recall("espresso", users=["user1"]).hits
    assert {path: stats[path] for path in files} == dict.fromkeys(files, 1)
    store.list(user="user0")
    assert {path: stats[path] for path in files} == dict.fromkeys(files, 2)  # the next command checks again
    other = MemoryStore(memdir).add("Person 99 drinks tea in Porto", user="user0", type="fact")
    assert other.memory is not None and other.memory.id in {m.id for m in store.list(user="user0")}
