"""The prompt side's I/O: render MEMORY.md files and build the context block for a query."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from memctl import clock
from memctl.errors import UsageError
from memctl.core.models import Memory
from memctl.store.files import INDEX_FILE, TEMPLATE_NAME, write_atomic

if TYPE_CHECKING:
    from memctl.api import MemoryStore



def template_text(store: "MemoryStore") -> str:
    """The directory's MEMORY.md.template, else the shipped one."""
    from memctl.prompt.indexmd import default_template

    path = store.root / TEMPLATE_NAME
    try:
        return path.read_text(encoding="utf-8") if path.is_file() else default_template()
    except (OSError, UnicodeDecodeError):
        raise UsageError(f"{path}: cannot read the template as UTF-8 text", code="bad_template") from None


def stable_importance(memories: Iterable[Memory]) -> dict[str, float]:
    """Importance for MEMORY.md ordering from the files alone (explicit importance, else 0.8 x confidence),
    so recalls (usage) never reorder the index: it changes only when its memories change."""
    return {m.id: m.importance if m.importance is not None else 0.8 * m.confidence for m in memories}


def owners(store: "MemoryStore") -> list[str]:
    """Every scope folder that has active memories, e.g. `users/alice`, `projects/shop`."""
    return sorted({m.owner for m in store.snapshot().memories if store.is_active(m)})


def render_owner(store: "MemoryStore", owner: str, write: bool = True) -> dict[str, Any]:
    """Render `<owner>/MEMORY.md`; the file is rewritten only when its bytes change."""
    from memctl.prompt.indexmd import render_index

    kind, name = owner.split("/", 1)
    memories = [m for m in store.snapshot().memories if store.is_active(m) and m.owner == owner]
    result = render_index(template_text(store), "user" if kind == "users" else "project", name, memories,
                          stable_importance(memories), settings=store.config.index,
                          language=store.config.memory.language, now=clock.now(), folder=owner)
    path = store.root / owner / INDEX_FILE
    changed = not path.exists() or path.read_text(encoding="utf-8") != result.text
    if write and changed:
        write_atomic(path, result.text)
    return {"path": f"{owner}/{INDEX_FILE}", "changed": changed, "listed": result.listed,
            "omitted": result.omitted, "lines": result.lines, "bytes": result.bytes}


def render_indexes(store: "MemoryStore", users: list[str], projects: list[str], all_: bool) -> list[dict]:
    """`memctl index`: the chosen scopes, or every scope with --all."""
    from memctl.core.models import check_name

    chosen = [f"users/{check_name(u, 'user')}" for u in users] + [f"projects/{check_name(p, 'project')}" for p in projects]
    if all_ or not chosen:
        chosen = sorted(set(chosen) | set(owners(store))) if all_ else chosen
    if not chosen:
        raise UsageError("say which index to render: --user U, --project P or --all", code="no_scope")
    return [render_owner(store, owner) for owner in chosen]


def refresh_indexes(store: "MemoryStore", touched: Iterable[str] | None = None) -> list[str]:
    """After a change: re-render the MEMORY.md files that exist for the touched scope folders."""
    store.snapshot(refresh=True)
    folders = set(touched) if touched is not None else set(owners(store))
    refreshed = []
    for owner in sorted(folders):
        if (store.root / owner / INDEX_FILE).exists():
            if render_owner(store, owner)["changed"]:
                refreshed.append(owner)
    return refreshed


def context_profile(store: "MemoryStore", user: str | None, project: str | None, lines: int):  # -> Profile | None
    """The user's profile, then the project's (its headings marked with the project's name)."""
    from memctl.prompt.profile import build_profile

    active = store.active()
    parts = []
    for kind, name in (("user", user), ("project", project)):
        if name:
            folder = f"{'users' if kind == 'user' else 'projects'}/{name}"
            members = [m for m in active if m.owner == folder]
            parts.append(build_profile(kind, name, members, stable_importance(members),
                                       store.config.memory.language, lines))
    if len(parts) < 2:
        return parts[0] if parts else None
    mine, theirs = parts
    marked = [(f"{project}: {heading}", section) for heading, section in theirs.sections]
    return mine.model_copy(update={"sections": [*mine.sections, *marked]})


def build_context(store: "MemoryStore", query: str, *, user: str | None, project: str | None,
                  session: str | None, budget: int, fmt: str, k: int = 12) -> dict[str, Any]:
    """`memctl context`: the rules fired by the query, the profile, the recalled memories, within budget."""
    from memctl.prompt.context import explain_rules, items_from_hits, match_rules, plan_context, render_context

    if budget < 1:
        raise UsageError("--budget must be a positive number of tokens", code="bad_budget")
    rules = match_rules(query)
    plan = plan_context([r.name for r in rules])
    result = store.recall(query, users=[user] if user else [], projects=[project] if project else [],
                          session=session, k=k, status="history" if plan.include_history else "active")
    profile = context_profile(store, user, project, plan.profile_lines_per_section)
    block = render_context(query, profile, items_from_hits(result.hits), budget=budget, fmt=fmt,
                           language=store.config.memory.language)
    data = block.model_dump(mode="json")
    data["explain"] = [r.model_dump() for r in explain_rules(query)]
    return data
