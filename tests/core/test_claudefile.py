"""Claude Code topic files: what reading fills in, what a new file looks like, and edits that touch
only the keys that changed (comments, order and formatting of the rest kept byte for byte)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memctl.core.claudefile import (
    TopicDefaults,
    derive_description,
    derive_name,
    derived_id,
    edit_topic_text,
    new_topic_text,
    parse_topic,
)
from memctl.errors import InvalidMemory

DEFAULTS = TopicDefaults(project="shop", type="user")
MTIME = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
HAND = """---
name: Testing preferences   # what the user said
# a comment line of its own
description: "Integration tests hit a real database"
type: feedback
tags:
-   testing
-   db
extra_key: {x: 1,  y: 2}
---

Integration tests must hit a real database, not mocks.
"""


def read(text: str, rel: str = "feedback_testing.md"):
    return parse_topic(text, rel, MTIME, DEFAULTS)


def edited(text: str, rel: str = "feedback_testing.md", **changes):
    old = read(text, rel)
    data = old.model_dump(exclude={"path"})
    data.update(changes)
    new = type(old)(**data, path=rel)
    return edit_topic_text(text, old, new, rel)


def test_reading_fills_in_what_the_file_leaves_out() -> None:
    memory = read(HAND)
    assert memory.id == derived_id("feedback_testing.md") and len(memory.id) == 8
    assert (memory.type, memory.scope, memory.project, memory.user) == ("feedback", "project", "shop", None)
    assert memory.created == memory.updated == MTIME
    assert memory.name == "Testing preferences" and memory.description == "Integration tests hit a real database"
    assert memory.tags == ["testing", "db"] and memory.extra == {"extra_key": {"x": 1, "y": 2}}
    assert memory.body == "Integration tests must hit a real database, not mocks."


def test_the_derived_id_follows_the_file_name_not_the_folder() -> None:
    assert derived_id("user_role.md") == derived_id("archive/user_role.md") != derived_id("user_roles.md")
    assert all(not derived_id(f"n{i}.md").isdigit() for i in range(200))


def test_a_file_keeps_what_it_says_about_itself() -> None:
    text = "---\nid: 3f9a1c2e\ntype: fact\nscope: user\nuser: alice\ncreated: 2025-01-02T03:04:05Z\n---\nAlice likes tea\n"
    memory = read(text, "alice.md")
    assert (memory.id, memory.scope, memory.user, memory.project) == ("3f9a1c2e", "user", "alice", None)
    assert memory.created == memory.updated == datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def test_plain_markdown_and_frontmatter_only_files_are_memories() -> None:
    note = read("# Debugging the uploader\n\nAbort stale multipart uploads.\n", "debugging.md")
    assert note.name == "Debugging the uploader" and note.type == "user" and "Abort stale" in note.body
    only = read("---\nname: Prefers tea\ndescription: Tea over coffee, always\ntype: user\n---\n", "tea.md")
    assert only.body == "Tea over coffee, always"


@pytest.mark.parametrize(("text", "message"), [
    ("---\nname: x\ntype: user\nno closing fence\n", "no closing ---"),
    ("---\nname: [unclosed\n---\nbody\n", "malformed YAML"),
    ("---\n- a\n- b\n---\nbody\n", "not a mapping"),
    ("---\ntype: user\n---\n\n", "no content"),
])
def test_a_broken_file_is_one_clear_error(text: str, message: str) -> None:
    with pytest.raises(InvalidMemory, match=message):
        read(text, "broken.md")


def test_a_new_file_puts_claudes_three_keys_first_and_leaves_out_what_is_implied() -> None:
    memory = read("---\nname: Tea\ndescription: Prefers tea\ntype: user\n---\nThe user prefers tea.\n", "user_tea.md")
    memory.confidence, memory.source = 0.9, "ai"
    text = new_topic_text(memory, "user_tea.md", DEFAULTS)
    assert text.splitlines()[:4] == ["---", "name: Tea", "description: Prefers tea", "type: user"]
    assert "id:" not in text and "status:" not in text and "project:" not in text and "scope:" not in text
    assert "confidence: 0.9" in text and "source: ai" in text and text.endswith("---\nThe user prefers tea.\n")
    assert read(text, "user_tea.md").model_dump() == memory.model_dump()  # nothing is lost in the round trip


def test_a_new_file_for_another_owner_says_so() -> None:
    memory = read("---\ntype: fact\nscope: user\nuser: bob\nid: 0badcafe\n---\nBob likes jazz\n", "x.md")
    text = new_topic_text(memory, "fact_bob.md", DEFAULTS)
    assert "id: 0badcafe" in text and "scope: user" in text and "user: bob" in text
    assert read(text, "fact_bob.md").model_dump(exclude={"path"}) == memory.model_dump(exclude={"path"})


def test_an_unchanged_memory_gives_back_the_same_bytes() -> None:
    assert edited(HAND) == HAND


def test_changing_one_value_touches_only_its_line_and_keeps_its_comment() -> None:
    out = edited(HAND, name="Testing rules")
    assert out == HAND.replace("name: Testing preferences   #", "name: Testing rules   #")


def test_a_key_the_file_lacks_is_added_after_claudes_keys_never_before() -> None:
    out = edited(HAND, confidence=0.8)
    assert out == HAND.replace("extra_key: {x: 1,  y: 2}\n", "extra_key: {x: 1,  y: 2}\nconfidence: 0.8\n")
    bare = "---\ntype: user\nsource: ai\n---\nThe user likes tea\n"
    out = edited(bare, "tea.md", name="Tea", description="Likes tea")
    assert out == "---\nname: Tea\ndescription: Likes tea\ntype: user\nsource: ai\n---\nThe user likes tea\n"


def test_removing_a_key_keeps_the_comment_lines_around_it() -> None:
    out = edited(HAND, tags=[])
    assert out == HAND.replace("tags:\n-   testing\n-   db\n", "")
    out = edited(HAND, name=None)
    assert out == HAND.replace("name: Testing preferences   # what the user said\n", "")


def test_dates_a_file_never_had_stay_out_of_it() -> None:
    later = datetime(2026, 5, 1, tzinfo=timezone.utc)
    assert edited(HAND, updated=later) == HAND  # its modification time keeps standing for the dates
    dated = HAND.replace("type: feedback\n", "type: feedback\nupdated: 2026-01-01T00:00:00Z\n")
    assert "updated: 2026-05-01T00:00:00Z\n" in edited(dated, updated=later)


def test_archiving_and_restoring_adds_then_removes_only_memctls_keys() -> None:
    archived = edited(HAND, status="forgotten", archived_reason="old", archived_at=MTIME)
    assert archived.startswith(HAND.split("---\n\n")[0]) and "status: forgotten\n" in archived
    old = read(archived, "archive/feedback_testing.md")
    data = old.model_dump(exclude={"path", "archived_reason", "archived_at"})
    data["status"] = "active"
    restored = edit_topic_text(archived, old, type(old)(**data), "feedback_testing.md")
    assert restored == HAND


def test_a_new_body_keeps_the_frontmatter_and_the_blank_line_after_it() -> None:
    out = edited(HAND, body="Use the test container.")
    assert out == HAND.split("---\n\n")[0] + "---\n\nUse the test container.\n"


def test_a_plain_note_gains_frontmatter_only_when_a_field_changes() -> None:
    note = "# Uploader\n\nAbort stale uploads.\n"
    assert edited(note, "notes.md", body="# Uploader\n\nAbort stale uploads now.") == "# Uploader\n\nAbort stale uploads now.\n"
    out = edited(note, "notes.md", description="How to unstick the uploader")
    assert out == "---\ndescription: How to unstick the uploader\n---\n" + note


def test_crlf_files_stay_crlf() -> None:
    text = HAND.replace("\n", "\r\n")
    assert edited(text, confidence=0.5).count("\r\n") == text.count("\r\n") + 1


def test_a_flow_mapping_frontmatter_is_refused_not_rewritten() -> None:
    text = "---\n{name: Tea, description: Likes tea, type: user}\n---\nThe user likes tea\n"
    with pytest.raises(InvalidMemory, match="edit it by hand"):
        edited(text, "tea.md", confidence=0.5)


def test_derived_names_and_descriptions_are_short_and_on_one_line() -> None:
    body = "Deploys happen on Fridays only. After the checklist is signed by the release manager, who is Priya."
    assert derive_name(body) == "Deploys happen on Fridays only"
    assert derive_name("x " * 100).endswith("…") and len(derive_name("word " * 100)) <= 60
    assert "\n" not in derive_description("a\nb") and len(derive_description("word " * 100)) <= 150
