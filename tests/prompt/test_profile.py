"""Profiles (sections from memories), labels in English and Chinese, and titles/hooks."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from memctl.config import PRESETS
from memctl.core.models import Memory
from memctl.prompt.labels import (
    PHRASES,
    SECTION_LABELS,
    one_line,
    phrase,
    section_label,
    short_title,
    type_label,
)
from memctl.prompt.profile import (
    PROJECT_RULES,
    USER_RULES,
    build_profile,
    classify,
    current_versions,
    importance_of,
    limit_profile,
    render_profile_markdown,
)

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)
_counter = iter(range(1, 10_000))


def mem(body: str, type: str = "fact", *, days: int = 0, **fields: Any) -> Memory:
    """A user memory for alice (or a project memory when `project=` is given)."""
    fields.setdefault("scope", "project" if "project" in fields else "user")
    if fields["scope"] in ("user", "session"):
        fields.setdefault("user", "alice")
    when = T0 + timedelta(days=days)
    return Memory(id=f"{next(_counter):08x}", type=type, body=body, created=when, updated=when, **fields)


@pytest.mark.parametrize(
    ("memory", "rules", "expected"),
    [
        (mem("Alice is a designer.", "fact"), USER_RULES, "identity"),
        (mem("Replies in English.", "preference", subtype="language"), USER_RULES, "communication"),
        (mem("Short answers.", "preference", tags=["communication"]), USER_RULES, "communication"),
        (mem("Window seats.", "preference"), USER_RULES, "preferences"),
        (mem("Don't summarise at the end.", "feedback"), USER_RULES, "preferences"),
        (mem("Uses VS Code.", "preference", key="tools.editor"), USER_RULES, "tools"),
        (mem("Knows Figma.", "skill"), USER_RULES, "skills"),
        (mem("Runs every morning.", "habit"), USER_RULES, "habits"),
        (mem("Flew to Tokyo.", "event"), USER_RULES, None),
        (mem("She is a vegetarian.", "user"), USER_RULES, "identity"),
        (mem("Replaces the PHP checkout.", "context", project="shop", key="goal"), PROJECT_RULES, "goal"),
        (mem("Go and PostgreSQL.", "fact", project="shop", subtype="stack"), PROJECT_RULES, "stack"),
        (mem("Beta at 10%.", "context", project="shop", subtype="phase"), PROJECT_RULES, "phase"),
        (mem("p99 under 300 ms.", "constraint", project="shop"), PROJECT_RULES, "constraints"),
        (mem("Chose Stripe.", "decision", project="shop"), PROJECT_RULES, "decisions"),
        (mem("Bob is tech lead.", "context", project="shop", subtype="team"), PROJECT_RULES, None),
    ],
)
def test_classify_puts_each_memory_in_one_section(memory: Memory, rules: Any, expected: str | None) -> None:
    assert classify(memory, rules) == expected


def test_current_versions_keeps_only_the_newest_memory_per_key() -> None:
    old = mem("Alice lives in Lisbon.", key="home.city", days=0)
    new = mem("Alice moved to Berlin.", key="home.city", days=30)
    keyless = mem("Alice is a designer.")
    assert current_versions([new, keyless, old]) == [new, keyless]


def test_user_profile_sections_in_order_with_current_values_and_no_session_memories() -> None:
    memories = [
        mem("Alice lives in Lisbon.", key="home.city", days=0),
        mem("Alice moved to Berlin.", key="home.city", days=30),
        mem("Alice knows Figma well.", "skill"),
        mem("Alice wants short replies.", "preference", subtype="communication"),
        mem("Alice is comparing flights.", "context", scope="session", session="s1"),
        mem("Alice runs on Sundays.", "habit"),
    ]
    profile = build_profile("user", "alice", memories, {})
    assert [heading for heading, _ in profile.sections] == [
        "Identity & background", "Communication & format", "Skills", "Habits"]
    assert profile.sections[0][1] == ["Alice moved to Berlin."]
    assert "Alice is comparing flights." not in render_profile_markdown(profile)


def test_project_profile_dates_decisions_and_ranks_by_importance() -> None:
    memories = [
        mem("Use Redis for idempotency keys.", "decision", project="shop", days=3),
        mem("2026-03-12: chose Stripe over Adyen.", "decision", project="shop"),
        mem("Never store card numbers.", "constraint", project="shop", importance=1.0),
        mem("Deprecations take 90 days.", "constraint", project="shop", importance=0.4),
    ]
    profile = build_profile("project", "shop", memories, {})
    sections = dict(profile.sections)
    assert sections["Key decisions"] == ["2026-11-04: Use Redis for idempotency keys.",
                                         "2026-03-12: chose Stripe over Adyen."]
    assert sections["Constraints"] == ["Never store card numbers.", "Deprecations take 90 days."]


def test_importance_mapping_overrides_the_file_value_and_orders_lines() -> None:
    low, high = mem("Alice is tall.", importance=0.9), mem("Alice is a designer.", importance=0.1)
    assert importance_of(low, {}) == 0.9 and importance_of(mem("x y z"), {}) == 0.5
    profile = build_profile("user", "alice", [low, high], {high.id: 1.0, low.id: 0.0})
    assert profile.sections[0][1] == ["Alice is a designer.", "Alice is tall."]


@pytest.mark.parametrize("per_section", [0, 1, 2, 5])
def test_sections_are_bounded(per_section: int) -> None:
    memories = [mem(f"Alice fact number {i}.") for i in range(12)]
    profile = build_profile("user", "alice", memories, {}, max_lines_per_section=per_section)
    assert profile.line_count == per_section
    assert limit_profile(build_profile("user", "alice", memories, {}), per_section).line_count == per_section


def test_profile_lines_are_one_line_and_short() -> None:
    profile = build_profile("user", "alice", [mem("Alice\nwrites " + "very " * 60 + "long notes.")], {})
    line = profile.sections[0][1][0]
    assert "\n" not in line and len(line) <= 120 and line.endswith("…")


def test_render_profile_markdown() -> None:
    profile = build_profile("user", "alice", [mem("Alice is a designer."), mem("Alice knows Figma.", "skill")], {})
    assert render_profile_markdown(profile) == (
        "## Profile\n\n### Identity & background\n- Alice is a designer.\n\n### Skills\n- Alice knows Figma.")
    assert render_profile_markdown(build_profile("user", "alice", [], {})) == ""


def test_chinese_profile_headings() -> None:
    profile = build_profile("user", "wei", [mem("是一名数据科学家。"), mem("喜欢绿茶。", "preference")], {},
                            language="zh")
    assert render_profile_markdown(profile) == (
        "## 用户画像\n\n### 身份与背景\n- 是一名数据科学家。\n\n### 偏好\n- 喜欢绿茶。")


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("type_name", sorted({t for types in PRESETS.values() for t in types}))
def test_every_preset_type_has_a_label(language: str, type_name: str) -> None:
    label = type_label(type_name, language)
    assert label and label != type_name


@pytest.mark.parametrize(
    ("type_name", "language", "expected"),
    [("preference", "en", "Preferences"), ("preference", "zh", "偏好"), ("feedback", "zh", "反馈"),
     ("constraint", "zh", "约束"), ("reference", "en", "References"), ("recipe", "en", "Recipe"),
     ("fact", "fr", "Facts")],
)
def test_type_labels(type_name: str, language: str, expected: str) -> None:
    assert type_label(type_name, language) == expected


def test_label_tables_cover_the_same_keys_in_both_languages() -> None:
    assert SECTION_LABELS["en"].keys() == SECTION_LABELS["zh"].keys()
    assert PHRASES["en"].keys() == PHRASES["zh"].keys()
    assert section_label("stack", "zh") == "技术栈"
    assert phrase("footer", "zh", count=3, kind="user", name="wei").startswith("_另有 3 条记忆")


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [("short", 10, "short"), ("a  b\n\nc", 10, "a b c"), ("one two three four five", 12, "one two…"),
     ("abcdefghijklmnop", 8, "abcdefg…"), ("数据同步必须在早上六点前完成", 6, "数据同步必…"),
     ("ends with comma, and more words", 18, "ends with comma…")],
)
def test_one_line(text: str, limit: int, expected: str) -> None:
    assert one_line(text, limit) == expected and len(one_line(text, limit)) <= limit


@pytest.mark.parametrize(
    ("text", "title", "rest"),
    [
        ("Alice prefers window seats on flights.", "Alice prefers window seats on flights", ""),
        ("Bob is a big jazz fan; his favourite is Kind of Blue.", "Bob is a big jazz fan",
         "his favourite is Kind of Blue."),
        ("2026-03-12: chose Stripe over Adyen.", "2026-03-12: chose Stripe over Adyen", ""),
        ("Go 1.22 is what we use, with PostgreSQL 16.", "Go 1.22 is what we use", "with PostgreSQL 16."),
        ("公司数据不能上传到外部服务，所有模型都必须在内网训练。", "公司数据不能上传到外部服务", "所有模型都必须在内网训练。"),
        ("养了一只橘猫，叫豆豆。", "养了一只橘猫，叫豆豆", ""),
        ("Alice decided to travel with carry-on luggage only from April 2026 on.",
         "Alice decided to travel with carry-on luggage only from…", "…April 2026 on."),
    ],
)
def test_short_title(text: str, title: str, rest: str) -> None:
    assert short_title(text, 60) == (title, rest)
