"""Storage: atomic writes survive SIGKILL, concurrent writers lose nothing, paths and ids are safe."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.core.fileformat import parse_memory
from memctl.core.models import id_arg as check_id
from memctl.errors import InvalidId, NoDirectory
from memctl.store.directory import find_root
from memctl.store.filerepo import FileRepository
from memctl.store.files import write_atomic
from memctl.store.layout import slugify
from tests.helpers import use_hashing_embedder


def test_write_atomic_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "a" / "m.md"
    write_atomic(target, "one\n")
    write_atomic(target, "two\n")
    assert target.read_text() == "two\n"
    assert [p.name for p in target.parent.iterdir()] == ["m.md"]


@pytest.mark.parametrize(("text", "expected"), [
    ("Alice prefers window seats on long-haul flights", "alice-prefers-window-seats-on-long"),
    ("喜欢喝绿茶", "fact"),
    ("每天 6 点", "fact"),
    ("Supercalifragilisticexpialidocious-and-more words here", "supercalifragilisticexpialidocious-and"),
])
def test_slugify(text: str, expected: str) -> None:
    assert slugify(text, "fact") == expected


@pytest.mark.parametrize("bad", ["../x", "/etc/passwd", "a/b", "x\x00", "abc", "DEADBEEF", "deadbeef" * 5])
def test_check_id_refuses_unsafe(bad: str) -> None:
    with pytest.raises(InvalidId):
        check_id(bad)


def test_find_root_order(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "memctl.toml").write_text("")
    deep = tmp_path / "root" / "users" / "a"
    deep.mkdir(parents=True)
    assert find_root(None, None, deep) == tmp_path / "root"
    assert find_root(str(tmp_path / "root"), None, deep) == (tmp_path / "root").resolve()
    assert find_root(None, str(tmp_path / "root"), deep) == (tmp_path / "root").resolve()
    with pytest.raises(NoDirectory, match="memctl init"):
        find_root(str(tmp_path), None, deep)  # a folder without memctl.toml is not a memory directory
    with pytest.raises(NoDirectory):
        find_root(None, None, tmp_path)
    with pytest.raises(NoDirectory):
        find_root(str(tmp_path / "missing"), None, deep)


def test_new_ids_skip_taken_and_all_digit_ids(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    taken = store.add_raw("Alice is vegetarian", type="fact", user="alice").id
    draws = iter([taken, "12345678", "abc12345"])
    monkeypatch.setattr("memctl.store.filerepo.secrets.token_hex", lambda n: next(draws))
    assert store.repo.new_id() == "abc12345"


def test_journal_records_hashes(store: MemoryStore) -> None:
    memory = store.add_raw("Alice is vegetarian", type="fact", user="alice")
    store.forget(memory.id, reason="test")
    entries = store.history(memory.id)
    assert [e.op for e in entries] == ["add", "forget"]
    assert entries[0].before is None and entries[0].after == entries[1].before
    assert entries[1].after and entries[1].detail["reason"] == "test"


WRITER = """
import sys
from memctl.api import MemoryStore
store = MemoryStore(sys.argv[1])
memory = store.get(sys.argv[2])
store.edit(memory.id, body="Alice now prefers aisle seats on every flight, even short ones.")
"""


def test_sigkill_mid_write_never_leaves_a_torn_file(memdir: Path) -> None:
    store = MemoryStore(memdir)
    memory = store.add_raw("Alice prefers window seats on flights", type="preference", user="alice")
    path = memdir / memory.path
    original = path.read_text()
    use_hashing_embedder(memdir)
    env = {**os.environ, "MEMCTL_TEST_PAUSE_BEFORE_REPLACE": "5"}
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(memdir), memory.id], env=env)
    deadline = time.time() + 20
    while time.time() < deadline and not list(path.parent.glob(".*.tmp")):
        time.sleep(0.05)
    assert list(path.parent.glob(".*.tmp")), "the writer never reached the pause"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert path.read_text() == original
    parse_memory(path.read_text())
    # The leftover temp file is hidden and never read as a memory.
    assert [m.id for m in MemoryStore(memdir).list()] == [memory.id]


ADDER = """
import sys
from memctl.api import MemoryStore
store = MemoryStore(sys.argv[1])
things = ["kayaking", "pottery", "chess", "sourdough", "violin", "astronomy", "origami", "climbing",
          "gardening", "karaoke", "fencing", "sailing", "juggling", "birding", "knitting", "surfing",
          "rowing", "ceramics", "calligraphy", "beekeeping", "archery", "tango", "bouldering", "cycling",
          "painting", "poetry", "skating", "snorkeling", "woodworking", "yoga", "diving", "rugby"]
places = ["Lisbon", "Osaka", "Quito", "Tallinn", "Accra", "Hobart", "Bergen", "Cusco", "Dakar", "Riga", "Hanoi",
          "Perth", "Lima", "Porto", "Kyoto", "Oslo", "Cairo", "Seoul", "Turin", "Zagreb", "Malmo", "Quebec",
          "Nairobi", "Bogota", "Tbilisi", "Muscat", "Galway", "Hilo", "Split", "Ghent", "Fez", "Salta"]
offset = "abcd".index(sys.argv[2]) * 8
for i in range(int(sys.argv[3])):
    store.add(f"Alice took up {things[offset + i]} while visiting {places[offset + i]} with {sys.argv[2].upper()}-team",
              type="fact", user="alice")
"""


def test_concurrent_writers_lose_nothing(memdir: Path) -> None:
    use_hashing_embedder(memdir)
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-c", ADDER, str(memdir), name, "8"], env=env) for name in "abcd"]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    memories = MemoryStore(memdir).list()
    assert len(memories) == 32
    assert len({m.id for m in memories}) == 32
    assert sum(1 for e in FileRepository(memdir).journal.read() if e.op == "add") == 32


CONCURRENT_EDIT = """
import sys
from memctl.api import MemoryStore
store = MemoryStore(sys.argv[1])
for i in range(10):
    m = store.get(sys.argv[2])
    store.edit(m.id, sets={sys.argv[3] + str(i): "x"})
"""


def test_concurrent_edits_of_one_memory_all_land(memdir: Path) -> None:
    memory = MemoryStore(memdir).add_raw("Alice is vegetarian", type="fact", user="alice")
    use_hashing_embedder(memdir)
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-c", CONCURRENT_EDIT, str(memdir), memory.id, f"k{p}_"], env=env)
             for p in "ab"]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    extra = MemoryStore(memdir).get(memory.id).extra
    assert len([k for k in extra if k.startswith("ka_")]) == 10 and len([k for k in extra if k.startswith("kb_")]) == 10


READER = """
import sys
from memctl.api import MemoryStore
for _ in range(15):
    MemoryStore(sys.argv[1]).recall("alpaca", mode="keyword", record_usage=False)
"""


def test_concurrent_readers_and_a_writer_leave_consistent_caches(memdir: Path) -> None:
    store = MemoryStore(memdir)
    memory = store.add_raw("Alice keeps an alpaca named word0", type="fact", user="alice")
    use_hashing_embedder(memdir)
    env = dict(os.environ)
    readers = [subprocess.Popen([sys.executable, "-c", READER, str(memdir)], env=env) for _ in range(3)]
    for n in range(1, 12):
        MemoryStore(memdir).edit(memory.id, body=f"Alice keeps an alpaca named word{n}")
    assert all(r.wait(timeout=120) == 0 for r in readers)
    fresh = MemoryStore(memdir)
    assert [h.id for h in fresh.recall("word11", mode="keyword", record_usage=False).hits] == [memory.id]
    assert fresh.recall("word10", mode="keyword", record_usage=False).hits == []


def test_candidate_pools_are_kept_per_filter_for_a_server_answering_many_users(memdir: Path) -> None:
    from datetime import datetime, timezone

    from memctl.store.filters import MemoryFilter

    store = MemoryStore(memdir)
    for user in ("alice", "bob", "carol"):
        store.add_raw(f"{user.title()} likes green tea", type="preference", user=user)
    repo, now = store.repo, datetime.now(timezone.utc)
    first = {user: repo.candidates(MemoryFilter(users=(user,)), now) for user in ("alice", "bob", "carol")}
    again = {user: repo.candidates(MemoryFilter(users=(user,)), now) for user in ("alice", "bob", "carol")}
    assert all(again[u] is first[u] for u in first)  # memo hits, not one pool that each user evicts
    store.add_raw("Alice likes jasmine tea too", type="preference", user="alice")
    assert len(repo.candidates(MemoryFilter(users=("alice",)), now)) == 2  # a new snapshot: pools rebuilt


def test_a_rescan_that_finds_nothing_changed_keeps_the_snapshot(memdir: Path) -> None:
    """A long-running process re-stats every second; when nothing moved, what it memoised on the
    snapshot (candidate pools) stays valid."""
    store = MemoryStore(memdir)
    memory = store.add_raw("Alice likes green tea", type="preference", user="alice")
    first = store.repo.snapshot(refresh=True)
    assert store.repo.snapshot(refresh=True) is first
    path = memdir / memory.path
    path.write_text(path.read_text().replace("green", "jasmine"))
    changed = store.repo.snapshot(refresh=True)
    assert changed is not first and [m.body for m in changed.memories] == ["Alice likes jasmine tea"]


LOOP = """
import sys, time
from memctl.api import MemoryStore
store, what, until = MemoryStore(sys.argv[1]), sys.argv[2], time.time() + float(sys.argv[3])
n = 0
while time.time() < until:
    if what == "reindex":
        store.reindex(vectors=False)
    else:
        assert store.recall("alpaca wool", mode="keyword", record_usage=False).hits
    n += 1
print(n)
"""


def test_recall_never_fails_beside_a_reindex_in_another_process(memdir: Path) -> None:
    use_hashing_embedder(memdir)
    store = MemoryStore(memdir)
    for i in range(40):
        store.add_raw(f"Alice knits alpaca wool scarves, pattern {i}", type="habit", user=f"u{i}")
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-c", LOOP, str(memdir), what, "6"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for what in ("reindex", "recall", "recall")]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-500:] for _, err in outputs]
    assert all(int(out.strip()) > 0 for out, _ in outputs)
