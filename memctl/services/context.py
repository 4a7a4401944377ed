"""The context block an agent prepends to its prompt: the rules the query fires, the profile, the
recalled memories, rendered within a token budget."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Collection

from memctl import clock
from memctl.config import Config
from memctl.core.access import Access, access_view, can_read
from memctl.errors import UsageError
from memctl.prompt.context import ContextItem, Format
from memctl.prompt.profile import Profile
from memctl.services.memory_md import stable_importance
from memctl.services.recall import RecallService, parse_query
from memctl.store.filters import scope_filter
from memctl.store.repository import Memories

if TYPE_CHECKING:
    from memctl.core.models import Hit
    from memctl.core.requests import RecallRequest
    from memctl.services.checks import CheckService

FORMATS: tuple[Format, ...] = ("markdown", "xml", "json")


class ContextService:
    """Build `memctl context` blocks from recall and the profiles."""

    def __init__(self, repo: Memories, config: Config, recall: RecallService, access: Access | None = None,
                 checks: "Callable[[], CheckService] | None" = None) -> None:
        self.repo = repo
        self.config = config
        self.recaller = recall
        self.access = access
        self.checks = checks  # built on first use, and only when typed memories exist

    def findings(self, user: str | None, project: str | None, touched: list[dict[str, Any]]) -> list[tuple[str, str]]:
        """Today's findings about the memories of the user and the project (whose memories:
        store/filters.py) as (severity, message): those the recall touched first, then the rest, most
        severe and soonest first. Checks are not loaded unless some memory there is typed."""
        if self.checks is None or not (user or project):
            return []
        users, projects = [user] if user else [], [project] if project else []
        typed = scope_filter(self.config.members, users, projects, typed=True, access=self.access)
        if not self.repo.candidates(typed, clock.now()):
            return []
        found = [f.to_data() for f in self.checks().findings(users, projects)]
        first = {(f["rule"], tuple(f["memories"])) for f in touched}
        found.sort(key=lambda f: (f["rule"], tuple(f["memories"])) not in first)  # sorted() is stable
        return [(f["severity"], f["message"]) for f in found]

    def profile(self, user: str | None, project: str | None, lines: int,
                only: Collection[str] | None = None) -> Profile | None:
        """The user's profile, then the project's (its headings marked with the project's name);
        with `only`, of those memories alone (the ones a request found relevant)."""
        from memctl.policy.validity import in_force
        from memctl.prompt.profile import build_profile

        now, states = clock.now(), self.config.facts.in_force  # the profile holds what is in force
        parts = []
        for kind, name in (("user", user), ("project", project)):
            if name:
                folder = f"{'users' if kind == 'user' else 'projects'}/{name}"
                members = [m for m in self.repo.active(now, owner=folder)
                           if (only is None or m.id in only) and can_read(self.access, access_view(m))
                           and in_force(m, now, states)]
                parts.append(build_profile(kind, name, members, stable_importance(members),
                                           self.config.memory.language, lines))
        if len(parts) < 2:
            return parts[0] if parts else None
        mine, theirs = parts
        marked = [(f"{project}: {heading}", section) for heading, section in theirs.sections]
        return mine.model_copy(update={"sections": [*mine.sections, *marked], "ids": [*mine.ids, *theirs.ids]})

    def _relevant_parts(self, query: str, hits: list[Hit], user: str | None, project: str | None,
                        lines: int) -> tuple[Profile | None, list[ContextItem]]:
        """The profile lines and the memories of the block: the profile holds only the memories the
        request found (the constraints and linked memories stay memories, marked), the memories the
        rest; identifiers (a passport's, a card's number) are withheld unless the request is about
        them (policy/identifiers.py)."""
        from memctl.policy.identifiers import withhold_identifiers
        from memctl.prompt.context import items_from_hits

        found = {h.id for h in hits if not h.constraint and not h.linked_to}
        profile = self.profile(user, project, lines, only=found) if found else None
        said = {i for ids in (profile.ids if profile is not None else []) for i in ids}
        items = [item.model_copy(update={"content": withhold_identifiers(item.content, query)})
                 for item in items_from_hits(hits) if item.id not in said]
        if profile is not None:
            sections = [(heading, [withhold_identifiers(line, query) for line in section])
                        for heading, section in profile.sections]
            profile = profile.model_copy(update={"sections": sections})
        return profile, items

    def _session_first(self, q: "RecallRequest", hits: list[Hit], held: int) -> tuple[list[Hit], int]:
        """A query about the current work ("continue with that error"): this session's memories lead,
        held back or not (the query points at them, not at their words), then the other hits in rank
        order; and how many stay held back."""
        mine = self.recaller.recall(q.model_copy(update={"scopes": ["session"], "min_relevance": 0.0, "record_usage": False}))
        own = [h for h in mine.hits if h.session == q.session and not h.linked_to]
        shown = {h.id for h in hits}
        back = sum(1 for h in own if h.id not in shown)
        first = {h.id for h in own}
        return [*own, *(h for h in hits if h.id not in first)], max(held - back, 0)

    def build(self, query: str, *, user: str | None = None, project: str | None = None,
              session: str | None = None, budget: int = 800, fmt: str = "markdown", k: int = 12) -> dict[str, Any]:
        """The block for `query`: rules, profile and recalled memories, never over `budget` tokens."""
        from memctl.prompt.context import explain_rules, match_rules, plan_context, render_context

        if budget < 1:
            raise UsageError("--budget must be a positive number of tokens", code="bad_budget")
        chosen = next((f for f in FORMATS if f == fmt), None)
        if chosen is None:
            raise UsageError(f"unknown format {fmt!r} (markdown, xml or json)", code="bad_format")
        rules = match_rules(query)
        plan = plan_context([r.name for r in rules])
        q = parse_query(query, {"users": [user] if user else [], "projects": [project] if project else [],
                                "session": session, "k": k,
                                "status": "history" if plan.include_history else "active"})
        result = self.recaller.recall(q)
        hits, held = result.hits, result.held_back
        if plan.session_first and session:
            hits, held = self._session_first(q, hits, held)
        profile, items = self._relevant_parts(query, hits, user, project, plan.profile_lines_per_section)
        block = render_context(query, profile, items, budget=budget, fmt=chosen, language=self.config.memory.language,
                               warnings=self.findings(user, project, result.findings), ranked=[h.id for h in hits])
        data = block.model_dump(mode="json")
        data["explain"] = [r.model_dump() for r in explain_rules(query)]
        data["constraints"] = [{"id": h.id, "why": h.constraint} for h in hits if h.constraint and h.id in block.items]
        data["held_back"] = held  # recalled but below [recall] min_relevance: not injected
        return data
