"""`memctl check`: run every rule over the typed memories in force and report the findings.

Rules that do not compile are reported (`file:line: rule NAME: what`) and skipped; the others
still run. Findings are computed, never stored: they go to stdout, the context block and recall.
"""

from __future__ import annotations

from datetime import date, datetime, time, timezone
from typing import Any, Collection, Sequence

from pydantic import BaseModel

from memctl import clock
from memctl.config import Config
from memctl.core.access import Access
from memctl.core.models import Memory, name_arg
from memctl.core.schemas import Schema
from memctl.policy.checks import Finding, Rule, RuleError, compile_rule, evaluate
from memctl.policy.validity import in_force
from memctl.services.kinds import typed_memories
from memctl.store.kinds import Declared, KindFiles
from memctl.store.repository import Memories


class CheckReport(BaseModel):
    """What `check` found on a day, and the rules that could not be read."""

    at: date
    findings: list[Finding]
    rules: int
    problems: list[str] = []

    def to_data(self) -> dict[str, Any]:
        """The `check --json` data."""
        return {"at": self.at.isoformat(), "rules": self.rules, "count": len(self.findings),
                "findings": [f.to_data() for f in self.findings], "problems": self.problems}


class CheckService:
    """Compile the directory's rules once, then evaluate them on demand."""

    def __init__(self, repo: Memories, kinds: KindFiles, config: Config, access: Access | None = None) -> None:
        self.repo = repo
        self.kinds = kinds
        self.config = config
        self.access = access
        self._compiled: tuple[int, tuple[list[Rule], list[str]]] | None = None  # (files' generation, result)

    @property
    def compiled(self) -> tuple[list[Rule], list[str]]:
        """The rules that compile, and a `file:line: rule NAME: what` line for each that does not
        (compiled again when a rule or kind file changed)."""
        schemas, declared = self.kinds.schemas, self.kinds.rules
        if self._compiled is None or self._compiled[0] != self.kinds.generation:
            self._compiled = (self.kinds.generation, self._compile(declared, schemas))
        return self._compiled[1]

    def _compile(self, declared: list[Declared], schemas: dict[str, Schema]) -> tuple[list[Rule], list[str]]:
        rules, problems = [], []
        for item in declared:
            try:
                rule = compile_rule(item.name, item.table, schemas)
            except RuleError as exc:
                problems.append(f"{item.where(exc.key)}: rule {item.name!r}: {exc}")
                continue
            if rule is not None:
                rules.append(rule)
        return rules, self.kinds.drain_problems() + problems

    def subjects(self, when: datetime, kinds: Collection[str], users: Sequence[str] = (),
                 projects: Sequence[str] = ()) -> list[Memory]:
        """The memories of these kinds in force at `when` that the actor may see (of these users, with
        their projects, and projects, when given: store/filters.py)."""
        states = self.config.facts.in_force
        memories = typed_memories(self.repo, kinds, clock.now(), users=users, projects=projects, access=self.access,
                                  members=self.config.members)
        return [m for m in memories if in_force(m, when, states)]

    def check(self, at: date | None = None, user: str | None = None, project: str | None = None) -> CheckReport:
        """Every finding on `at` (default today) for `user` and `project` (default everyone the actor may see)."""
        return self._run(at, [name_arg(user, "user")] if user else [], [name_arg(project, "project")] if project else [],
                         None)

    def findings(self, users: Sequence[str], projects: Sequence[str]) -> list[Finding]:
        """Today's findings over the memories of these users (with their projects) and projects."""
        return self._run(None, [name_arg(u, "user") for u in users], [name_arg(p, "project") for p in projects],
                         None).findings

    def _run(self, at: date | None, users: Sequence[str], projects: Sequence[str],
             focus: Collection[str] | None) -> CheckReport:
        now = clock.now()
        day = at or now.date()
        rules, problems = self.compiled
        when = now if at is None else datetime.combine(day, time(12), tzinfo=timezone.utc)  # in force on that day
        kinds = {k for rule in rules for k in rule.kinds}
        memories = self.subjects(when, kinds, users, projects) if kinds else []
        findings = evaluate(rules, memories, self.kinds.schemas, day, focus)
        return CheckReport(at=day, findings=findings, rules=len(rules), problems=problems)

    def touching(self, memories: Sequence[Memory]) -> list[Finding]:
        """Today's findings that involve any of these memories (recall's hits): nothing is evaluated
        unless one of them is typed."""
        typed = [m for m in memories if m.kind]
        if not typed:
            return []
        owners = sorted({m.user for m in typed if m.user and m.owner.startswith("users/")})
        projects = sorted({m.project for m in typed if m.project and m.owner.startswith("projects/")})
        return self._run(None, owners, projects, {m.id for m in typed}).findings
