"""The condition language of `query --where` and of checks: a tokenizer and a parser, nothing else.

A condition is data, never code: it is read here into a small tree of the nodes below and
evaluated by policy/conditions.py. There are no calls, no attribute access beyond `alias.field`,
no names but fields, and no way to reach Python. Grammar (loosest binding first):

    condition  := or
    or         := and ("or" and)*
    and        := not ("and" not)*
    not        := "not" not | test
    test       := sum [("=" | "==" | "!=" | "<" | "<=" | ">" | ">=") sum
                      | ["not"] "in" (YEAR | YYYY-MM | "(" literal ("," literal)* ")")
                      | "within" INTEGER ("days" | "weeks")
                      | "is" ["not"] "set"]
    sum        := atom (("+" | "-") atom)*
    atom       := NUMBER [UNIT] | DATE | STRING | "true" | "false" | "today" | NAME ["." NAME] | "(" condition ")"

`180 days` and `2 weeks` are durations, `120.50 EUR` money (a three-letter currency code), `30 km`
a quantity. Errors are `ParseError`s that say what was expected and at which column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Callable, Union

from memctl.core.dates import month_span
from memctl.core.typed import Duration, Money, Quantity, Value

KEYWORDS = frozenset({"and", "or", "not", "in", "within", "is", "set", "today", "true", "false"})
DURATION_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7}
COMPARISONS = ("=", "==", "!=", "<", "<=", ">", ">=")
MAX_LENGTH = 1000  # a condition is a line, not a program
MAX_DEPTH = 32
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<date>\d{4}-\d{2}-\d{2}(?![\d-]))
  | (?P<month>\d{4}-\d{2}(?![\d-]))
  | (?P<number>\d+(?:\.\d+)?)
  | (?P<string>"[^"\n]*"|'[^'\n]*')
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>==|!=|<=|>=|[=<>+\-().,])
""", re.VERBOSE)


class ParseError(ValueError):
    """A condition that does not read: what was expected, and the column (1-based) where."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(f"{message} (column {column})")
        self.column = column


@dataclass(frozen=True)
class Token:
    kind: str  # date, month, number, string, name, op, end
    text: str
    column: int


@dataclass(frozen=True)
class Ref:
    """A field (or attribute) of a bound memory: `trip.departs`, or `departs` in a query."""

    alias: str | None
    name: str
    column: int

    @property
    def label(self) -> str:
        return f"{self.alias}.{self.name}" if self.alias else self.name


@dataclass(frozen=True)
class Const:
    value: Value
    column: int


@dataclass(frozen=True)
class Today:
    column: int


@dataclass(frozen=True)
class Arith:
    op: str  # + or -
    left: "Node"
    right: "Node"
    column: int


@dataclass(frozen=True)
class Compare:
    op: str
    left: "Node"
    right: "Node"
    column: int


@dataclass(frozen=True)
class InPeriod:
    subject: "Node"
    start: date
    end: date
    negated: bool
    column: int


@dataclass(frozen=True)
class InList:
    subject: "Node"
    values: tuple[Const, ...]
    negated: bool
    column: int


@dataclass(frozen=True)
class Within:
    subject: "Node"
    days: int
    column: int


@dataclass(frozen=True)
class IsSet:
    subject: "Node"
    negated: bool
    column: int


@dataclass(frozen=True)
class Logic:
    op: str  # and, or
    items: tuple["Node", ...]
    column: int


@dataclass(frozen=True)
class Not:
    item: "Node"
    column: int


Node = Union[Ref, Const, Today, Arith, Compare, InPeriod, InList, Within, IsSet, Logic, Not]


def tokenize(text: str) -> list[Token]:
    """The tokens of a condition; ParseError at the first character that is not part of the language."""
    if len(text) > MAX_LENGTH:
        raise ParseError(f"a condition is at most {MAX_LENGTH} characters", MAX_LENGTH)
    out, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ParseError(f"unexpected character {text[pos]!r}: not part of the condition language", pos + 1)
        kind = match.lastgroup or "space"
        if kind != "space":
            out.append(Token(kind, match.group(), pos + 1))
        pos = match.end()
    out.append(Token("end", "", len(text) + 1))
    return out


def parse(text: str) -> Node:
    """A condition's tree; ParseError (with the column) when it does not read."""
    if not text or not text.strip():
        raise ParseError("empty condition", 1)
    return _Parser(tokenize(text)).condition()


class _Parser:
    """Recursive descent over the tokens (the grammar is in the module docstring)."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    def peek(self, offset: int = 0) -> Token:
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def take(self) -> Token:
        token = self.peek()
        self.pos += 1
        return token

    def word(self, *words: str) -> bool:
        token = self.peek()
        return token.kind == "name" and token.text.lower() in words

    def symbol(self, *symbols: str) -> bool:
        token = self.peek()
        return token.kind == "op" and token.text in symbols

    def fail(self, expected: str) -> ParseError:
        token = self.peek()
        found = "the end" if token.kind == "end" else repr(token.text)
        return ParseError(f"expected {expected}, found {found}", token.column)

    def condition(self) -> Node:
        node = self.disjunction()
        if self.peek().kind != "end":
            raise self.fail("and, or, or the end of the condition")
        return node

    def disjunction(self) -> Node:
        return self._logic("or", self.conjunction)

    def conjunction(self) -> Node:
        return self._logic("and", self.negation)

    def _logic(self, op: str, operand: Callable[[], Node]) -> Node:
        first = self.peek().column
        items = [operand()]
        while self.word(op):
            self.take()
            items.append(operand())
        return items[0] if len(items) == 1 else Logic(op, tuple(items), first)

    def negation(self) -> Node:
        if self.word("not"):
            column = self.take().column
            return Not(self.negation(), column)
        return self.test()

    def test(self) -> Node:
        left = self.sum()
        token = self.peek()
        if self.symbol(*COMPARISONS):
            self.take()
            return Compare("=" if token.text == "==" else token.text, left, self.sum(), token.column)
        if self.word("not") and self.peek(1).kind == "name" and self.peek(1).text.lower() == "in":
            self.take()
            return self._in(left, True, token.column)
        if self.word("in"):
            return self._in(left, False, token.column)
        if self.word("within"):
            return self._within(left, token.column)
        if self.word("is"):
            self.take()
            negated = self.word("not")
            if negated:
                self.take()
            if not self.word("set"):
                raise self.fail("'set' (is set, is not set)")
            self.take()
            return IsSet(left, negated, token.column)
        return left

    def _in(self, subject: Node, negated: bool, column: int) -> Node:
        self.take()  # in
        token = self.peek()
        if token.kind == "number" and re.fullmatch(r"\d{4}", token.text):
            self.take()
            year = int(token.text)
            return InPeriod(subject, date(year, 1, 1), date(year, 12, 31), negated, column)
        if token.kind == "month":
            self.take()
            try:
                start, end = month_span(date.fromisoformat(token.text + "-01"), 0)
            except ValueError:
                raise ParseError(f"not a month: {token.text!r}", token.column) from None
            return InPeriod(subject, start, end, negated, column)
        if self.symbol("("):
            return InList(subject, self._literals(), negated, column)
        raise self.fail("a year (2025), a month (2025-03) or a list of values in parentheses after 'in'")

    def _literals(self) -> tuple[Const, ...]:
        self.take()  # (
        values = [self._literal()]
        while self.symbol(","):
            self.take()
            values.append(self._literal())
        if not self.symbol(")"):
            raise self.fail("',' or ')' in the list")
        self.take()
        return tuple(values)

    def _literal(self) -> Const:
        node = self.atom()
        if not isinstance(node, Const):
            raise ParseError("a list holds values (numbers, dates, text in quotes), not fields", node.column)
        return node

    def _within(self, subject: Node, column: int) -> Node:
        self.take()  # within
        amount = self.peek()
        if amount.kind != "number" or "." in amount.text:
            raise self.fail("a whole number of days after 'within' (within 14 days)")
        self.take()
        unit = self.peek()
        if unit.kind != "name" or unit.text.lower() not in DURATION_UNITS:
            raise self.fail("'days' or 'weeks' after the number")
        self.take()
        return Within(subject, int(amount.text) * DURATION_UNITS[unit.text.lower()], column)

    def sum(self) -> Node:
        node = self.atom()
        while self.symbol("+", "-"):
            token = self.take()
            node = Arith(token.text, node, self.atom(), token.column)
        return node

    def atom(self) -> Node:
        token = self.peek()
        if token.kind == "number":
            return self._number()
        if token.kind == "date":
            self.take()
            try:
                return Const(date.fromisoformat(token.text), token.column)
            except ValueError:
                raise ParseError(f"not a date: {token.text!r}", token.column) from None
        if token.kind == "month":
            raise ParseError(f"a month such as {token.text} is only allowed after 'in'", token.column)
        if token.kind == "string":
            self.take()
            return Const(token.text[1:-1], token.column)
        if token.kind == "name":
            return self._name()
        if self.symbol("("):
            return self._group()
        if self.symbol("-") and self.peek(1).kind == "number":
            self.take()
            const = self._number()
            return Const(_negate(const.value), token.column)
        raise self.fail("a value or a field")

    def _group(self) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError(f"nested deeper than {MAX_DEPTH} parentheses", self.peek().column)
        self.take()
        node = self.disjunction()
        if not self.symbol(")"):
            raise self.fail("')'")
        self.take()
        self.depth -= 1
        return node

    def _number(self) -> Const:
        token = self.take()
        amount = Decimal(token.text)
        unit = self.peek()
        if unit.kind != "name" or unit.text.lower() in KEYWORDS:
            return Const(amount, token.column)
        self.take()
        word = unit.text
        if word.lower() in DURATION_UNITS:
            if "." in token.text:
                raise ParseError("a duration is a whole number of days or weeks", token.column)
            return Const(Duration(int(amount) * DURATION_UNITS[word.lower()]), token.column)
        if re.fullmatch(r"[A-Z]{3}", word):
            return Const(Money(amount, word), token.column)
        return Const(Quantity(amount, word), token.column)

    def _name(self) -> Node:
        token = self.take()
        word = token.text
        if word.startswith("_"):
            raise ParseError(f"{word!r}: names never start with _", token.column)
        lower = word.lower()
        if lower in ("true", "false"):
            return Const(lower == "true", token.column)
        if lower == "today":
            return Today(token.column)
        if lower in KEYWORDS:
            raise ParseError(f"{word!r} cannot stand here (expected a value or a field)", token.column)
        if self.symbol("("):
            raise ParseError(f"{word}(...): there are no functions in the condition language", self.peek().column)
        if not self.symbol("."):
            return Ref(None, word, token.column)
        self.take()
        field = self.peek()
        if field.kind != "name" or field.text.startswith("_") or field.text.lower() in KEYWORDS:
            raise self.fail(f"a field name after '{word}.'")
        self.take()
        if self.symbol(".") or self.symbol("("):
            raise ParseError(f"{word}.{field.text}: only kind.field is allowed, nothing after it", self.peek().column)
        return Ref(word, field.text, token.column)


def _negate(value: Value) -> Value:
    if isinstance(value, Decimal):
        return -value
    if isinstance(value, Duration):
        return Duration(-value.days)
    if isinstance(value, Money):
        return Money(-value.amount, value.currency)
    if isinstance(value, Quantity):
        return Quantity(-value.amount, value.unit)
    return value
