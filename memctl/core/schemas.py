"""Kinds of typed memories: a schema names a kind's fields and their types (validated with pydantic).

A typed memory has `kind: passport` and a `fields:` mapping; its schema says which fields it may
have, of what type, which are required, and which say *which* thing it is (`identity`: a new
passport of the same country replaces the old one; a trip has none, so every trip is its own).
Schemas come from the shipped defaults, `schemas/*.toml` and `[schemas.NAME]` in memctl.toml.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from memctl.core.kindwords import MAX_WORDS, check_words  # noqa: F401 (MAX_WORDS: the bound, for callers)
from memctl.core.typed import FIELD_TYPES, Value, canonical, coerce, infer
from memctl.errors import InvalidMemory, UsageError

NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,39}")
# Words of the rule language, and the memory attributes a condition can name: no field may take them.
RESERVED = frozenset({"and", "or", "not", "in", "within", "is", "set", "today", "true", "false", "day", "days",
                      "week", "weeks", "state", "occurred", "created", "updated"})


def check_field_name(name: str, what: str = "field") -> str:
    """A kind or field name: lowercase letters, digits and _, starting with a letter, not a reserved word."""
    if not isinstance(name, str) or not NAME_RE.fullmatch(name) or name in RESERVED:
        raise ValueError(f"invalid {what} name {name!r} (lowercase letters, digits and _, starting with a "
                         "letter; not a word of the rule language)")
    return name


class FieldSpec(BaseModel):
    """One field of a kind: its type, and how it is read."""

    model_config = ConfigDict(extra="forbid")

    type: str
    required: bool = False
    unit: str | None = None  # quantity: the unit (a bare number gets it); money: the currency
    values: list[str] = Field(default_factory=list)  # text: the only values allowed
    yearly: bool = False  # date: recurs every year (a birthday): `within N days` looks at the next one
    description: str = ""

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        if value not in FIELD_TYPES:
            raise ValueError(f"unknown field type {value!r} (types: {', '.join(FIELD_TYPES)})")
        return value


class Schema(BaseModel):
    """A kind: its fields, the memory type it gets by default, and the fields that identify it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    type: str | None = None  # the memory type of `add --kind K` without --type (when configured)
    identity: list[str] = Field(default_factory=list)
    fields: dict[str, FieldSpec]
    # The words that name the kind, per language ({en = ["car", "vehicle"], zh = ["汽车"]}): a query
    # that says one is about the kind, and so is a memory of the kind or one that says one (recall).
    words: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("words", mode="before")
    @classmethod
    def _few_short_words(cls, value: Any) -> dict[str, list[str]]:
        return check_words(value)

    @field_validator("fields", mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        """`expires = "date"` is short for `expires = {type = "date"}`."""
        if not isinstance(value, dict):
            return value
        return {k: {"type": v} if isinstance(v, str) else v for k, v in value.items()}

    @model_validator(mode="after")
    def _names(self) -> "Schema":
        check_field_name(self.name, "kind")
        for field in self.fields:
            check_field_name(field)
        unknown = [f for f in self.identity if f not in self.fields]
        if unknown:
            raise ValueError(f"identity names fields the kind does not have: {', '.join(unknown)}")
        return self

    def field_list(self) -> str:
        """`expires (date, required), country (country)`: for messages and prompts."""
        return ", ".join(f"{name} ({spec.type}{', required' if spec.required else ''})"
                         for name, spec in self.fields.items())


def parse_schema(name: str, raw: Any) -> Schema:
    """One schema table; ValueError with a one-line reason (`fields.expires.type: unknown field type`)."""
    if not isinstance(raw, dict):
        raise ValueError(f"a kind is a table of settings, got {type(raw).__name__}")
    try:
        return Schema.model_validate({**raw, "name": name})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        message = str(err["msg"]).removeprefix("Value error, ")
        raise ValueError(f"{where}: {message}" if where else message) from None


def validate_fields(schemas: dict[str, Schema], kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A typed memory's fields checked against its kind's schema, in canonical form (schema order);
    InvalidMemory (exit 2) naming the kind and the field otherwise."""
    schema = schemas.get(kind)
    if schema is None:
        known = ", ".join(sorted(schemas)) or "none"
        raise InvalidMemory(f"unknown kind {kind!r} (kinds: {known}; declare it in schemas/ or [schemas.{kind}])",
                            code="unknown_kind")
    unknown = [name for name in fields if name not in schema.fields]
    if unknown:
        raise InvalidMemory(f"{kind} has no field {unknown[0]!r} (fields: {schema.field_list()})", code="bad_field")
    out: dict[str, Any] = {}
    for name, spec in schema.fields.items():
        if fields.get(name) in (None, ""):
            if spec.required:
                raise InvalidMemory(f"{kind} needs the field {name!r} ({spec.type}; --field {name}=...)",
                                    code="missing_field")
            continue
        out[name] = canonical(read_field(spec, fields[name], kind, name))
    return out


def read_field(spec: FieldSpec, value: Any, kind: str, name: str) -> Value:
    """One field's value as its type; InvalidMemory naming kind.field otherwise."""
    try:
        typed = coerce(value, spec.type, spec.unit)
    except ValueError as exc:
        raise InvalidMemory(f"{kind}.{name}: {exc}", code="bad_field") from None
    if spec.values and str(typed) not in spec.values:
        raise InvalidMemory(f"{kind}.{name}: {value!r} is not one of {', '.join(spec.values)}", code="bad_field")
    return typed


def typed_values(schemas: dict[str, Schema], kind: str | None, fields: dict[str, Any]) -> dict[str, Value]:
    """A stored memory's fields as typed values, leniently: a field its schema types is read as that
    type, any other by its shape; a value that does not read (a hand edit) is left out."""
    schema = schemas.get(kind or "")
    out: dict[str, Value] = {}
    for name, raw in fields.items():
        spec = schema.fields.get(name) if schema else None
        try:
            out[name] = coerce(raw, spec.type, spec.unit) if spec else infer(raw)
        except ValueError:
            continue
    return out


def parse_field_pairs(pairs: Iterable[str]) -> dict[str, str]:
    """`name=value` pairs (`--field expires=2026-04-02`) as a mapping; UsageError for one without `=`."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--field {pair!r}: write it as name=value (expires=2026-04-02)", code="bad_field")
        out[name.strip()] = value.strip()
    return out
