"""The Claude Code layout behind the Repository seam: flat topic files, file names as handles, reads
that never write, edits that keep the user's form, archive under the same name."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.core.claudefile import derived_id
from memctl.store.claude import ClaudeRepository
from memctl.store.claudelayout import default_project, looks_like_claude, topic_name
from memctl.store.directory import init_directory
from tests.helpers import claude_folder, tree_bytes


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = claude_folder(tmp_path)
    init_directory(root, "claude")
    return root


def without_config(tree: dict[str, bytes]) -> dict[str, bytes]:
    return {k: v for k, v in tree.items() if k != "memctl.toml"}


def test_adopting_writes_memctl_toml_and_caches_and_nothing_else(tmp_path: Path) -> None:
    root = claude_folder(tmp_path)
    before = tree_bytes(root)
    assert init_directory(root, "claude") == ["memctl.toml", ".memctl/"]
    assert without_config(tree_bytes(root)) == before
    assert sorted(p.name for p in root.iterdir()) == sorted([*before, "memctl.toml", ".memctl"])
    assert init_directory(root) == []  # idempotent, and never creates users/ or projects/ here


def test_the_layout_is_recognised_and_its_project_named_after_the_folder(tmp_path: Path) -> None:
    root = claude_folder(tmp_path)
    assert looks_like_claude(root)
    assert default_project(root) == "home-dana-code-ingest"
    assert default_project(tmp_path / "My Notes") == "My-Notes"
    init_directory(tmp_path / "mem")
    assert not looks_like_claude(tmp_path / "mem")
    assert init_directory(root) == ["memctl.toml", ".memctl/"]  # no preset: recognised and adopted
    store = MemoryStore(root)
    assert (store.config.layout.kind, store.config.memory.preset) == ("claude", "claude")
    assert isinstance(store.repo, ClaudeRepository)


def test_every_md_but_memory_md_is_a_memory_with_an_id_derived_from_its_name(folder: Path) -> None:
    store = MemoryStore(folder)
    paths = {m.path: m for m in store.list()}
    assert sorted(paths) == sorted(p.name for p in folder.glob("*.md") if p.name != "MEMORY.md")
    for rel, memory in paths.items():
        assert memory.id == derived_id(rel) and memory.project == "home-dana-code-ingest"
    assert paths["feedback_testing.md"].type == "feedback" and paths["debugging_notes.md"].name == "Debugging the uploader"
    assert MemoryStore(folder).get(paths["user_role.md"].id[:6]).path == "user_role.md"  # stable across opens


def test_reading_never_rewrites_a_file(folder: Path) -> None:
    before = tree_bytes(folder)
    store = MemoryStore(folder)
    store.list()
    store.recall("real database in integration tests")
    store.show(store.list()[0].id)
    store.stats()
    assert store.doctor()["problems"] == []
    assert tree_bytes(folder) == before


def test_new_memories_are_type_slug_files_with_claudes_keys_first(folder: Path) -> None:
    store = MemoryStore(folder)
    result = store.add("The staging cluster is rebuilt every Monday at 06:00 UTC", type="project")
    path = folder / str(result.memory.path)
    assert path.name == "project_the_staging_cluster_is_rebuilt_every.md"
    lines = path.read_text().splitlines()
    assert lines[0] == "---" and [line.split(":")[0] for line in lines[1:4]] == ["name", "description", "type"]
    again = store.add_raw("The staging cluster is rebuilt every Monday at 07:00 UTC", type="project",
                          project="home-dana-code-ingest")
    assert again.path == "project_the_staging_cluster_is_rebuilt_every_2.md"
    assert topic_name(again, "x").startswith("project_the_staging")


def test_an_edit_keeps_comments_order_and_formatting_of_untouched_keys(folder: Path) -> None:
    original = (folder / "feedback_testing.md").read_text()
    store = MemoryStore(folder)
    memory = store.list(type="feedback", sort="id")
    testing = next(m for m in memory if m.path == "feedback_testing.md")
    store.edit(testing.id, {"description": "Integration tests use the real database"})
    text = (folder / "feedback_testing.md").read_text()
    assert text == original.replace("description: Never mock the database in integration tests",
                                    "description: Integration tests use the real database")
    store.edit(testing.id, {"confidence": "0.9"})
    after = (folder / "feedback_testing.md").read_text().splitlines()
    assert after[:5] == text.splitlines()[:5] and after[5:7] == ["confidence: 0.9", "---"]


def test_forget_moves_to_archive_under_the_same_name_and_restore_gives_the_bytes_back(folder: Path) -> None:
    original = (folder / "user_role.md").read_bytes()
    store = MemoryStore(folder)
    memory_id = derived_id("user_role.md")
    archived = store.forget(memory_id, reason="moved teams")
    assert archived.path == "archive/user_role.md" and not (folder / "user_role.md").exists()
    assert MemoryStore(folder).get(memory_id).status == "forgotten"
    assert store.restore(memory_id).path == "user_role.md"
    assert (folder / "user_role.md").read_bytes() == original


def test_the_catalog_follows_the_folders_project(folder: Path) -> None:
    MemoryStore(folder).list()
    MemoryStore(folder).set_setting("layout.project", "ingest")
    assert {m.project for m in MemoryStore(folder).list()} == {"ingest"}


def test_a_folder_without_an_index_gets_one_on_the_first_write(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    init_directory(root, "claude")
    assert sorted(p.name for p in root.iterdir()) == [".memctl", "memctl.toml"]
    (root / "extract_prompt.md").write_text("memctl's prompt, not a memory\n")
    store = MemoryStore(root)
    added = store.add("The user wants answers in British English", type="user").memory
    assert added is not None and [m.path for m in store.list()] == [added.path]
    assert (root / "MEMORY.md").read_text().startswith(f"- [The user wants answers in British English]({added.path}) — ")


def test_the_claude_preset_on_a_memctl_tree_keeps_the_memctl_layout(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / "users").mkdir(parents=True)
    init_directory(root, "claude")
    store = MemoryStore(root)
    assert (store.config.layout.kind, store.config.memory.preset) == ("memctl", "claude")
