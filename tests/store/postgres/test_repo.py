"""PostgresRepository: transactions and per-owner locks, the append-only journal, rows that do not
validate, MEMCTL_STORE, and a folder moved into the database and back byte for byte."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest

from memctl.api import MemoryStore
from memctl.errors import LockTimeout, StoreError
from tests.conftest import SAMPLES
from tests.helpers import ROOT, memory_texts, tree_bytes, use_hashing_embedder
from tests.postgres import store_config


def test_the_folder_keeps_only_memctl_toml(pgstore, pgdir: Path) -> None:
    memory = pgstore.add("Alice prefers window seats", type="preference", user="alice").memory
    pgstore.write_memory_md(users=["alice"])
    pgstore.log("alice", "s1", "hello")
    assert sorted(p.name for p in pgdir.iterdir()) == ["memctl.toml"]
    assert memory.path == f"users/alice/alice-prefers-window-seats-{memory.id}.md"
    assert "window seats" in str(pgstore.repo.read_memory_md("users/alice"))
    assert pgstore.repo.transcripts.count("alice", "s1") == 1


def test_the_journal_is_append_only(pgstore) -> None:
    pgstore.add("Bob plays the cello", type="skill", user="bob")
    with pgstore.repo.connection() as conn, pytest.raises(psycopg.Error, match="append-only"):
        conn.execute("UPDATE memctl_journal SET op = 'nothing'")
    with pgstore.repo.connection() as conn, pytest.raises(psycopg.Error, match="append-only"):
        conn.execute("DELETE FROM memctl_journal")
    assert [e.op for e in pgstore.repo.journal.read()] == ["add"]


def test_an_error_inside_a_transaction_writes_nothing(pgstore) -> None:
    with pytest.raises(RuntimeError), pgstore.repo.locked():
        pgstore.add_raw("Carol keeps bees", type="fact", user="carol")
        raise RuntimeError("interrupted")
    assert pgstore.list(status="all") == [] and pgstore.repo.journal.read() == []


def hold(store: MemoryStore, owner: str, entered: threading.Event, release: threading.Event) -> None:
    with store.repo.locked():
        store.repo.active(owner=owner)  # reading a scope folder inside a transaction locks it
        entered.set()
        release.wait(10)


def test_writers_of_one_owner_wait_for_each_other_and_other_owners_do_not(pgdir: Path) -> None:
    use_hashing_embedder(pgdir)
    holder, writer = MemoryStore(pgdir), MemoryStore(pgdir)
    writer.list()
    entered, release = threading.Event(), threading.Event()
    thread = threading.Thread(target=hold, args=(holder, "users/alice", entered, release))
    thread.start()
    assert entered.wait(10)
    start = time.monotonic()
    writer.add("Bob repairs bicycles", type="fact", user="bob")  # another owner: no wait
    assert time.monotonic() - start < 2
    with pytest.raises(LockTimeout), writer.repo.locked(timeout=0.5):
        writer.repo.active(owner="users/alice")
    release.set()
    thread.join()
    writer.add("Alice keeps bees", type="fact", user="alice")
    assert len(writer.list()) == 2


def test_a_row_that_does_not_validate_is_reported_and_skipped(pgstore) -> None:
    good = pgstore.add_raw("Dana sails a dinghy", type="fact", user="dana")
    bad = pgstore.add_raw("Dana sails a catamaran", type="fact", user="dana")
    with pgstore.repo.connection() as conn:
        conn.execute("UPDATE memctl_memories SET confidence = 7 WHERE id = %s", (bad.id,))
    fresh = MemoryStore(pgstore.root)
    assert [m.id for m in fresh.list()] == [good.id]
    assert any(bad.path in w for w in fresh.drain_warnings())
    problems = fresh.doctor()["problems"]
    assert [(p["kind"], p["path"]) for p in problems] == [("broken", bad.path)]
    assert [h.id for h in fresh.recall("Dana sails", record_usage=False).hits] == [good.id]


def test_a_scoped_read_never_loads_rows_outside_its_scope(pgstore) -> None:
    """list, stats, export and dedupe of one user read only that user's rows (the filter runs in SQL):
    a row of another user that does not validate is never met."""
    mine = pgstore.add_raw("Erin grows tomatoes", type="fact", user="erin")
    other = pgstore.add_raw("Fred grows potatoes", type="fact", user="fred")
    pgstore.search.warm_up()  # the search's own queue (every new row, whoever's) is worked off first
    with pgstore.repo.connection() as conn:
        conn.execute("UPDATE memctl_memories SET confidence = 7 WHERE id = %s", (other.id,))
    fresh = MemoryStore(pgstore.root)
    assert [m.id for m in fresh.list(user="erin", status="all")] == [mine.id]
    assert fresh.stats(user="erin")["total"] == 1 and len(fresh.export_records(user="erin")) == 1
    assert fresh.dedupe(user="erin", dry_run=True).considered == 1
    assert fresh.drain_warnings() == []
    assert fresh.list(user="fred") == [] and any(other.path in w for w in fresh.drain_warnings())
    assert fresh.stats(user="fred")["broken"] == 1 and fresh.stats(user="erin")["broken"] == 0


def test_memctl_store_overrides_the_folders_setting(tmp_path: Path, pg_url: str, monkeypatch) -> None:
    root = tmp_path / "team"
    root.mkdir()
    (root / "memctl.toml").write_text(store_config(""))
    monkeypatch.setenv("MEMCTL_STORE", pg_url)
    store = MemoryStore(root)
    assert store.repo.kind == "postgres"
    store.add_raw("Erin sings in a choir", type="fact", user="erin")
    monkeypatch.delenv("MEMCTL_STORE")
    assert MemoryStore(root).repo.kind == "files" and MemoryStore(root).list() == []


def test_a_named_lock_is_held_across_processes(pgstore) -> None:
    with pgstore.repo.named_lock("extract-alice-s1"), pytest.raises(LockTimeout):
        other = MemoryStore(pgstore.root)
        with other.repo.named_lock("extract-alice-s1", timeout=0.3):
            pass
    with MemoryStore(pgstore.root).repo.named_lock("extract-alice-s1", timeout=1):
        pass


def test_a_store_url_with_a_missing_database_says_so(tmp_path: Path, pg_server) -> None:
    root = tmp_path / "team"
    root.mkdir()
    (root / "memctl.toml").write_text(store_config(pg_server.base.replace("/postgres?", "/no_such_db?")))
    with pytest.raises(StoreError, match="no_such_db"):
        MemoryStore(root).list()


TYPED = """---
id: feedface
type: fact
kind: passport
scope: user
user: alice
confidence: 1.0
source: user
status: active
created: 2026-01-05T09:00:00Z
updated: 2026-01-05T09:00:00Z
fields:
  holder: Alice Martin
  country: FR
  expires: 2031-04-02
  fee: 86.00 EUR
  visas:
    amount: 2
    unit: pages
tags: [travel]
---
Alice's French passport expires on 2 April 2031.
"""


def test_a_folder_moves_into_postgresql_and_back_byte_for_byte(tmp_path: Path, pg_url: str) -> None:
    """`memctl import --from folder DIR` then `memctl export --to folder DIR` with MEMCTL_STORE set gives
    back every memory file of the sample directory at its relative path, byte for byte."""
    samples = tmp_path / "samples"
    shutil.copytree(SAMPLES, samples, ignore=shutil.ignore_patterns(".memctl"))
    (samples / "users" / "alice" / "alice-passport-feedface.md").write_text(TYPED)  # a typed memory too
    team = tmp_path / "team"
    team.mkdir()
    (team / "memctl.toml").write_text((samples / "memctl.toml").read_text())
    use_hashing_embedder(team)
    env = {**os.environ, "MEMCTL_STORE": pg_url}
    memctl = [sys.executable, "-m", "memctl", "-d", str(team)]
    imported = subprocess.run([*memctl, "import", "--from", "folder", str(samples)], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
    assert imported.returncode == 0, imported.stderr
    assert "103 taken" in imported.stdout
    assert sorted(p.name for p in team.iterdir()) == ["memctl.toml"]  # the memories went to the database
    exported = subprocess.run([*memctl, "export", "--to", "folder", str(tmp_path / "out")], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
    assert exported.returncode == 0, exported.stderr
    source = {k: v for k, v in tree_bytes(samples).items()
              if k.startswith(("users/", "projects/", "archive/")) and not k.endswith("/MEMORY.md")}
    assert len(source) == 103 and tree_bytes(tmp_path / "out") == source
    env.pop("MEMCTL_STORE")
    assert memory_texts(samples) == source  # and the folder itself was only read


def test_new_ids_are_drawn_in_batches_and_skip_taken_and_all_digit_ids(pgstore, monkeypatch) -> None:
    from memctl.store.postgres import repo as pgrepo

    taken = pgstore.add_raw("Alice is vegetarian", type="fact", user="alice").id
    pgstore.repo._ids = []  # what the add left drawn
    draws = iter([taken, "12345678", "abc12345", "def67890"] + [taken] * (pgrepo.ID_BATCH - 4))
    monkeypatch.setattr(pgrepo.secrets, "token_hex", lambda n: next(draws))
    assert sorted(pgstore.repo.new_id() for _ in range(2)) == ["abc12345", "def67890"]  # one query for the batch
    monkeypatch.undo()
    fresh = [pgstore.repo.new_id() for _ in range(3 * pgrepo.ID_BATCH)]
    assert len(set(fresh)) == len(fresh) and taken not in fresh
    pgstore.repo._ids, pgstore.repo._ids_pid = ["abc12345"], os.getpid() + 1  # as a forked child sees it
    assert pgstore.repo.new_id() != "abc12345"
