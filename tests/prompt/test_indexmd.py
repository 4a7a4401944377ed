"""MEMORY.md rendering: golden files, budget, priorities, determinism, template placeholders."""

from __future__ import annotations

import os
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from memctl.config import IndexSettings
from memctl.core.fileformat import parse_memory
from memctl.core.models import Memory
from memctl.prompt.indexmd import (
    PROTECTED_TYPES,
    approx_tokens,
    entry_line,
    fill_template,
    render_index,
)
from memctl.store.directory import packaged_text
from tests.helpers import ROOT, TESTS

GOLDEN = TESTS / "golden"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
TEMPLATE = (ROOT / "MEMORY.md.template").read_text(encoding="utf-8")


def mem(id: str, body: str, type: str = "fact", *, days_ago: float = 100, owner: str = "users/alice",
        **fields: Any) -> Memory:
    """A memory of `owner` (users/<u> or projects/<p>), its file named after the id."""
    kind, name = owner.split("/")
    fields.setdefault("scope", "user" if kind == "users" else "project")
    fields.setdefault("user" if kind == "users" else "project", name)
    when = NOW - timedelta(days=days_ago)
    path = fields.pop("path", f"{owner}/{type}-{id}.md")
    return Memory(id=id, type=type, body=body, created=when, updated=when, path=path, **fields)


def alice() -> list[Memory]:
    return [
        mem("a0000001", "Alice works as a product designer at Lumen, a fintech startup.", importance=0.9),
        mem("a0000002", "Alice lives in Lisbon.", key="home.city", days_ago=200),
        mem("a0000003", "Alice moved to Berlin in September 2026.", key="home.city", days_ago=60),
        mem("a0000004", "Alice writes in English and wants replies in English.", "preference",
            subtype="language"),
        mem("a0000005", "Alice prefers window seats on flights, ideally on the left side.", "preference"),
        mem("a0000006", "Alice is strong at interactive prototyping in Figma.", "skill"),
        mem("a0000007", "Alice does not take meetings before 10:00 local time.", "constraint", days_ago=5),
        mem("a0000008", "Alice decided to travel with carry-on luggage only from April 2026 on.", "decision"),
        mem("a0000009", "Alice keeps Thursday afternoons free for design critiques.", "habit"),
        mem("a000000a", "Alice presented the checkout redesign at a Web Summit side event.", "event",
            name="Web Summit talk", description="Checkout redesign talk, Lisbon, 2026-11-05."),
        mem("a000000b", "Alice is booking a trip to Tokyo [conference] for 2026-12-08.", "context",
            scope="session", session="s-1", expires=NOW + timedelta(days=3)),
        mem("a000000c", "Alice is comparing two flights to Rome.", "context", scope="session",
            session="s-0", expires=NOW - timedelta(days=1)),
        mem("a000000d", "Alice once liked aisle seats.", "preference", status="superseded"),
    ]


def shop() -> list[Memory]:
    owner = "projects/shop"
    return [
        mem("b0000001", "The shop replaces the legacy PHP checkout with a Go service.", "context",
            owner=owner, subtype="goal", key="goal", importance=0.9),
        mem("b0000002", "shop is written in Go 1.22 with PostgreSQL 16 and Redis.", owner=owner,
            subtype="stack", key="stack"),
        mem("b0000003", "Card numbers must never be stored or logged.", "constraint", owner=owner, importance=1.0),
        mem("b0000004", "Chose Stripe over Adyen for better SCA support.", "decision", owner=owner,
            days_ago=263),
        mem("b0000005", "2026-05-04: idempotency keys live in Redis with a 24-hour TTL.", "decision", owner=owner),
        mem("b0000006", "Current phase: beta rollout to 10% of EU traffic.", "context", owner=owner,
            subtype="phase", key="phase", days_ago=20),
        mem("b0000007", "ERR_42 means the payment provider timed out during authorisation.", owner=owner,
            subtype="error-code"),
        mem("b0000008", "PAY-1234: duplicate charges in production on 2026-08-14.", "event", owner=owner),
    ]


def wei() -> list[Memory]:
    owner = "users/wei"
    return [
        mem("c0000001", "是一名数据科学家，在一家电商公司做推荐算法。", owner=owner),
        mem("c0000002", "希望回复使用中文，但代码注释用英文。", "preference", owner=owner, subtype="language"),
        mem("c0000003", "喜欢喝绿茶，特别是龙井。", "preference", owner=owner),
        mem("c0000004", "公司数据不能上传到外部服务，所有模型都必须在内网训练。", "constraint", owner=owner),
        mem("c0000005", "熟练使用 PyTorch，主要做推荐系统的排序模型。", "skill", owner=owner),
        mem("c0000006", "Wei uses JupyterLab with the vim keybindings extension.", "habit", owner=owner,
            tags=["tools"]),
    ]


CASES = {
    "index_user_en.md": ("user", "alice", alice, "en", "users/alice"),
    "index_project_en.md": ("project", "shop", shop, "en", "projects/shop"),
    "index_user_zh.md": ("user", "wei", wei, "zh", "users/wei"),
}


def render(kind: str, name: str, memories: list[Memory], language: str = "en", folder: str = "users/alice",
           settings: IndexSettings | None = None, template: str = TEMPLATE, now: datetime = NOW,
           importance: dict[str, float] | None = None):
    return render_index(template, kind, name, memories, importance or {}, settings=settings or IndexSettings(),
                        language=language, now=now, folder=folder)


@pytest.mark.parametrize("golden", sorted(CASES))
def test_golden_output_is_byte_exact(golden: str) -> None:
    kind, name, factory, language, folder = CASES[golden]
    result = render(kind, name, factory(), language, folder)
    path = GOLDEN / golden
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_bytes(result.text.encode("utf-8"))
    assert result.text.encode("utf-8") == path.read_bytes()
    assert result.omitted == 0 and "more memories" not in result.text


def test_render_is_deterministic_whatever_the_input_order() -> None:
    memories = alice()
    first = render("user", "alice", memories).text
    assert render("user", "alice", memories).text == first
    assert render("user", "alice", list(reversed(memories))).text == first
    assert render("user", "alice", random.Random(3).sample(memories, len(memories))).text == first


def test_now_never_appears_and_only_matters_for_expiry() -> None:
    early = render("user", "alice", alice(), now=NOW)
    late = render("user", "alice", alice(), now=NOW + timedelta(hours=1))
    assert early.text == late.text
    assert "2026-11-30" not in early.text


def test_user_index_lists_active_unexpired_memories_grouped_with_relative_links() -> None:
    text = render("user", "alice", alice()).text
    assert "- [Alice does not take meetings before 10:00 local time](constraint-a0000007.md)\n" in text
    assert "- [Web Summit talk](event-a000000a.md) — Checkout redesign talk, Lisbon, 2026-11-05.\n" in text
    assert "Rome" not in text and "aisle" not in text  # expired session memory, superseded memory
    assert r"Alice is booking a trip to Tokyo \[conference\] for 2026-12-08" in text
    listing = text[text.index("## Memories"):]
    assert listing.index("### Constraints") < listing.index("### Decisions") < listing.index("### Preferences")
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_profile_shows_only_the_current_value_of_a_key() -> None:
    text = render("user", "alice", alice()).text
    profile = text[text.index("## Profile"):text.index("## Memories")]
    assert "Berlin" in profile and "Lisbon" not in profile
    assert "Lisbon" in text[text.index("## Memories"):]


def test_empty_scope_renders_a_placeholder_line() -> None:
    result = render("user", "nobody", [])
    assert "_No memories yet._" in result.text and "## Profile" not in result.text
    assert result.listed == 0 and result.omitted == 0


def synthetic_user(count: int, seed: int = 7) -> list[Memory]:
    """`count` memories of every type over a year, with wordy content of varying length."""
    rng = random.Random(seed)
    types = ["preference", "fact", "skill", "habit", "event", "context", "constraint", "decision", "feedback"]
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november".split()
    memories = []
    for n in range(count):
        body = f"Memory {n}: " + " ".join(rng.choice(words) for _ in range(rng.randint(6, 30))) + "."
        memories.append(mem(f"{n + 1:08x}", body, types[n % len(types)], days_ago=rng.uniform(0, 365),
                            confidence=round(rng.uniform(0.7, 1.0), 2)))
    return memories


def test_a_thousand_memories_stay_within_budget_and_keep_recent_corrections() -> None:
    memories = synthetic_user(1000)
    result = render("user", "alice", memories)
    text = result.text
    assert result.lines == len(text.splitlines()) <= 200
    assert result.bytes == len(text.encode("utf-8")) <= 25_000
    assert result.listed + result.omitted == 1000 and result.omitted > 0
    cutoff = NOW - timedelta(days=30)
    must_keep = [m for m in memories if m.type in PROTECTED_TYPES and m.updated >= cutoff]
    assert len(must_keep) > 10
    for memory in must_keep:
        assert f"-{memory.id}.md)" in text
    last = text.splitlines()[-1]
    assert last == f'_{result.omitted} more memories not listed: run `memctl recall "<topic>" --user alice`._'
    assert text.count("](") == result.listed


@pytest.mark.parametrize(
    "settings",
    [IndexSettings(max_lines=60), IndexSettings(max_bytes=3000), IndexSettings(max_tokens=800),
     IndexSettings(max_lines=40, max_bytes=100_000, max_tokens=0), IndexSettings(max_lines=12)],
)
def test_every_budget_is_respected(settings: IndexSettings) -> None:
    result = render("user", "alice", synthetic_user(300), settings=settings)
    assert result.lines <= settings.max_lines and result.bytes <= settings.max_bytes
    if settings.max_tokens:
        assert result.tokens == approx_tokens(result.text) <= settings.max_tokens
    assert result.omitted > 0 and "more memories not listed" in result.text.splitlines()[-1]


def test_profile_is_bounded_to_a_share_of_the_budget() -> None:
    many_facts = [mem(f"{n + 1:08x}", f"Alice fact {n} " + "detail " * 12, days_ago=n) for n in range(40)]
    tight = render("user", "alice", many_facts, settings=IndexSettings(max_lines=40))
    assert tight.profile_lines <= 10 - 2 and tight.listed > 0
    assert render("user", "alice", many_facts).profile_lines == 5


def test_importance_decides_which_ordinary_memories_are_kept() -> None:
    memories = [mem(f"{n + 1:08x}", f"Ordinary fact number {n}.", days_ago=200) for n in range(30)]
    favourite = memories[17].id
    result = render("user", "alice", memories, settings=IndexSettings(max_lines=20),
                    importance={favourite: 1.0})
    assert f"fact-{favourite}.md" in result.text and result.omitted > 0


def test_footer_in_chinese_names_the_project_flag() -> None:
    memories = [mem(f"{n + 1:08x}", f"事实编号 {n}，内容很长很长。", owner="projects/shop") for n in range(50)]
    result = render("project", "shop", memories, "zh", "projects/shop", IndexSettings(max_lines=20))
    assert result.text.splitlines()[-1] == (
        f'_另有 {result.omitted} 条记忆未列出：运行 `memctl recall "<主题>" --project shop` 查找。_')


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{ name }} / {{kind}} / {{  count }} / {{ unknown }}\n{{ memories }}",
         "alice / user / 2 / {{ unknown }}\n## Memories\n\n### Facts\n"
         "- [One fact here, long enough](fact-00000001.md)\n- [Two facts here, long enough](fact-00000002.md)\n"),
        ("Header only\n", "Header only\n\n## Memories\n\n### Facts\n- [One fact here, long enough](fact-00000001.md)"
                          "\n- [Two facts here, long enough](fact-00000002.md)\n"),
        ("{{ listed }}+{{ omitted }} updated {{ updated }}\n\n\n\n{{ memories }}\n", None),
    ],
)
def test_template_placeholders(template: str, expected: str | None) -> None:
    memories = [mem("00000001", "One fact here, long enough.", days_ago=3),
                mem("00000002", "Two facts here, long enough.", days_ago=9)]
    text = render("user", "alice", memories, template=template).text
    if expected is not None:
        assert text == expected
    else:
        assert text.startswith("2+0 updated 2026-11-27\n\n## Memories\n")


def test_fill_template_appends_a_missing_footer_and_collapses_blank_lines() -> None:
    assert fill_template("A\n\n\n\n{{ memories }}\n", {"memories": "M", "footer": "F"}) == "A\n\nM\n\nF\n"
    assert fill_template("{{ footer }}", {"memories": "", "footer": ""}) == "\n"


@pytest.mark.parametrize(
    ("fields", "folder", "expected"),
    [
        ({}, "users/alice", "- [Alice likes tea](fact-00000001.md)"),
        ({"name": "Tea", "description": "Green, no sugar."}, "users/alice", "- [Tea](fact-00000001.md) — Green, no sugar."),
        ({"name": "Tea"}, "users/alice", "- [Tea](fact-00000001.md) — Alice likes tea."),
        ({"path": "users/alice/my notes (1).md"}, "users/alice", "- [Alice likes tea](<my notes (1).md>)"),
        ({"path": None}, "users/alice", "- Alice likes tea"),
        ({}, "", "- [Alice likes tea](users/alice/fact-00000001.md)"),
    ],
)
def test_entry_line(fields: dict[str, Any], folder: str, expected: str) -> None:
    assert entry_line(mem("00000001", "Alice likes tea.", **fields), folder) == expected


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("", 0), ("abcd", 1), ("abcde", 2), ("数据", 2), ("ab数据", 3), ("Hello, 世界!", 4)],
)
def test_approx_tokens(text: str, tokens: int) -> None:
    assert approx_tokens(text) == tokens


def test_the_template_ships_as_package_data_unchanged() -> None:
    assert (ROOT / "memctl" / "data" / "MEMORY.md.template").read_bytes() == (ROOT / "MEMORY.md.template").read_bytes()
    assert packaged_text("MEMORY.md.template") == TEMPLATE
    for placeholder in ("title", "profile", "memories", "footer"):
        assert "{{ " + placeholder + " }}" in TEMPLATE


@pytest.mark.parametrize("owner", ["users/alice", "users/wei", "projects/checkout-service"])
def test_sample_memories_render_within_budget(owner: str) -> None:
    folder = ROOT / "sample_memories" / owner
    memories = [parse_memory(p.read_text(encoding="utf-8"), f"{owner}/{p.name}") for p in sorted(folder.glob("*.md"))
                if p.name != "MEMORY.md"]
    kind, name = owner.split("/")
    result = render("user" if kind == "users" else "project", name, memories, folder=owner)
    assert result.omitted == 0 and result.listed >= len(memories) - 2
    for memory in memories:
        if not memory.is_expired(NOW):
            assert f"]({Path(memory.path).name})" in result.text
