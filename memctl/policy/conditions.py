"""Conditions checked and evaluated: names resolved against the kinds' schemas, types checked before
anything runs, then a pure evaluation over typed memories (no I/O, nothing executed).

A comparison with a field the memory does not have (or whose value does not read) is false, so a
rule never fires on missing data. `within N days` looks ahead from today (a yearly date, such as a
birthday, at its next anniversary); a range of days compares by its first day, and `in` and
`within` ask whether it overlaps the period.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any, Iterator, Mapping

from memctl.core.models import Memory
from memctl.core.schemas import Schema, typed_values
from memctl.core.typed import DateRange, Duration, Money, Quantity, Value, to_range, type_of
from memctl.policy.expr import (
    Arith,
    Compare,
    Const,
    InList,
    InPeriod,
    IsSet,
    Logic,
    Node,
    Not,
    ParseError,
    Ref,
    Today,
    Within,
    parse,
)

# Memory attributes a condition may name besides the kind's fields, and their types.
ATTRIBUTES = {"state": "text", "occurred": "range", "created": "date", "updated": "date"}
TEMPORAL, TEXTUAL = frozenset({"date", "range"}), frozenset({"text", "country"})


@dataclass(frozen=True)
class Scope:
    """What names mean in a condition: each alias's kind and schema (None when the kind has none), and
    the alias bare names belong to (a query's kind)."""

    aliases: Mapping[str, Schema | None]
    default: str | None = None

    def field_type(self, ref: Ref) -> str:
        """The type of a field reference ("any" when no schema says); ParseError for an unknown name."""
        alias = ref.alias or self.default
        if alias is None or alias not in self.aliases:
            bound = ", ".join(sorted(self.aliases)) or "nothing"
            what = ref.alias if ref.alias else ref.name
            raise ParseError(f"unknown name {what!r} (this condition is about {bound})", ref.column)
        schema = self.aliases[alias]
        if schema is not None and ref.name in schema.fields:
            return schema.fields[ref.name].type
        if ref.name in ATTRIBUTES:
            return ATTRIBUTES[ref.name]
        if schema is not None:
            raise ParseError(f"{schema.name} has no field {ref.name!r} (fields: {', '.join(schema.fields)}; "
                             f"attributes: {', '.join(ATTRIBUTES)})", ref.column)
        return "any"


def compile_condition(text: str, scope: Scope) -> Node:
    """A condition parsed and type-checked; ParseError (with the column) when it does not read or its
    types do not fit (`passport.country < 180 days`)."""
    node = parse(text)
    kind = type_check(node, scope)
    if kind not in ("bool", "any"):
        raise ParseError(f"a condition must be true or false, and this is a {kind}", node.column)
    return node


def type_check(node: Node, scope: Scope) -> str:
    """The type a node evaluates to; ParseError where types do not fit."""
    if isinstance(node, Ref):
        return scope.field_type(node)
    if isinstance(node, Const):
        return type_of(node.value)
    if isinstance(node, Today):
        return "date"
    if isinstance(node, Arith):
        return _arith_type(node, type_check(node.left, scope), type_check(node.right, scope))
    if isinstance(node, Compare):
        _compare_types(node, type_check(node.left, scope), type_check(node.right, scope))
        return "bool"
    if isinstance(node, (InPeriod, Within)):
        _expect(node.subject, type_check(node.subject, scope), TEMPORAL, "a date or a date range")
        return "bool"
    if isinstance(node, InList):
        subject = type_check(node.subject, scope)
        for value in node.values:
            _compare_types(Compare("=", node.subject, value, value.column), subject, type_of(value.value))
        return "bool"
    if isinstance(node, IsSet):
        type_check(node.subject, scope)
        return "bool"
    items = node.items if isinstance(node, Logic) else (node.item,)
    for item in items:
        _expect(item, type_check(item, scope), frozenset({"bool"}), "true or false")
    return "bool"


def _expect(node: Node, kind: str, allowed: frozenset[str], what: str) -> None:
    if kind != "any" and kind not in allowed:
        raise ParseError(f"expected {what} here, and this is a {kind}", node.column)


def _arith_type(node: Arith, left: str, right: str) -> str:
    if "any" in (left, right):
        return "any"
    left = "date" if left == "range" else left
    right = "date" if right == "range" else right
    if left == "date" and right == "date" and node.op == "-":
        return "duration"
    if left == "date" and right == "duration":
        return "date"
    if left == right and left in ("duration", "number", "quantity", "money"):
        return left
    raise ParseError(f"cannot {'add' if node.op == '+' else 'subtract'} a {right} {'to' if node.op == '+' else 'from'} "
                     f"a {left}", node.column)


def _compare_types(node: Compare, left: str, right: str) -> None:
    if "any" in (left, right):
        return
    same = (left in TEMPORAL and right in TEMPORAL) or (left in TEXTUAL and right in TEXTUAL) or left == right
    if not same:
        raise ParseError(f"cannot compare a {left} with a {right}", node.column)
    if node.op not in ("=", "!=") and (left in TEXTUAL or left == "bool"):
        raise ParseError(f"a {left} is only compared with = or !=", node.column)


# -- evaluation ---------------------------------------------------------------------------------

@dataclass
class Subject:
    """One memory as a condition sees it: its typed fields and attributes, and which dates recur yearly."""

    memory: Memory
    values: dict[str, Value]
    yearly: frozenset[str] = field(default_factory=frozenset)

    def get(self, name: str) -> Value | None:
        return self.values.get(name)


def subject(memory: Memory, schemas: Mapping[str, Schema]) -> Subject:
    """A memory's typed view: fields read by its schema (or their shape), plus state, occurred, created, updated."""
    values: dict[str, Value] = {"state": memory.state or "active", "created": memory.created.date(),
                                "updated": memory.updated.date()}
    if memory.occurred:
        values["occurred"] = to_range(memory.occurred)
    values.update(typed_values(dict(schemas), memory.kind, memory.fields))
    schema = schemas.get(memory.kind or "")
    yearly = frozenset(n for n, spec in schema.fields.items() if spec.yearly) if schema else frozenset()
    return Subject(memory, values, yearly)


Env = Mapping[str, Subject]


def holds(node: Node, env: Env, today: date, default: str | None = None) -> bool:
    """Whether the condition is true for these memories on `today`."""
    if isinstance(node, Logic):
        results = (holds(item, env, today, default) for item in node.items)
        return all(results) if node.op == "and" else any(results)
    if isinstance(node, Not):
        return not holds(node.item, env, today, default)
    if isinstance(node, Compare):
        return compare(node.op, value(node.left, env, today, default), value(node.right, env, today, default))
    if isinstance(node, InPeriod):
        found = value(node.subject, env, today, default)
        return found is not None and _overlaps(found, node.start, node.end) != node.negated
    if isinstance(node, InList):
        found = value(node.subject, env, today, default)
        return found is not None and any(compare("=", found, v.value) for v in node.values) != node.negated
    if isinstance(node, Within):
        found = upcoming(node.subject, env, today, default)
        return found is not None and _overlaps(found, today, _ahead(today, node.days))
    if isinstance(node, IsSet):
        return (value(node.subject, env, today, default) is not None) != node.negated
    return value(node, env, today, default) is True


def value(node: Node, env: Env, today: date, default: str | None = None) -> Value | None:
    """What a value node evaluates to (None: a field the memory does not have, or no answer)."""
    if isinstance(node, Ref):
        bound = env.get(node.alias or default or "")
        return bound.get(node.name) if bound is not None else None
    if isinstance(node, Const):
        return node.value
    if isinstance(node, Today):
        return today
    if isinstance(node, Arith):
        return arithmetic(node.op, value(node.left, env, today, default), value(node.right, env, today, default))
    return None


def upcoming(node: Node, env: Env, today: date, default: str | None = None) -> date | DateRange | None:
    """A date as `within` sees it: a yearly one (a birthday) at its next anniversary from today."""
    found = value(node, env, today, default)
    if not isinstance(found, (date, DateRange)):
        return None
    bound = env.get(node.alias or default or "") if isinstance(node, Ref) else None
    if isinstance(found, date) and isinstance(node, Ref) and bound is not None and node.name in bound.yearly:
        return next_anniversary(found, today)
    return found


def next_anniversary(day: date, today: date) -> date | None:
    """The first anniversary of `day` on or after `today` (29 February is the 28th in other years);
    None when the calendar ends before it (after 9999-12-31)."""
    for year in (today.year, today.year + 1):
        if year > date.max.year:
            return None
        last = calendar.monthrange(year, day.month)[1]
        candidate = date(year, day.month, min(day.day, last))
        if candidate >= today:
            return candidate
    return None


def _ahead(today: date, days: int) -> date:
    """`days` days after today, or the calendar's last (first) day when that is past its end: `within
    99999999999 days`, in a rule file or on the command line, is no error."""
    try:
        return today + timedelta(days=days)
    except OverflowError:
        return date.max if days > 0 else date.min


def _overlaps(found: Value, start: date, end: date) -> bool:
    if isinstance(found, DateRange):
        return found.start <= end and found.end >= start
    return isinstance(found, date) and start <= found <= end


def _day(v: Value | None) -> Value | None:
    return v.start if isinstance(v, DateRange) else v


def arithmetic(op: str, left: Value | None, right: Value | None) -> Value | None:
    """left + right or left - right where the types allow it (a date minus a date is a duration)."""
    left, right = _day(left), _day(right)
    sign = 1 if op == "+" else -1
    if isinstance(left, date) and isinstance(right, date) and op == "-":
        return Duration((left - right).days)
    if isinstance(left, date) and isinstance(right, Duration):
        try:
            return left + timedelta(days=sign * right.days)
        except OverflowError:
            return None
    if isinstance(left, Duration) and isinstance(right, Duration):
        return Duration(left.days + sign * right.days)
    if isinstance(left, Decimal) and isinstance(right, Decimal) and not isinstance(left, bool):
        return left + sign * right
    if isinstance(left, Quantity) and isinstance(right, Quantity) and left.unit == right.unit:
        return Quantity(left.amount + sign * right.amount, left.unit)
    if isinstance(left, Money) and isinstance(right, Money) and left.currency == right.currency:
        return Money(left.amount + sign * right.amount, left.currency)
    return None


def comparable(left: Value | None, right: Value | None) -> tuple[Any, Any] | None:
    """Two values as keys that order the same way, or None when they do not compare (other units,
    other currencies, other types)."""
    left, right = _day(left), _day(right)
    if left is None or right is None or isinstance(left, bool) != isinstance(right, bool):
        return None
    if isinstance(left, str) and isinstance(right, str):
        return left.casefold(), right.casefold()
    if isinstance(left, Quantity) and isinstance(right, Quantity):
        return (left.amount, right.amount) if left.unit == right.unit else None
    if isinstance(left, Money) and isinstance(right, Money):
        return (left.amount, right.amount) if left.currency == right.currency else None
    if isinstance(left, Duration) and isinstance(right, Duration):
        return left.days, right.days
    if type(left) is type(right) or (isinstance(left, date) and isinstance(right, date)):
        return left, right
    return None


def compare(op: str, left: Value | None, right: Value | None) -> bool:
    """`left op right` (text compares without regard to case); False when they do not compare."""
    keys = comparable(left, right)
    if keys is None:
        return False
    a, b = keys
    if op == "=":
        return bool(a == b)
    if op == "!=":
        return bool(a != b)
    if isinstance(a, (str, bool)):
        return False
    return bool({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])


def walk(node: Node) -> Iterator[Node]:
    """Every node of a tree, parents first."""
    yield node
    children: tuple[Node, ...] = ()
    if isinstance(node, (Arith, Compare)):
        children = (node.left, node.right)
    elif isinstance(node, (InPeriod, InList, Within, IsSet)):
        children = (node.subject,)
    elif isinstance(node, Logic):
        children = node.items
    elif isinstance(node, Not):
        children = (node.item,)
    for child in children:
        yield from walk(child)
