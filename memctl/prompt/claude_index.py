"""Claude Code's MEMORY.md: a flat list of `- [Title](file.md) — hook` lines within its budget.

Claude Code loads the first 200 lines or 25 KB of the file, so the most important memories are
listed first and the last line counts the ones left out. The file is merged, not overwritten:
a line memctl did not write (a heading, a note, a link someone wrote or changed by hand) is kept
as it is, where it is, and a memory it links to is not listed twice. Only memctl's own lines are
replaced; new ones go after the last link in the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from urllib.parse import unquote

from pydantic import BaseModel

from memctl.config import IndexSettings
from memctl.core.conflicts import both_sides, conflict_regions
from memctl.core.models import Memory
from memctl.prompt.indexmd import HOOK_CHARS, TITLE_CHARS, approx_tokens, priority_order
from memctl.prompt.labels import one_line, short_title

LINK = re.compile(r"^\s*[-*+]\s+\[(?:\\.|[^\]\\])*\]\(\s*<?(?P<target>[^)>]+?)>?\s*\)")
FOOTER = re.compile(r"^- … and \d+ more memor(?:y|ies) not listed here")


def entry_line(memory: Memory) -> str:
    """`- [Title](file.md) — hook`: the title is `name` (else the text's first clause), the hook its
    `description` (else the rest of the text, else its type), so every line has Claude Code's shape."""
    if memory.name:
        title, rest = one_line(memory.name, TITLE_CHARS), memory.body
    else:
        title, rest = short_title(memory.body, TITLE_CHARS)
    hook = one_line(memory.description or rest, HOOK_CHARS)
    if not hook or hook == title:
        hook = memory.type
    target = str(memory.path)
    link = f"<{target}>" if re.search(r"[\s()<>]", target) else target
    escaped = re.sub(r"([\\\[\]])", r"\\\1", title)
    return f"- [{escaped}]({link}) — {hook}"


def footer_line(count: int) -> str:
    """The last line when memories were left out: how many, and how to find them."""
    noun = "memory" if count == 1 else "memories"
    return (f"- … and {count} more {noun} not listed here: grep this folder's .md files, "
            f'or run `memctl recall "<topic>"`')


class ClaudeIndex(BaseModel):
    """A rendered MEMORY.md, the lines memctl wrote in it, and what went into it (`listed` counts the
    memories it links to, by anyone's line; `kept` the lines memctl did not write)."""

    text: str
    generated: list[str]
    listed: int
    omitted: int
    kept: int
    lines: int
    bytes: int


def link_target(line: str) -> str | None:
    """The file a `- [Title](file.md)` line links to, as a path relative to the folder."""
    match = LINK.match(line)
    if match is None:
        return None
    return unquote(match.group("target").strip()).removeprefix("./")


def _fits(lines: Sequence[str], settings: IndexSettings) -> bool:
    text = "\n".join(lines) + "\n"
    return (len(lines) <= settings.max_lines and len(text.encode("utf-8")) <= settings.max_bytes
            and (settings.max_tokens <= 0 or approx_tokens(text) <= settings.max_tokens))


class _Merge:
    """The existing file read as hand lines and slots (memctl's lines, to be re-rendered in place)."""

    def __init__(self, existing: str, ours: set[str], live: Sequence[Memory], archived: set[str]) -> None:
        by_path = {m.path: m for m in live}
        fresh = {m.id: entry_line(m) for m in live}
        current = set(fresh.values())
        self.parts: list[tuple[str, str]] = []  # ("hand", line) or ("slot", memory id)
        self.covered: set[str] = set()  # memories a hand line links to
        slotted: set[str] = set()
        for line in both_sides(existing):  # a conflict-marked file: both sides' lines, never the markers
            target = link_target(line) or ""
            memory = by_path.get(target)
            if memory is None and target in archived:
                continue  # the memory it lists was archived (forget, compact): Claude Code must not look for it
            if line in ours or line in current or FOOTER.match(line):
                if memory is not None and memory.id not in slotted:
                    self.parts.append(("slot", memory.id))
                    slotted.add(memory.id)
                continue
            self.parts.append(("hand", line))
            if memory is not None:
                self.covered.add(memory.id)
        self.parts = [(k, v) for k, v in self.parts if k == "hand" or v not in self.covered]
        last_link = [i for i, (k, v) in enumerate(self.parts) if k == "slot" or link_target(v)]
        self.insert_at = last_link[-1] + 1 if last_link else len(self.parts)

    def lines(self, chosen: Sequence[Memory], fresh: Mapping[str, str]) -> list[str]:
        """The merged file listing `chosen` (hand lines always; slots only for chosen memories)."""
        keep = {m.id for m in chosen}
        slotted = {v for k, v in self.parts if k == "slot"}
        new = [fresh[m.id] for m in chosen if m.id not in slotted]
        out: list[str] = []
        for index, (kind, value) in enumerate(self.parts):
            if index == self.insert_at:
                out += new
            if kind == "hand":
                out.append(value)
            elif value in keep:
                out.append(fresh[value])
        if self.insert_at >= len(self.parts):
            out += new
        return out


def _most_that_fit(render: Callable[[int], list[str]], count: int, settings: IndexSettings) -> int:
    """The largest k whose listing fits (0 if none does): the size grows with k, so bisect."""
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


def render_claude_index(existing: str | None, ours: Iterable[str], memories: Sequence[Memory],
                        importance: Mapping[str, float], *, settings: IndexSettings, now: datetime,
                        archived: Iterable[str] = ()) -> ClaudeIndex:
    """MEMORY.md for a Claude Code folder: `existing` merged with a line per active memory, the most
    important first within the budget (hand lines always kept, except one linking to a file in
    `archived`, the active paths of archived memories), the omitted counted on the last line.

    `ours` are the lines memctl wrote last time; a line equal to what memctl would write now counts as
    memctl's too, so a lost record loses nothing. The result is deterministic; `now` only decides what
    has expired and what is recent.
    """
    live = [m for m in memories if m.status == "active" and not m.is_expired(now) and m.path]
    merge = _Merge(existing or "", set(ours), live, set(archived))
    fresh = {m.id: entry_line(m) for m in live}
    ordered = [m for m in priority_order(live, importance, now=now, recent_days=settings.recent_days)
               if m.id not in merge.covered]

    def render(count: int) -> list[str]:
        lines = merge.lines(ordered[:count], fresh)
        return lines + [footer_line(len(ordered) - count)] if count < len(ordered) else lines

    listed = _most_that_fit(render, len(ordered), settings)
    lines = render(listed)
    generated = [fresh[m.id] for m in ordered[:listed]] + ([footer_line(len(ordered) - listed)] if listed < len(ordered) else [])
    text = _join(lines, existing)
    return ClaudeIndex(text=text, generated=generated, listed=listed + len(merge.covered), omitted=len(ordered) - listed,
                       kept=sum(1 for kind, _ in merge.parts if kind == "hand"), lines=len(lines),
                       bytes=len(text.encode("utf-8")))


def _join(lines: list[str], existing: str | None) -> str:
    """The file text; an unchanged listing gives back the existing bytes exactly (line endings too)."""
    if existing is not None and lines == existing.splitlines() and not conflict_regions(existing):
        return existing
    newline = "\r\n" if existing and "\r\n" in existing else "\n"
    return newline.join(lines) + newline if lines else ""
