"""MEMORY.md files: render a scope folder's index from the template, and keep existing ones current."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memctl import clock
from memctl.config import Config
from memctl.core.access import effective_visibility
from memctl.core.models import Memory, name_arg
from memctl.errors import UsageError
from memctl.store.layout import INDEX_FILE, TEMPLATE_NAME
from memctl.store.repository import ReadsAndIndexes


def stable_importance(memories: Iterable[Memory]) -> dict[str, float]:
    """Importance for MEMORY.md ordering from the memories alone (explicit importance, else 0.8 x
    confidence), so recalls (usage) never reorder the index: it changes only when its memories change."""
    return {m.id: m.importance if m.importance is not None else 0.8 * m.confidence for m in memories}


class MemoryMdService:
    """Render and refresh the MEMORY.md of users and projects."""

    def __init__(self, repo: ReadsAndIndexes, config: Config) -> None:
        self.repo = repo
        self.config = config

    def _render(self, owner: str) -> Any:
        from memctl.prompt.indexmd import render_index

        kind, name = owner.split("/", 1)
        # A memory only its author may see (owner_only, or a visibility the rules do not know) never
        # goes into a file the whole folder shares.
        memories = [m for m in self.repo.active(owner=owner) if effective_visibility(m.visibility, True) != "owner_only"]
        return render_index(self.repo.text(TEMPLATE_NAME), "user" if kind == "users" else "project", name,
                            memories, stable_importance(memories), settings=self.config.index,
                            language=self.config.memory.language, now=clock.now(), folder=owner)

    def text(self, owner: str) -> str:
        """`<owner>/MEMORY.md` as it would be rendered now (nothing written)."""
        return str(self._render(owner).text)

    def render_owner(self, owner: str, write: bool = True) -> dict[str, Any]:
        """Render `<owner>/MEMORY.md`; it is rewritten only when its bytes change."""
        result = self._render(owner)
        changed = self.repo.read_memory_md(owner) != result.text
        if write and changed:
            self.repo.write_memory_md(owner, result.text)
        return {"path": f"{owner}/{INDEX_FILE}", "changed": changed, "listed": result.listed,
                "omitted": result.omitted, "lines": result.lines, "bytes": result.bytes}

    def render(self, users: list[str], projects: list[str], all_: bool) -> list[dict[str, Any]]:
        """The chosen users' and projects' MEMORY.md, or every scope folder's with `all_`."""
        chosen = [f"users/{name_arg(u, 'user')}" for u in users] + [f"projects/{name_arg(p, 'project')}" for p in projects]
        if all_:
            return [self.render_owner(owner) for owner in sorted(set(chosen) | set(self.repo.owners()))]
        if not chosen:
            raise UsageError("say which index to render: --user U, --project P or --all", code="no_scope")
        return [self.render_owner(owner) for owner in chosen]

    def problems(self) -> list[dict[str, str]]:
        """What `doctor` reports of the MEMORY.md files: git's conflict markers in one (it is
        generated: the next `memctl index` writes it whole again)."""
        from memctl.core.conflicts import conflict_regions, where

        out = []
        for owner in sorted(self.repo.owners()):
            regions = conflict_regions(self.repo.read_memory_md(owner) or "")
            if regions:
                out.append({"kind": "index_conflict", "path": f"{owner}/{INDEX_FILE}",
                            "detail": f"git conflict markers at {where(regions)} (generated: run `memctl index --all`)"})
        return out

    def refresh(self, touched: Iterable[str] | None = None) -> list[str]:
        """After a change: re-render the MEMORY.md files that exist for the touched scope folders."""
        folders = set(touched) if touched is not None else set(self.repo.owners())
        refreshed = []
        for owner in sorted(folders):
            if self.repo.read_memory_md(owner) is not None and self.render_owner(owner)["changed"]:
                refreshed.append(owner)
        return refreshed
