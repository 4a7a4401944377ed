"""Checks: rules over typed memories that warn before anyone asks, compiled and evaluated (pure).

A rule is data (a TOML table, read by store/kinds.py): `kinds` (one or two), `when` (a condition,
policy/expr.py), `severity`, `message` (a template) and optionally `due` (the date it is about).
It binds each kind's memories of one owner, pairwise for two kinds, and reports a finding for each
binding the condition holds for. Nothing in a rule is executed: the condition is a parsed tree, and
the template only substitutes `{kind.field}`, `{due}`, `{days}` and `{when}`; any other brace text
stays as written (no attribute access, no indexing, no format specs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from itertools import product
from typing import Any, Collection, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memctl.core.models import Memory
from memctl.core.schemas import Schema
from memctl.core.typed import DateRange, display
from memctl.policy.conditions import Scope, Subject, compile_condition, holds, subject, type_check, upcoming, walk
from memctl.policy.expr import Node, ParseError, Ref, parse

SEVERITIES = ("info", "warning", "critical")
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)(?:\.([a-z][a-z0-9_]*))?\}")
MAX_MESSAGE = 500


class RuleSpec(BaseModel):
    """A rule's settings, validated (unknown settings are errors, so a typo is not silently ignored)."""

    model_config = ConfigDict(extra="forbid")

    kinds: list[str] = Field(min_length=1, max_length=2)
    when: str
    message: str = Field(min_length=1, max_length=MAX_MESSAGE)
    severity: str = "warning"
    due: str | None = None
    enabled: bool = True
    description: str = ""

    @field_validator("severity")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in SEVERITIES:
            raise ValueError(f"unknown severity {value!r} (info, warning or critical)")
        return value

    @field_validator("kinds")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("a rule names two different kinds (or one)")
        return value


@dataclass(frozen=True)
class Rule:
    """A compiled rule: ready to evaluate."""

    name: str
    kinds: tuple[str, ...]
    condition: Node
    message: str
    severity: str
    due: Ref | None


class RuleError(ValueError):
    """A rule that does not compile; `key` names the setting at fault (for its line)."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


def compile_rule(name: str, table: Any, schemas: Mapping[str, Schema]) -> Rule | None:
    """A rule checked against the kinds it names (None when it is switched off); RuleError otherwise."""
    if not isinstance(table, dict):
        raise RuleError(f"a rule is a table of settings, got {type(table).__name__}")
    try:
        spec = RuleSpec.model_validate(table)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = str(err["loc"][0]) if err["loc"] else None
        raise RuleError(f"{key}: {str(err['msg']).removeprefix('Value error, ')}", key) from None
    if not spec.enabled:
        return None
    unknown = [k for k in spec.kinds if k not in schemas]
    if unknown:
        raise RuleError(f"kinds: unknown kind {unknown[0]!r} (kinds: {', '.join(sorted(schemas))})", "kinds")
    scope = Scope({k: schemas[k] for k in spec.kinds}, spec.kinds[0] if len(spec.kinds) == 1 else None)
    try:
        condition = compile_condition(spec.when, scope)
    except ParseError as exc:
        raise RuleError(f"when: {exc}", "when") from None
    return Rule(name, tuple(spec.kinds), condition, _check_template(spec.message, scope),
                spec.severity, _due(spec.due, scope, condition))


def _due(text: str | None, scope: Scope, condition: Node) -> Ref | None:
    """The date a finding is about: `due` as given, else the condition's first date field."""
    if text is None:
        for node in walk(condition):
            if isinstance(node, Ref) and scope.field_type(node) in ("date", "range"):
                return node
        return None
    try:
        node = parse(text)
        kind = type_check(node, scope)
    except ParseError as exc:
        raise RuleError(f"due: {exc}", "due") from None
    if not isinstance(node, Ref) or kind not in ("date", "range"):
        raise RuleError("due: name one date field (trip.departs)", "due")
    return node


def _check_template(message: str, scope: Scope) -> str:
    """A message whose `{kind.field}` placeholders all name fields the rule's kinds have."""
    for match in _PLACEHOLDER.finditer(message):
        alias, name = match.group(1), match.group(2)
        if name is None and alias in ("due", "days", "when"):
            continue
        try:
            scope.field_type(Ref(alias if name else None, name or alias, match.start() + 1))
        except ParseError as exc:
            raise RuleError(f"message: {{{match.group(0)[1:-1]}}}: {exc}", "message") from None
    return message


class Finding(BaseModel):
    """One rule that holds for some memories: what to tell the user, and how soon."""

    rule: str
    severity: str
    message: str
    memories: list[str]
    kinds: list[str]
    owner: str
    due: date | None = None
    days: int | None = None

    def to_data(self) -> dict[str, Any]:
        """The finding as JSON-ready data."""
        return self.model_dump(mode="json")


def evaluate(rules: Sequence[Rule], memories: Iterable[Memory], schemas: Mapping[str, Schema],
             today: date, focus: Collection[str] | None = None) -> list[Finding]:
    """Every finding of every rule over these memories on `today`, most severe and soonest first;
    with `focus` (ids), only the findings those memories take part in (what recall needs, at the
    cost of their owners' memories only)."""
    memories = list(memories)
    if focus is not None:
        owners_of = {m.owner for m in memories if m.id in focus}
        memories = [m for m in memories if m.owner in owners_of]
    by_kind: dict[tuple[str, str], list[Subject]] = {}
    for memory in memories:
        if memory.kind:
            by_kind.setdefault((memory.owner, memory.kind), []).append(subject(memory, schemas))
    owners = sorted({owner for owner, _ in by_kind})
    found = [finding for rule in rules for owner in owners
             for finding in _rule_findings(rule, owner, by_kind, today, focus)]
    return sorted(found, key=lambda f: (-SEVERITIES.index(f.severity), f.days if f.days is not None else 10**6,
                                        f.rule, f.memories))


def _rule_findings(rule: Rule, owner: str, by_kind: Mapping[tuple[str, str], list[Subject]],
                   today: date, focus: Collection[str] | None = None) -> Iterable[Finding]:
    groups = [by_kind.get((owner, kind), []) for kind in rule.kinds]
    bindings: Iterable[tuple[Subject, ...]] = product(*groups) if focus is None else _focused(groups, focus)
    for bound in bindings:
        env = dict(zip(rule.kinds, bound))
        if holds(rule.condition, env, today, rule.kinds[0] if len(rule.kinds) == 1 else None):
            yield _finding(rule, owner, env, today)


def _focused(groups: list[list[Subject]], focus: Collection[str]) -> list[tuple[Subject, ...]]:
    """The bindings with at least one focused memory: each focused one in its place, the others
    ranging over their whole group (each binding once)."""
    out: dict[tuple[str, ...], tuple[Subject, ...]] = {}
    for place, group in enumerate(groups):
        for chosen in (s for s in group if s.memory.id in focus):
            others = [[chosen] if i == place else g for i, g in enumerate(groups)]
            for bound in product(*others):
                out.setdefault(tuple(s.memory.id for s in bound), bound)
    return list(out.values())


def _finding(rule: Rule, owner: str, env: Mapping[str, Subject], today: date) -> Finding:
    due = upcoming(rule.due, env, today, rule.kinds[0]) if rule.due is not None else None
    day = due.start if isinstance(due, DateRange) else due
    days = (day - today).days if day is not None else None
    return Finding(rule=rule.name, severity=rule.severity, message=render_message(rule.message, env, day, days),
                   memories=[env[k].memory.id for k in rule.kinds], kinds=list(rule.kinds), owner=owner,
                   due=day, days=days)


def how_soon(days: int | None) -> str:
    """`in 3 days`, `tomorrow`, `today`, `2 days ago`."""
    if days is None:
        return ""
    if days == 0:
        return "today"
    if days == 1:
        return "tomorrow"
    return f"in {days} days" if days > 0 else f"{-days} day{'s' if days < -1 else ''} ago"


def render_message(template: str, env: Mapping[str, Subject], due: date | None, days: int | None) -> str:
    """The template with each `{kind.field}` replaced by the field's value (`?` when the memory has
    none); only these placeholders are read, so no template can reach anything else."""
    default = next(iter(env)) if len(env) == 1 else None
    specials = {"due": due.isoformat() if due else "?", "days": str(days) if days is not None else "?",
                "when": how_soon(days) or "?"}

    def fill(match: re.Match[str]) -> str:
        alias, name = match.group(1), match.group(2)
        if name is None and alias in specials:
            return specials[alias]
        bound = env.get(alias if name else default or "")
        value = bound.get(name or alias) if bound is not None else None
        return display(value) if value is not None else "?"

    return _PLACEHOLDER.sub(fill, template)
