"""Typed input for writes: `--kind passport --field expires=2026-04-02` checked against the kind's
schema before anything is written (add, import, extract, edit)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from memctl.core.schemas import Schema, validate_fields
from memctl.errors import InvalidMemory


def typed_input(schemas: Mapping[str, Schema], fields: dict[str, Any], types: Iterable[str] = ()) -> dict[str, Any]:
    """A write's `kind` and `fields` validated and in canonical form, and the kind's default type when
    no type was given (and the kind's type is one of `types`); InvalidMemory (exit 2) naming the kind and field otherwise."""
    kind, given = fields.get("kind"), fields.get("fields")
    if not kind and not given:
        return {}
    if not kind:
        raise InvalidMemory("fields need a kind (--kind passport): the kind's schema says what they mean",
                            code="missing_kind")
    if given is not None and not isinstance(given, dict):
        raise InvalidMemory("fields must be a mapping of field names to values", code="bad_field")
    out: dict[str, Any] = {"kind": str(kind), "fields": validate_fields(dict(schemas), str(kind), dict(given or {}))}
    schema = schemas[str(kind)]
    if not fields.get("type") and schema.type in tuple(types):
        out["type"] = schema.type
    return out
