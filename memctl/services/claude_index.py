"""The MEMORY.md of a Claude Code folder: one flat index of its memories, merged with what people wrote.

The counterpart of services/memory_md.py for the claude layout (the facade picks one by layout):
the same `render` and `refresh`, but one index for the whole folder and never a lost hand-edited line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from memctl import clock
from memctl.config import Config
from memctl.core.models import Memory
from memctl.store.layout import ARCHIVE_DIR, INDEX_FILE, is_archived
from memctl.store.repository import Repository


class IndexRecords(Protocol):
    """Where a Claude Code folder remembers which MEMORY.md lines memctl wrote (store/claude.py)."""

    def index_lines(self) -> set[str]:
        """The lines memctl wrote last time."""
        ...

    def write_index(self, text: str, generated: list[str]) -> None:
        """Write MEMORY.md and record which of its lines memctl generated."""
        ...

    def missing(self, targets: Iterable[str]) -> list[str]:
        """The folder-relative paths among `targets` no file answers to."""
        ...


class ClaudeIndexService:
    """Render and refresh a Claude Code folder's MEMORY.md."""

    def __init__(self, repo: Repository, records: IndexRecords, config: Config) -> None:
        self.repo = repo
        self.records = records
        self.config = config

    def render_folder(self, write: bool = True) -> dict[str, Any]:
        """Merge the folder's MEMORY.md with its active memories; written only when its bytes change.

        Under the write lock, so two memctl processes never interleave their read and write."""
        with self.repo.locked():
            existing = self.repo.read_memory_md("")
            result = self._render(existing)
            changed = existing != result.text
            if write and changed:
                self.records.write_index(result.text, result.generated)
        over = result.lines > self.config.index.max_lines or result.bytes > self.config.index.max_bytes
        return {"path": INDEX_FILE, "changed": changed, "listed": result.listed, "omitted": result.omitted,
                "kept": result.kept, "lines": result.lines, "bytes": result.bytes, "over_budget": over}

    def _render(self, existing: str | None) -> Any:
        from memctl.prompt.claude_index import render_claude_index
        from memctl.services.memory_md import stable_importance

        memories = self.repo.active()
        archived = {str(m.path).removeprefix(f"{ARCHIVE_DIR}/") for m in self.repo.all_memories() if is_archived(m.path)}
        return render_claude_index(existing, self.records.index_lines(), memories, stable_importance(memories),
                                   settings=self.config.index, now=clock.now(), archived=archived)

    def problems(self) -> list[dict[str, str]]:
        """What `doctor` reports of MEMORY.md: git's conflict markers in it, lines linking to a file
        that is gone (Claude Code would look for it)."""
        from memctl.core.conflicts import both_sides, conflict_regions, where
        from memctl.prompt.claude_index import link_target

        text = self.repo.read_memory_md("")
        if text is None:
            return []
        out = []
        regions = conflict_regions(text)
        if regions:
            out.append({"kind": "index_conflict", "path": INDEX_FILE,
                        "detail": f"git conflict markers at {where(regions)} (the next `memctl index` keeps both "
                                  "sides' lines and drops the markers)"})
        targets = {t for t in map(link_target, both_sides(text)) if t and _local_file(t)}
        out += [{"kind": "index_link", "path": INDEX_FILE, "detail": f"lists {t}, which is gone"}
                for t in sorted(self.records.missing(targets))]
        return out

    def text(self, owner: str) -> str:
        """The folder's MEMORY.md as it would be rendered now, nothing written (a flat folder has one
        index, whichever owner is named)."""
        return str(self._render(self.repo.read_memory_md("")).text)

    def render(self, users: list[str], projects: list[str], all_: bool) -> list[dict[str, Any]]:
        """The folder's one MEMORY.md (a flat folder has one index, whichever scope is named)."""
        return [self.render_folder()]

    def refresh(self, touched: Iterable[str] | None = None) -> list[str]:
        """After a change: re-render MEMORY.md, creating it if need be (Claude Code finds topic files
        through it, so a memory it does not list is one Claude Code does not know about)."""
        if touched is not None and not set(touched):
            return []
        return [INDEX_FILE] if self.render_folder()["changed"] else []


def _local_file(target: str) -> bool:
    """A link to a file of the folder (not a URL, an anchor or an absolute path)."""
    return not (target.startswith(("/", "#", "~")) or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target))


def flat_index(memories: Sequence[Memory], config: Config) -> str:
    """A new MEMORY.md listing `memories` (an exported Claude Code folder's)."""
    from memctl.prompt.claude_index import render_claude_index
    from memctl.services.memory_md import stable_importance

    return render_claude_index(None, (), memories, stable_importance(memories), settings=config.index,
                               now=clock.now()).text
