"""`memctl query`: exact answers over typed fields (count, sum, latest, earliest, list).

An agent asks this instead of doing arithmetic over recalled text: "how many international trips
in 2025?" is `query count --kind trip --where 'international = true' --where 'departs in 2025'`.
Conditions are the rule language (policy/expr.py), read as data, never run.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any, Sequence

from pydantic import BaseModel

from memctl import clock
from memctl.config import Config
from memctl.core.access import Access
from memctl.core.models import Memory
from memctl.core.schemas import Schema
from memctl.core.typed import DateRange, Money, Quantity, Value, canonical, plain_number
from memctl.errors import UsageError
from memctl.policy.conditions import Scope, Subject, compare, compile_condition, holds, subject
from memctl.policy.expr import Node, ParseError, Ref
from memctl.services.kinds import typed_memories
from memctl.store.kinds import KindFiles
from memctl.store.repository import Memories

OPS = ("count", "sum", "latest", "earliest", "list")
SUMMABLE = ("number", "quantity", "money")


class QueryResult(BaseModel):
    """The answer to one query, and the memories it counted."""

    op: str
    kind: str
    where: list[str]
    field: str | None
    value: Any
    count: int
    memories: list[dict[str, Any]]

    def to_data(self) -> dict[str, Any]:
        """The `query --json` data."""
        return self.model_dump(mode="json")


class QueryService:
    """Answer queries over one kind's memories in force."""

    def __init__(self, repo: Memories, kinds: KindFiles, config: Config, access: Access | None = None) -> None:
        self.repo = repo
        self.kinds = kinds
        self.config = config
        self.access = access

    def query(self, op: str, kind: str, where: Sequence[str] = (), field: str | None = None,
              user: str | None = None, project: str | None = None, at: date | None = None) -> QueryResult:
        """`op` over the `kind` memories matching every `where` condition; UsageError (exit 2) for an
        unknown op, kind or field, or a condition that does not read."""
        if op not in OPS:
            raise UsageError(f"unknown query {op!r} (choose from {', '.join(OPS)})", code="bad_query")
        schema = self.kinds.schemas.get(kind)
        if schema is None:
            raise UsageError(f"unknown kind {kind!r} (kinds: {', '.join(sorted(self.kinds.schemas))})",
                             code="unknown_kind")
        scope = Scope({kind: schema}, kind)
        conditions = [_compile(text, scope) for text in where]
        chosen = _field(op, field, schema, scope)
        today = at or clock.now().date()
        matched = [s for s in self._subjects(kind, user, project) if all(holds(c, {kind: s}, today, kind) for c in conditions)]
        value, ordered = answer(op, chosen, matched)
        return QueryResult(op=op, kind=kind, where=list(where), field=chosen, value=value, count=len(matched),
                           memories=[_row(s) for s in ordered])

    def _subjects(self, kind: str, user: str | None, project: str | None) -> list[Subject]:
        schemas = self.kinds.schemas
        memories = typed_memories(self.repo, [kind], clock.now(), users=[user] if user else [],
                                  projects=[project] if project else [], access=self.access,
                                  members=self.config.members)
        return [subject(m, schemas) for m in memories]


def _compile(text: str, scope: Scope) -> Node:
    try:
        return compile_condition(text, scope)
    except ParseError as exc:
        raise UsageError(f"--where {text!r}: {exc}", code="bad_condition") from None


def _field(op: str, field: str | None, schema: Schema, scope: Scope) -> str | None:
    """The field an op reads: given, else (latest, earliest) the kind's first date field."""
    if field is None and op in ("latest", "earliest"):
        field = next((n for n, s in schema.fields.items() if s.type in ("date", "range")), "occurred")
    if field is None:
        if op == "sum":
            raise UsageError("sum needs --field (a number, quantity or money field)", code="bad_field")
        return None
    try:
        kind = scope.field_type(Ref(None, field, 1))
    except ParseError as exc:
        raise UsageError(f"--field: {str(exc).removesuffix(' (column 1)')}", code="bad_field") from None
    if op == "sum" and kind not in (*SUMMABLE, "any"):
        raise UsageError(f"cannot sum {schema.name}.{field}: it is a {kind} (sum numbers, quantities or money)",
                         code="bad_field")
    return field


def answer(op: str, field: str | None, matched: list[Subject]) -> tuple[Any, list[Subject]]:
    """The value of `op` over the matched memories, and the memories in the order shown."""
    by_time = sorted(matched, key=lambda s: (s.memory.created, s.memory.id))
    if op == "count":
        return len(matched), by_time
    if op == "list":
        return len(matched), _ordered(by_time, field) if field else by_time
    if op == "sum":
        return _sum([s.get(field or "") for s in matched]), by_time
    having = _ordered([s for s in matched if s.get(field or "") is not None], field or "")
    if not having:
        return None, []
    best = having[-1] if op == "latest" else having[0]
    return canonical(best.values[field or ""]), [best]


def _ordered(subjects: list[Subject], field: str) -> list[Subject]:
    """Subjects by a field's value (those without it last, in the order given)."""
    with_value = [s for s in subjects if s.get(field) is not None]
    out: list[Subject] = []
    for s in with_value:  # an insertion sort on compare(): values of one field share a type
        spot = next((i for i, o in enumerate(out) if compare("<", s.get(field), o.get(field))), len(out))
        out.insert(spot, s)
    return out + [s for s in subjects if s.get(field) is None]


def _sum(values: list[Value | None]) -> Any:
    """Numbers add up as numbers; amounts by unit or currency (`{"EUR": "120.5 EUR", ...}` when mixed)."""
    totals: dict[str, Decimal] = {}
    for v in values:
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, Money):
            totals[v.currency] = totals.get(v.currency, Decimal(0)) + v.amount
        elif isinstance(v, Quantity):
            totals[v.unit] = totals.get(v.unit, Decimal(0)) + v.amount
        elif isinstance(v, Decimal):
            totals[""] = totals.get("", Decimal(0)) + v
    if not totals:
        return 0
    shown = {unit: plain_number(total) if not unit else f"{format(total, 'f')} {unit}" for unit, total in totals.items()}
    return next(iter(shown.values())) if len(shown) == 1 else shown


def _row(s: Subject) -> dict[str, Any]:
    m: Memory = s.memory
    fields = {k: canonical(v) for k, v in s.values.items() if k in m.fields}
    occurred = s.values.get("occurred")
    return {"id": m.id, "kind": m.kind, "user": m.user, "project": m.project, "content": m.body,
            "fields": fields, "state": m.state or "active",
            "occurred": canonical(occurred) if isinstance(occurred, DateRange) else None}
