"""Claude Code's MEMORY.md: the flat `- [Title](file.md) — hook` list, its budget, and hand lines kept."""

from __future__ import annotations

from datetime import datetime, timezone

from memctl.config import IndexSettings
from memctl.core.models import Memory
from memctl.prompt.claude_index import FOOTER, footer_line, link_target, render_claude_index

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
SETTINGS = IndexSettings()


def memory(n: int, type_: str = "user", **fields) -> Memory:
    data = {"id": f"{n:08x}a", "type": type_, "scope": "project", "project": "p", "created": NOW, "updated": NOW,
            "body": f"Memory number {n} says something", "name": f"Title {n}", "description": f"hook {n}",
            "path": f"{type_}_{n}.md", **fields}
    return Memory(**data)


def render(existing, memories, ours=(), settings=SETTINGS):
    importance = {m.id: m.confidence for m in memories}
    return render_claude_index(existing, ours, memories, importance, settings=settings, now=NOW)


def test_a_new_index_is_the_flat_list_claude_code_reads() -> None:
    result = render(None, [memory(1), memory(2, "feedback")])
    assert result.text == ("- [Title 2](feedback_2.md) — hook 2\n"  # feedback (a correction) first
                           "- [Title 1](user_1.md) — hook 1\n")
    assert result.generated == result.text.splitlines() and (result.listed, result.omitted, result.kept) == (2, 0, 0)


def test_hand_written_lines_are_kept_where_they_are_and_not_listed_twice() -> None:
    existing = "# Index\n\n- [Mine](user_1.md) — my words\n\nA note.\n"
    result = render(existing, [memory(1), memory(2)])
    assert result.text == "# Index\n\n- [Mine](user_1.md) — my words\n- [Title 2](user_2.md) — hook 2\n\nA note.\n"
    assert result.generated == ["- [Title 2](user_2.md) — hook 2"] and (result.kept, result.listed) == (5, 2)


def test_an_index_that_already_lists_everything_comes_back_byte_for_byte() -> None:
    existing = "- [Mine](user_1.md) — my words\r\n- [Also mine](./user_2.md)"  # CRLF, no final newline
    assert render(existing, [memory(1), memory(2)]).text == existing


def test_memctls_own_lines_are_updated_in_place_and_dropped_when_their_memory_goes() -> None:
    first = render("# Index\n", [memory(1), memory(2)])
    changed = memory(1, description="a new hook")
    second = render(first.text + "Hand line at the end.\n", [changed], ours=first.generated)
    assert second.text == "# Index\n- [Title 1](user_1.md) — a new hook\nHand line at the end.\n"


def test_a_memctl_line_someone_edited_becomes_theirs() -> None:
    first = render(None, [memory(1), memory(2)])
    edited = first.text.replace("hook 1", "hook 1, as I put it")
    result = render(edited, [memory(1, description="changed"), memory(2)], ours=first.generated)
    assert "hook 1, as I put it" in result.text and "changed" not in result.text


def test_a_lost_record_loses_nothing() -> None:
    first = render(None, [memory(1)])
    assert render(first.text, [memory(1), memory(2)], ours=()).text.count("user_1.md") == 1


def test_over_budget_the_most_important_are_kept_and_the_rest_counted_last() -> None:
    many = [memory(i, confidence=0.5 + i / 1000) for i in range(300)]
    result = render("# Kept\n", many)
    lines = result.text.splitlines()
    assert len(lines) == 200 and lines[0] == "# Kept" and FOOTER.match(lines[-1])
    assert result.listed == 198 and result.omitted == 102 and lines[-1] == footer_line(102)
    assert "Title 299" in result.text and "Title 0]" not in result.text
    tight = render(None, many, settings=IndexSettings(max_bytes=2000))
    assert len(tight.text.encode()) <= 2000 and FOOTER.match(tight.text.splitlines()[-1])


def test_the_footer_of_a_previous_render_is_replaced() -> None:
    many = [memory(i) for i in range(5)]
    small = IndexSettings(max_lines=3)
    first = render(None, many, settings=small)
    second = render(first.text, many, ours=first.generated, settings=small)
    assert second.text == first.text and second.text.count("more memories") == 1


def test_link_targets() -> None:
    assert link_target("- [A](a.md) — x") == "a.md"
    assert link_target("* [A \\] b](<my file.md>)") == "my file.md"
    assert link_target("- [A](./dir%20x/a.md)") == "dir x/a.md"
    assert link_target("plain text") is None
