"""Compaction end to end: exact plans on 1,000 memories, nothing lost, undo, SIGKILL, CLI wiring."""

from __future__ import annotations

import copy
import functools
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from memctl import clock
from memctl.api import MemoryStore
from memctl.config import Config
from memctl.core.fileformat import serialise_memory
from memctl.core.models import Memory
from memctl.store.directory import read_config
from memctl.store.layout import MemctlLayout
from tests.helpers import ROOT, cli_json
from tests.postgres import load_rows, store_config
from tests.synthetic import NOW, Expected, make_memories, synthetic_settings


def memory_files(root: Path) -> dict[str, bytes]:
    """Every memory as the file it is (a folder) or would be (PostgreSQL: its path and exact text)."""
    repo = MemoryStore(root).repo
    if repo.kind == "files":
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))
                if p.name != "MEMORY.md" and ".memctl" not in p.parts}
    return {str(m.path): repo.original(m)["text"].encode() for m in repo.all_memories()}


def synthetic_config(root: Path) -> Config:
    """The directory's settings (for postgres: its store) with the lifecycle the planted cases assume."""
    return read_config(root).model_copy(update={"lifecycle": synthetic_settings()})


@functools.cache
def _planted() -> tuple[list[Memory], dict[str, dict], dict[tuple[str, str], float], Expected, dict[str, str]]:
    """The planted set (memories, usage records, similarities, what compact must do) and the files a
    folder holds for it, made once per process: serialising 1,000 memories was most of each set-up
    (PostgreSQL gets copies: storing a memory sets its path)."""
    memories, usage, similarity, expected = make_memories(1000, seed=0, now=NOW)
    records = {i: {"count": u.count, "last_used": clock.format_timestamp(u.last_used) if u.last_used else None,
                   "sessions": u.sessions} for i, u in usage.items()}
    layout = MemctlLayout(Path("."))
    files = {layout.relative(p): serialise_memory(m) for m, p in
             ((m, layout.new_path(m, archived=m.status != "active")) for m in memories)}
    return memories, records, similarity, expected, files


def _fill(url: str) -> None:
    """Store the planted set in the empty PostgreSQL store at `url` (a folder holding only its config)."""
    memories, records, *_ = _planted()
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "memctl.toml").write_text(store_config(url))
        load_rows(MemoryStore(folder), [m.model_copy() for m in memories], copy.deepcopy(records))


def build(root: Path, request: pytest.FixtureRequest):
    _, records, similarity, expected, files = _planted()
    if MemoryStore(root).repo.kind == "files":
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        (MemoryStore(root).repo.cache / "usage.json").write_text(json.dumps(records))
    else:  # a copy of a database the planted set was stored in once (per worker)
        server = request.getfixturevalue("pg_server")
        url = server.copy_of("planted", _fill)
        request.addfinalizer(lambda: server.drop_database(url))
        (root / "memctl.toml").write_text(store_config(url))
    clock.set_now(NOW)
    return MemoryStore(root, config=synthetic_config(root)), dict(similarity), copy.deepcopy(expected)


@pytest.fixture
def synthetic(memdir: Path, request: pytest.FixtureRequest):
    return (memdir, *build(memdir, request))


def test_plan_archives_exactly_the_expected_sets(synthetic) -> None:
    root, store, similarity, expected = synthetic
    before = memory_files(root)
    result = store.compact(dry_run=True, similarity=similarity)
    assert memory_files(root) == before  # dry run changes nothing
    actions = result["plan"]["actions"]
    by_kind = lambda kind: {i for a in actions if a["kind"] == kind for i in a["ids"]}  # noqa: E731
    assert by_kind("expire") == expected.expire
    assert by_kind("archive_low_importance") == expected.archive_low_importance
    assert by_kind("supersede_key") == set().union(*expected.supersede_key.values())
    assert [set(a["ids"]) for a in actions if a["kind"] == "consolidate"] == sorted(expected.consolidate, key=sorted)
    assert {a["ids"][0]: a["target_scope"] for a in actions if a["kind"] == "promote"} == expected.promote


def test_apply_loses_nothing_restores_and_undoes_byte_identically(synthetic) -> None:
    root, store, similarity, expected = synthetic
    before = memory_files(root)
    result = store.compact(similarity=similarity)
    after = memory_files(root)
    assert len(after) == len(before) + len(expected.consolidate) == len(before) + len(result["created"])
    archived_now = {m.id for m in MemoryStore(root).repo.all_memories() if m.path.startswith("archive/")}
    assert expected.archived() <= archived_now
    named = expected.archived() | set(expected.promote) | set(result["created"])
    by_id = {m.id: m for m in MemoryStore(root).repo.all_memories()}
    untouched = {p for p, data in before.items() if not any(i in p for i in named)}
    assert all(after.get(p) == before[p] for p in untouched)  # files not in the plan: byte-identical
    victim = sorted(expected.archive_low_importance)[0]
    assert by_id[victim].status == "archived"
    MemoryStore(root).restore(victim)
    assert MemoryStore(root).get(victim).path.startswith("users/") or MemoryStore(root).get(victim).path.startswith("projects/")
    # undo after a manual restore: the restored file is already where it was
    MemoryStore(root, config=synthetic_config(root)).undo_compaction()
    assert memory_files(root) == before


def test_recall_and_index_reflect_the_compacted_state(synthetic) -> None:
    root, store, similarity, expected = synthetic
    gone = sorted(expected.expire)[0]
    store.compact(similarity=similarity)
    fresh = MemoryStore(root)
    hits = fresh.recall(fresh.get(gone).body, k=50, record_usage=False).hits
    assert gone not in {h.id for h in hits}

    text = "\n".join(str(fresh.repo.read_memory_md(i["path"].rsplit("/", 1)[0])) for i in fresh.write_memory_md(all=True))
    assert gone not in text and all(i not in text for i in expected.archive_low_importance)


KILLER = """
import sys
from memctl import clock
from memctl.api import MemoryStore
from memctl.store.directory import read_config
from tests.synthetic import NOW, make_memories, synthetic_settings
clock.set_now(NOW)
_, _, similarity, _ = make_memories(1000, seed=0, now=NOW)
config = read_config(MemoryStore(sys.argv[1]).root).model_copy(update={"lifecycle": synthetic_settings()})
MemoryStore(sys.argv[1], config=config).compact(similarity=similarity)
"""


def _wait_mid_apply(store: MemoryStore, proc: subprocess.Popen) -> None:
    """Until the killer has applied at least three actions (a folder: its record says so; PostgreSQL:
    the compaction's transaction holds the store's lock, and three 0.4 s pauses have passed)."""
    deadline = time.time() + 60
    records = store.root / ".memctl" / "compactions"
    while time.time() < deadline and proc.poll() is None:
        if store.repo.kind == "files":
            done = [json.loads(p.read_text())["done"] for p in records.glob("*.json")] if records.exists() else []
            if done and len(done[0]) >= 3:
                return
        else:
            with store.repo.connection() as conn:
                if conn.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ExclusiveLock'"
                                ).fetchone()[0]:
                    time.sleep(1.3)
                    return
        time.sleep(0.05)


def test_sigkill_mid_apply_leaves_every_memory_once_and_next_compact_finishes(synthetic) -> None:
    root, store, similarity, expected = synthetic
    ids_before = {m.id for m in store.repo.all_memories()}
    env = {**os.environ, "MEMCTL_TEST_PAUSE_BETWEEN_ACTIONS": "0.4", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", KILLER, str(root)], env=env)
    _wait_mid_apply(store, proc)
    assert proc.poll() is None, "the compaction ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    fresh = MemoryStore(root)
    ids = [m.id for m in fresh.repo.all_memories()]
    assert not [p for p in fresh.doctor()["problems"] if p["kind"] == "duplicate_id"]
    assert len(ids) == len(set(ids)) and ids_before <= set(ids)  # every memory present exactly once
    result = MemoryStore(root, config=synthetic_config(root)).compact(similarity=similarity)
    # A folder resumes the plan it recorded; PostgreSQL rolled the killed transaction back whole.
    assert (result["resumed"] is not None) == (fresh.repo.kind == "files")
    archived = {m.id for m in MemoryStore(root).repo.all_memories() if m.path.startswith("archive/")}
    assert expected.archived() <= archived


def test_compact_cli_dry_run_apply_undo(samples: Path) -> None:
    before = memory_files(samples)
    code, out = cli_json(samples, "--now", "2026-11-30T12:00:00Z", "compact", "--dry-run")
    assert code == 0 and out["data"]["dry_run"] and out["data"]["plan"]["actions"]
    assert memory_files(samples) == before
    code, out = cli_json(samples, "--now", "2026-11-30T12:00:00Z", "compact")
    assert code == 0 and out["data"]["plan_id"]
    kinds = {a["kind"] for a in out["data"]["plan"]["actions"]}
    assert {"expire", "supersede_key"} <= kinds
    assert memory_files(samples) != before
    code, out = cli_json(samples, "compact", "--undo")
    assert code == 0 and memory_files(samples) == before
    code, out = cli_json(samples, "compact", "--undo")
    assert code == 4 and out["errors"][0]["code"] == "nothing_to_undo"


def test_ttl_expired_memory_leaves_recall_at_once(store: MemoryStore) -> None:
    memory = store.add_raw("Alice is at the dentist this afternoon", type="context", user="alice", ttl="2h")
    assert store.recall("dentist", record_usage=False).hits[0].id == memory.id
    clock.set_now(clock.now() + clock.parse_duration("3h"))
    assert store.recall("dentist", record_usage=False).hits == []


def test_llm_writes_the_consolidation_summary(synthetic, tmp_path: Path) -> None:
    root, store, similarity, expected = synthetic
    script = tmp_path / "summarise.py"
    script.write_text("import sys\nlines = [l[2:] for l in sys.stdin.read().splitlines() if l.startswith('- ')]\n"
                      "print('LLM summary: ' + ' '.join(lines))\n")
    result = store.compact(similarity=similarity, llm=f"{sys.executable} {script}")
    summaries = [MemoryStore(root).get(i) for i in result["created"]]
    assert summaries and all(s.body.startswith("LLM summary: ") for s in summaries)
    assert sorted(sorted(s.merged_from) for s in summaries) == sorted(sorted(c) for c in expected.consolidate)


def test_an_llm_summary_that_drops_a_value_is_not_used(synthetic, tmp_path: Path) -> None:
    root, store, similarity, expected = synthetic
    script = tmp_path / "summarise.py"
    script.write_text("import sys\nsys.stdin.read()\nprint('LLM summary: the user keeps asking about the weather.')\n")
    result = store.compact(similarity=similarity, llm=f"{sys.executable} {script}")
    summaries = [MemoryStore(root).get(i) for i in result["created"]]
    assert summaries and not any(s.body.startswith("LLM summary") for s in summaries)  # it named no one
    assert sorted(sorted(s.merged_from) for s in summaries) == sorted(sorted(c) for c in expected.consolidate)


@pytest.mark.files_only
def test_a_deeply_nested_compaction_record_is_skipped(samples: Path) -> None:
    # .memctl/compactions is shared with the folder: a record nested past Python's recursion limit
    # stopped compact and doctor (a RecursionError traceback).
    (samples / ".memctl" / "compactions").mkdir(parents=True, exist_ok=True)
    (samples / ".memctl" / "compactions" / "zz-deep.json").write_text("[" * 5000 + "]" * 5000)
    code, out = cli_json(samples, "--now", "2026-11-30T12:00:00Z", "compact", "--dry-run")
    assert code == 0 and out["data"]["dry_run"]
    code, out = cli_json(samples, "doctor")
    assert code in (0, 1) and out["ok"] is not None


@pytest.mark.files_only
def test_a_compaction_record_that_is_a_fifo_or_a_link_is_never_opened(samples: Path, tmp_path: Path) -> None:
    # README: the compaction records are read bounded, never through a link, never a FIFO (a FIFO
    # hung compact and doctor for good).
    records = samples / ".memctl" / "compactions"
    records.mkdir(parents=True, exist_ok=True)
    os.mkfifo(records / "zz-pipe.json")
    (tmp_path / "elsewhere.json").write_text(json.dumps({"plan_id": "elsewhere", "status": "applied"}))
    (records / "zz-link.json").symlink_to(tmp_path / "elsewhere.json")
    assert MemoryStore(samples).repo.compactions.last() is None


@pytest.mark.files_only
def test_a_compactions_folder_that_is_a_link_is_never_read(samples: Path, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "plan.json").write_text(json.dumps({"plan_id": "outside", "status": "applied"}))
    (samples / ".memctl").mkdir(exist_ok=True)
    (samples / ".memctl" / "compactions").symlink_to(tmp_path / "outside")
    assert MemoryStore(samples).repo.compactions.last() is None


@pytest.mark.files_only
def test_compact_never_writes_its_record_through_a_linked_compactions_folder(samples: Path, tmp_path: Path) -> None:
    # The record holds every touched memory's bytes: through a link they would land outside the folder.
    (tmp_path / "outside").mkdir()
    (samples / ".memctl").mkdir(exist_ok=True)
    (samples / ".memctl" / "compactions").symlink_to(tmp_path / "outside")
    before = memory_files(samples)
    code, out = cli_json(samples, "--now", "2026-11-30T12:00:00Z", "compact")
    assert code == 1 and out["errors"][0]["code"] == "linked_state"
    assert list((tmp_path / "outside").iterdir()) == [] and memory_files(samples) == before
