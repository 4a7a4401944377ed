"""The profile: a short, sectioned summary of who the user is (or what the project is), from memories."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple

from pydantic import BaseModel, Field

from memctl.core.models import Memory
from memctl.prompt.labels import one_line, phrase, section_label

PROFILE_LINE_CHARS = 120
_DATED = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\d{4}年")
DEFAULT_IMPORTANCE = 0.5


class SectionRule(NamedTuple):
    """A memory belongs to `key` when its type is in `types` (None: any) and, if `signals` is set,
    its subtype, a tag or the first part of its key is one of them."""

    key: str
    types: frozenset[str] | None
    signals: frozenset[str] | None


def _rule(key: str, types: str | None, signals: str | None = None) -> SectionRule:
    return SectionRule(key, frozenset(types.split()) if types else None,
                       frozenset(signals.split()) if signals else None)


# Rules are tried in order; the first match wins. Signal rules come first so that, say,
# a preference tagged `tools` lands under Tools rather than Preferences.
USER_RULES: tuple[SectionRule, ...] = (
    _rule("tools", "preference fact skill habit user profile", "tools tool editor ide"),
    _rule("communication", "preference feedback",
          "communication language format style writing tone reply replies"),
    _rule("identity", "fact user profile relation"),
    _rule("preferences", "preference feedback"),
    _rule("skills", "skill"),
    _rule("habits", "habit"),
)
USER_ORDER = ("identity", "communication", "preferences", "skills", "tools", "habits")
PROJECT_RULES: tuple[SectionRule, ...] = (
    _rule("goal", None, "goal goals mission purpose"),
    _rule("stack", None, "stack tech infrastructure"),
    _rule("phase", None, "phase milestone"),
    _rule("constraints", "constraint"),
    _rule("decisions", "decision"),
)
PROJECT_ORDER = ("goal", "stack", "constraints", "decisions", "phase")


class Profile(BaseModel):
    """A user's or project's profile: (heading, lines) sections in display order."""

    kind: Literal["user", "project"]
    name: str
    sections: list[tuple[str, list[str]]]
    language: str = "en"
    ids: list[list[str]] = Field(default_factory=list)  # the memory each line says, section by section

    @property
    def line_count(self) -> int:
        """Number of content lines over all sections."""
        return sum(len(lines) for _, lines in self.sections)


def importance_of(memory: Memory, importance: Mapping[str, float]) -> float:
    """Importance from the computed mapping (by id), else the file's `importance`, else 0.5."""
    if memory.id in importance:
        return float(importance[memory.id])
    return memory.importance if memory.importance is not None else DEFAULT_IMPORTANCE


def rank_key(memory: Memory, importance: Mapping[str, float]) -> tuple:
    """Sort key, most important first: importance, confidence, newest update, then id (stable)."""
    return (-importance_of(memory, importance), -memory.confidence,
            -memory.updated.timestamp(), memory.id)


def _signals(memory: Memory) -> set[str]:
    found = {t.lower() for t in memory.tags}
    if memory.subtype:
        found.add(memory.subtype.lower())
    if memory.key:
        found.add(memory.key.split(".")[0].lower())
    return found


def classify(memory: Memory, rules: Sequence[SectionRule]) -> str | None:
    """The profile section a memory belongs to, or None when it is not profile material."""
    signals = _signals(memory)
    for rule in rules:
        if rule.types is not None and memory.type not in rule.types:
            continue
        if rule.signals is None or signals & rule.signals:
            return rule.key
    return None


def current_versions(memories: Sequence[Memory]) -> list[Memory]:
    """Drop older versions of a `key`: the profile states only the current value."""
    newest: dict[str, Memory] = {}
    for memory in memories:
        if memory.key is None:
            continue
        held = newest.get(memory.key)
        if held is None or (memory.updated, memory.created, memory.id) > (held.updated, held.created, held.id):
            newest[memory.key] = memory
    return [m for m in memories if m.key is None or newest[m.key] is m]


def _profile_line(memory: Memory, section: str) -> str:
    text = memory.description or memory.body
    if section == "decisions" and not _DATED.search(text):
        # Decisions are read with their date: "we chose X" means little without when.
        text = f"{memory.created.date().isoformat()}: {text}"
    return one_line(text, PROFILE_LINE_CHARS)


def build_profile(kind: str, name: str, memories: Sequence[Memory], importance: Mapping[str, float],
                  language: str = "en", max_lines_per_section: int = 5) -> Profile:
    """Aggregate long-term memories into profile sections, most important lines first, bounded."""
    rules, order = (USER_RULES, USER_ORDER) if kind == "user" else (PROJECT_RULES, PROJECT_ORDER)
    grouped: dict[str, list[Memory]] = {key: [] for key in order}
    long_term = [m for m in memories if m.scope != "session" and m.status == "active"]
    for memory in current_versions(long_term):
        section = classify(memory, rules)
        if section is not None:
            grouped[section].append(memory)
    sections, ids = [], []
    for key in order:
        ranked = sorted(grouped[key], key=lambda m: rank_key(m, importance))[:max(max_lines_per_section, 0)]
        if ranked:
            sections.append((section_label(key, language), [_profile_line(m, key) for m in ranked]))
            ids.append([m.id for m in ranked])
    return Profile(kind="user" if kind == "user" else "project", name=name,
                   sections=sections, language=language, ids=ids)


def limit_profile(profile: Profile, max_lines_per_section: int) -> Profile:
    """The same profile with at most `max_lines_per_section` lines per section (empty ones dropped)."""
    sections = [(head, lines[:max_lines_per_section]) for head, lines in profile.sections]
    ids = [said[:max_lines_per_section] for said in profile.ids]
    kept = [i for i, section in enumerate(sections) if section[1]]
    return profile.model_copy(update={"sections": [sections[i] for i in kept],
                                      "ids": [ids[i] for i in kept] if len(ids) == len(sections) else []})


def render_profile_markdown(profile: Profile, level: int = 2) -> str:
    """The profile as Markdown: a heading, then one sub-heading and bullet list per section."""
    if not profile.sections:
        return ""
    marks = "#" * level
    parts = [f"{marks} {phrase('profile.' + profile.kind, profile.language)}"]
    for heading, lines in profile.sections:
        parts.append(f"\n{marks}# {heading}\n" + "\n".join(f"- {line}" for line in lines))
    return "\n".join(parts)
