"""Render a scope's MEMORY.md from the template: profile, memories by type, within a line/byte/token budget."""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel

from memctl.config import IndexSettings
from memctl.core.models import Memory
from memctl.prompt.labels import one_line, phrase, short_title, type_label
from memctl.prompt.profile import (
    Profile,
    build_profile,
    limit_profile,
    rank_key,
    render_profile_markdown,
)

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
TITLE_CHARS = 60
HOOK_CHARS = 120
# Corrections and rules are what an agent must not forget, so they survive a tight budget.
PROTECTED_TYPES = frozenset({"feedback", "constraint", "decision"})
# Groups appear in this order (rules and corrections first, so a cut-off read still sees them);
# other types follow alphabetically.
GROUP_ORDER = ("feedback", "constraint", "decision", "preference", "user", "profile", "fact",
               "skill", "habit", "context", "project", "relation", "topic", "event", "reference",
               "custom")
# The profile may use at most this share of each budget, so the listing always has room.
PROFILE_SHARE = 4
PROFILE_STEPS = (5, 4, 3, 2, 1, 0)


class IndexResult(BaseModel):
    """A rendered MEMORY.md and what went into it."""

    text: str
    listed: int
    omitted: int
    lines: int
    bytes: int
    tokens: int
    profile_lines: int


def approx_tokens(text: str) -> int:
    """Approximate tokens: ceil(ASCII chars / 4) + one per non-ASCII char.

    English averages about four characters a token; CJK is about one token a character.
    It is an estimate, deliberately simple and the same everywhere, not a tokenizer.
    """
    non_ascii = sum(1 for ch in text if ord(ch) >= 128)
    return math.ceil((len(text) - non_ascii) / 4) + non_ascii


def fill_template(template: str, values: Mapping[str, str]) -> str:
    """Substitute `{{ name }}` placeholders; unknown ones stay as written.

    A template without `{{ memories }}` (or `{{ footer }}`) gets them appended, so the listing and
    the "N more" line are never lost. Runs of blank lines collapse to one; the text ends in one newline.
    """
    used = set(PLACEHOLDER.findall(template))
    text = PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)
    for name in ("memories", "footer"):
        if name not in used and values.get(name):
            text = text.rstrip("\n") + "\n\n" + values[name]
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n") + "\n"


def _link_target(memory: Memory, folder: str) -> str | None:
    if not memory.path:
        return None
    target = posixpath.relpath(memory.path.replace("\\", "/"), folder or ".")
    return f"<{target}>" if re.search(r"[\s()<>]", target) else target


def _escape_title(title: str) -> str:
    return re.sub(r"([\\\[\]])", r"\\\1", title)


def entry_line(memory: Memory, folder: str) -> str:
    """`- [title](path) — hook`: the title is `name` or the content's first clause (<= 60 chars);
    the hook is `description`, else the content after the title (<= 120 chars, one line), so a
    short memory is not printed twice. Paths are relative to the MEMORY.md's folder."""
    if memory.name:
        title, rest = one_line(memory.name, TITLE_CHARS), memory.body
    else:
        title, rest = short_title(memory.body, TITLE_CHARS)
    hook_source = memory.description or rest
    hook = one_line(hook_source, HOOK_CHARS) if hook_source else ""
    target = _link_target(memory, folder)
    head = f"[{_escape_title(title)}]({target})" if target else _escape_title(title)
    return f"- {head} — {hook}" if hook and hook != title else f"- {head}"


def _group_rank(type_name: str) -> tuple[int, str]:
    return (GROUP_ORDER.index(type_name), "") if type_name in GROUP_ORDER else (len(GROUP_ORDER), type_name)


def render_memories(memories: Sequence[Memory], importance: Mapping[str, float], *,
                    language: str, folder: str, total: int) -> str:
    """The `## Memories` section: one `###` group per type, most important first within it."""
    parts = [f"## {phrase('memories', language)}"]
    if total == 0:
        parts.append(phrase("empty", language))
    for type_name in sorted({m.type for m in memories}, key=_group_rank):
        group = sorted((m for m in memories if m.type == type_name), key=lambda m: rank_key(m, importance))
        lines = "\n".join(entry_line(m, folder) for m in group)
        parts.append(f"### {type_label(type_name, language)}\n{lines}")
    return "\n\n".join(parts)


def priority_order(memories: Sequence[Memory], importance: Mapping[str, float], *,
                   now: datetime, recent_days: int) -> list[Memory]:
    """Memories in the order they are kept when over budget: protected types updated recently,
    then protected types or recent updates, then the rest; by importance within each tier."""
    cutoff = now - timedelta(days=recent_days)

    def tier(memory: Memory) -> int:
        return 2 - (memory.type in PROTECTED_TYPES) - (memory.updated >= cutoff)

    return sorted(memories, key=lambda m: (tier(m), *rank_key(m, importance)))


def _measure(text: str) -> tuple[int, int, int]:
    return len(text.splitlines()), len(text.encode("utf-8")), approx_tokens(text)


def _fits(text: str, settings: IndexSettings, share: int = 1) -> bool:
    lines, size, tokens = _measure(text)
    return (lines <= settings.max_lines // share and size <= settings.max_bytes // share
            and (settings.max_tokens <= 0 or tokens <= settings.max_tokens // share))


def _bounded_profile(profile: Profile, settings: IndexSettings) -> Profile:
    for per_section in PROFILE_STEPS:
        smaller = limit_profile(profile, per_section)
        if _fits(render_profile_markdown(smaller), settings, PROFILE_SHARE):
            return smaller
    return limit_profile(profile, 0)


def _hard_cut(text: str, settings: IndexSettings) -> str:
    """Last resort when even the template and profile exceed the budget: keep whole leading lines."""
    kept: list[str] = []
    for line in text.splitlines():
        if not _fits("\n".join(kept + [line]) + "\n", settings):
            break
        kept.append(line)
    return "\n".join(kept) + "\n" if kept else ""


def _most_that_fit(render: Callable[[int], str], count: int, settings: IndexSettings) -> int:
    """The largest k such that the document listing the first k entries fits (0 if none do).

    The size grows with k (an entry line outweighs the shrinking "N more" count), so bisect.
    """
    if _fits(render(count), settings):
        return count
    low, high = 0, count - 1
    while low < high:
        middle = (low + high + 1) // 2
        if _fits(render(middle), settings):
            low = middle
        else:
            high = middle - 1
    return low


def render_index(template: str, kind: str, name: str, memories: Sequence[Memory],
                 importance: Mapping[str, float], *, settings: IndexSettings, language: str,
                 now: datetime, folder: str) -> IndexResult:
    """Render MEMORY.md for one user or project, deterministically and within the budget.

    `memories` are the scope's memories (inactive and expired ones are skipped); `folder` is the
    scope folder relative to the root (e.g. `users/alice`), as `Memory.path` is. `now` only decides
    what is expired or recent; it never appears in the output.
    """
    live = [m for m in memories if m.status == "active" and not m.is_expired(now)]
    profile = _bounded_profile(build_profile(kind, name, live, importance, language), settings)
    ordered = priority_order(live, importance, now=now, recent_days=settings.recent_days)
    newest = max((m.updated for m in live), default=None)
    base = {
        "title": phrase(f"title.{'user' if kind == 'user' else 'project'}", language, name=name),
        "kind": kind, "name": name, "language": language, "count": str(len(live)),
        "profile": render_profile_markdown(profile),
        "updated": newest.date().isoformat() if newest else "",
    }

    def render(listed: int) -> str:
        omitted = len(ordered) - listed
        footer = phrase("footer", language, count=omitted, kind=kind, name=name) if omitted else ""
        body = render_memories(ordered[:listed], importance, language=language, folder=folder,
                               total=len(live))
        return fill_template(template, {**base, "memories": body, "footer": footer,
                                        "listed": str(listed), "omitted": str(omitted)})

    listed = _most_that_fit(render, len(ordered), settings)
    text = render(listed)
    if not _fits(text, settings):
        text = _hard_cut(text, settings)
    lines, size, tokens = _measure(text)
    return IndexResult(text=text, listed=listed, omitted=len(ordered) - listed, lines=lines,
                       bytes=size, tokens=tokens, profile_lines=profile.line_count)
