"""Migration: mem0 exports, a MemoryService SQLite table and a Claude Code folder come in through the
gate and the decision, with their dates, printing what was taken, merged and refused; a second run adds
nothing; memctl's own exports go out and come back with no loss."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.services.sources import _metadata
from memctl.store.directory import init_directory
from tests.helpers import TESTS, claude_folder, cli, cli_json, memory_texts, tree_bytes

MEM0 = TESTS / "fixtures" / "mem0_export.json"
SCHEMA = """CREATE TABLE structured_memories (
  id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, group_id TEXT, category TEXT NOT NULL,
  sub_type TEXT, content TEXT NOT NULL, confidence REAL DEFAULT 0.8, source TEXT DEFAULT 'auto',
  metadata TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)"""
ROWS = [
    ("123456", None, "profile", "name", "The user is called Xiao Ming", 0.9, "auto", None, 1700000000000, 1700000000000),
    ("123456", None, "preference", "like", "Xiao Ming likes programming in Rust", 0.85, "manual", '{"from": "chat"}',
     1700000100000, 1700000200000),
    ("123456", "789", "event", "plan", "The group plans a hike to Mount Tai on Saturday", 0.8, "summary", None,
     1700000300000, 1700000300000),
    ("123456", None, "relation", "pet", "Xiao Ming has a cat named Mochi", 0.5, "auto", None, 1700000400000, 1700000400000),
]


def memoryservice_db(path: Path) -> Path:
    with sqlite3.connect(path) as db:
        db.execute(SCHEMA)
        db.executemany("INSERT INTO structured_memories (user_id, group_id, category, sub_type, content, confidence, "
                       "source, metadata, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)", ROWS)
    return path


def memories(root: Path) -> dict[str, dict]:
    return {m.body: m.model_dump(mode="json") for m in MemoryStore(root).list(status="all")}


def test_a_mem0_export_comes_in_with_its_dates_and_owners(memdir: Path) -> None:
    result = cli(memdir, "import", "--from", "mem0", str(MEM0))
    assert result.exit_code == 3  # the empty memory is refused, and said so
    assert "mem0: 3 taken, 0 merged into stored memories, 0 imported before, 1 refused" in result.stdout
    assert "has no memory text" in result.stdout and "1 of 4 items refused" in result.stderr
    stored = memories(memdir)
    food = stored["Prefers vegetarian food and dislikes mushrooms"]
    assert (food["user"], food["created"], food["updated"]) == ("alex", "2024-07-20T17:31:12Z", "2024-07-21T15:00:00Z")
    assert food["source"] == "mem0" and food["source_ids"] == ["mem0:6f0b3c1e-2d4a-4c8e-9a11-3b1f0c6d7e01"]
    assert food["extra"]["mem0"] == {"hash": "4d1f6f0f3c8a4d7b9e2a", "metadata": {"food": True}}
    assert stored["Works as a nurse on night shifts at the city hospital"]["extra"]["mem0"]["run_id"] == "chat-42"
    bot = stored["Answer support tickets in formal English and sign as the Support Team"]
    assert (bot["scope"], bot["project"], bot["created"]) == ("project", "support-bot", "2024-06-01T00:00:00Z")


def test_a_second_import_adds_nothing(memdir: Path) -> None:
    cli(memdir, "import", "--from", "mem0", str(MEM0))
    before = tree_bytes(memdir)
    code, out = cli_json(memdir, "import", "--from", "mem0", str(MEM0))
    assert code == 3 and out["data"]["summary"] == {"taken": 0, "merged": 0, "already": 3, "refused": 1}
    assert tree_bytes(memdir) == before


def test_a_memoryservice_database_is_read_with_categories_groups_and_dates(memdir: Path, tmp_path: Path) -> None:
    db = memoryservice_db(tmp_path / "memory.db")
    original = db.read_bytes()
    result = cli(memdir, "import", "--from", "memoryservice", str(db))
    assert "memoryservice: 3 taken, 0 merged into stored memories, 0 imported before, 1 refused" in result.stdout
    assert "low_confidence" in result.stdout or "confidence 0.5" in result.stdout
    stored = memories(memdir)
    name = stored["The user is called Xiao Ming"]
    assert (name["type"], name["subtype"], name["extra"], name["user"]) == ("fact", "name", {"category": "profile"}, "123456")
    assert name["created"] == "2023-11-14T22:13:20Z" and name["source"] == "auto"
    rust = stored["Xiao Ming likes programming in Rust"]
    assert (rust["type"], rust["updated"], rust["extra"]) == ("preference", "2023-11-14T22:16:40Z", {"metadata": {"from": "chat"}})
    hike = stored["The group plans a hike to Mount Tai on Saturday"]
    assert (hike["scope"], hike["project"], hike["user"]) == ("project", "789", "123456")
    before = tree_bytes(memdir)
    code, out = cli_json(memdir, "import", "--from", "memoryservice", str(db))
    assert code == 3  # the low-confidence row is refused again
    assert out["data"]["summary"] == {"taken": 0, "merged": 0, "already": 3, "refused": 1} and tree_bytes(memdir) == before
    assert db.read_bytes() == original  # opened read-only


def test_memoryservice_categories_are_types_in_the_categories_preset(new_memdir, tmp_path: Path) -> None:
    root = new_memdir("cat", "categories")
    MemoryStore(root).import_from("memoryservice", str(memoryservice_db(tmp_path / "m.db")))
    stored = memories(root)
    assert stored["The user is called Xiao Ming"]["type"] == "profile" and stored["The user is called Xiao Ming"]["extra"] == {}


def test_old_memoryservice_rows_as_json_are_accepted(store: MemoryStore) -> None:
    row = {"userId": "123456", "category": "preference", "subType": "like", "content": "Likes green tea in the morning",
           "confidence": 0.9, "source": "manual", "createdAt": 1700000000000}
    report = store.import_from("memoryservice", text=json.dumps([row]))
    assert report.summary["taken"] == 1
    memory = store.list()[0]
    assert (memory.user, memory.subtype, memory.created.year, memory.source) == ("123456", "like", 2023, "manual")


def test_a_claude_folder_is_copied_into_a_memctl_directory(memdir: Path, tmp_path: Path) -> None:
    folder = claude_folder(tmp_path)
    before = tree_bytes(folder)
    report = MemoryStore(memdir).import_from("claude", str(folder))
    assert report.summary == {"taken": 6, "merged": 0, "already": 0, "refused": 0}
    assert tree_bytes(folder) == before and not (folder / ".memctl").exists()  # the source is only read
    stored = {m.name: m for m in MemoryStore(memdir).list()}
    testing = stored["Integration tests hit a real database"]
    assert (testing.type, testing.subtype, testing.project) == ("preference", "feedback", "home-dana-code-ingest")
    assert testing.description == "Never mock the database in integration tests"
    assert stored["Commit messages"].tags == ["git", "style"]
    again = MemoryStore(memdir).import_from("claude", str(folder), user="dana")
    assert again.summary["already"] == 6 and again.summary["taken"] == 0


@pytest.fixture
def rich(new_memdir, tmp_path: Path) -> Path:
    """A directory with every kind of memory: superseded, merged, conflicting, forgotten, session,
    project, expiring, unknown keys, importance, tags, keys (for postgres: that folder, imported)."""
    root = tmp_path / "rich-folder"
    init_directory(root)
    store = MemoryStore(root)
    store.add("Alice lives in Paris", type="fact", user="alice", key="home.city")
    store.add("Alice lives in Berlin", type="fact", user="alice", key="home.city")  # supersedes Paris
    store.add("Bob likes jazz", type="preference", user="bob")
    store.add("Bob dislikes jazz", type="preference", user="bob")  # possibly conflicting: linked both ways
    store.add("The shop deploys on Fridays after the checklist", type="decision", project="shop", tags=["release"])
    store.add("Alice is drafting the quarterly report today", type="context", user="alice", session="s1", ttl="7d")
    kept = store.add("Carol keeps bees on her roof", type="fact", user="carol", importance=1.0).memory
    gone = store.add("Carol used to live in Oslo", type="fact", user="carol").memory
    store.forget(gone.id, reason="outdated")
    path = root / str(kept.path)
    path.write_text(path.read_text().replace("---\nCarol", "hive_count: 3\nnotes: {colour: yellow}\n---\nCarol"))
    target = new_memdir("rich")
    if MemoryStore(target).repo.kind == "files":
        return root
    report = MemoryStore(target).import_from("folder", str(root))
    assert report.summary["taken"] == len(comparable(root))
    return target


def comparable(root: Path) -> dict[str, dict]:
    """Every memory's content, type, owner, dates, links, status and unknown keys, by id."""
    return {m.id: m.model_dump(mode="json", exclude={"path"}) for m in MemoryStore(root).list(status="all")}


def test_the_rich_fixture_has_every_link(rich: Path) -> None:
    data = comparable(rich).values()
    assert any(m["supersedes"] for m in data) and any(m["superseded_by"] for m in data)
    assert any(m["conflicts_with"] for m in data) and any(m["status"] == "forgotten" for m in data)
    assert any(m["session"] for m in data) and any(m["extra"] for m in data) and any(m["expires"] for m in data)


def test_export_jsonl_then_import_round_trips_with_no_loss(rich: Path, new_memdir, tmp_path: Path) -> None:
    exported = cli(rich, "export", "--to", "jsonl")
    assert exported.exit_code == 0 and len(exported.stdout.splitlines()) == len(comparable(rich))
    target = new_memdir("back")
    (tmp_path / "all.jsonl").write_text(exported.stdout)
    result = cli(target, "import", "--from", "jsonl", str(tmp_path / "all.jsonl"))
    assert result.exit_code == 0 and f"jsonl: {len(comparable(rich))} taken" in result.stdout
    assert comparable(target) == comparable(rich)
    back, source = memory_texts(target), memory_texts(rich)
    assert set(back) == set(source)  # the same relative paths; the files memctl wrote, the same bytes
    assert {k: v for k, v in back.items() if "bees" not in k} == {k: v for k, v in source.items() if "bees" not in k}
    again = cli_json(target, "import", "--from", "jsonl", "-", input=exported.stdout)[1]
    assert again["data"]["summary"]["already"] == len(comparable(rich)) and again["data"]["summary"]["taken"] == 0


def test_export_to_a_folder_gives_back_the_same_files_byte_for_byte(rich: Path, new_memdir, tmp_path: Path) -> None:
    code, out = cli_json(rich, "export", "--to", "folder", str(tmp_path / "out"))
    assert code == 0 and out["data"]["layout"] == "memctl"
    files = memory_texts(rich)
    assert tree_bytes(tmp_path / "out") == files and files
    target = new_memdir("back")
    report = MemoryStore(target).import_from("folder", str(tmp_path / "out"))
    assert report.summary == {"taken": len(files), "merged": 0, "already": 0, "refused": 0}
    assert comparable(target) == comparable(rich)


def test_a_claude_layout_export_round_trips_too(rich: Path, new_memdir, tmp_path: Path) -> None:
    MemoryStore(rich).export_folder(tmp_path / "claude", layout="claude")
    out = tmp_path / "claude"
    index = (out / "MEMORY.md").read_text().splitlines()
    assert index and all(line.startswith("- [") and ".md) — " in line for line in index)
    assert all(p.name.split("_")[0] in {"fact", "preference", "decision", "context"} for p in out.glob("*.md")
               if p.name != "MEMORY.md")
    target = new_memdir("back")
    MemoryStore(target).import_from("folder", str(out))
    original, back = comparable(rich), comparable(target)
    for memory_id, memory in original.items():  # Claude's layout adds a name and a description
        assert {k: v for k, v in back[memory_id].items() if k not in ("name", "description")} == \
               {k: v for k, v in memory.items() if k not in ("name", "description")}


@pytest.mark.parametrize(("args", "message"), [
    (["import", "--from", "nope", "x"], "unknown source 'nope'"),
    (["import", "--from", "mem0", "/no/such/file.json"], "cannot read /no/such/file.json"),
    (["import", "--from", "folder", "/no/such/folder"], "is not a folder"),
    (["export", "--to", "folder"], "export --to folder DIR"),
    (["export", "--to", "csv"], "export --to jsonl"),
    (["export", "--to", "folder", "x", "--layout", "flat"], "unknown layout 'flat'"),
])
def test_bad_sources_and_targets_are_usage_errors(memdir: Path, args: list[str], message: str) -> None:
    result = cli(memdir, *args)
    assert result.exit_code == 2 and message in result.stderr


def test_bad_files_are_one_line_errors(memdir: Path, tmp_path: Path) -> None:
    (tmp_path / "junk.json").write_text("{not json")
    (tmp_path / "empty.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    with sqlite3.connect(tmp_path / "other.db") as db:
        db.execute("CREATE TABLE notes (x TEXT)")
    for args, message in [(["mem0", "junk.json"], "cannot read the mem0 input"),
                          (["memoryservice", "other.db"], "has no structured_memories table"),
                          (["memoryservice", "empty.db"], "SQLite")]:
        result = cli(memdir, "import", "--from", args[0], str(tmp_path / args[1]))
        assert result.exit_code == 2 and message in result.stderr, result.stderr
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x.txt").write_text("x")
    refused = cli(memdir, "export", "--to", "folder", str(tmp_path / "full"))
    assert refused.exit_code == 2 and "not an empty folder" in refused.stderr


DEEP = "[" * 5000 + "]" * 5000  # a document Python's decoder would recurse into until a RecursionError


def test_deeply_nested_json_is_a_one_line_error(memdir: Path, tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text(DEEP)
    (tmp_path / "deep.jsonl").write_text('{"text": "Ada drinks her tea without sugar", "n": ' + DEEP + "}\n")
    for source, name in [("mem0", "deep.json"), ("jsonl", "deep.jsonl"), ("mem0", "deep.jsonl")]:
        result = cli(memdir, "import", "--from", source, str(tmp_path / name))
        assert result.exit_code == 2 and "nested deeper" in result.stderr, result.stderr
    assert _metadata(DEEP) == DEEP  # a memoryservice row's metadata that does not read stays text
