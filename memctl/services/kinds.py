"""Typed input for writes: `--kind passport --field expires=2026-04-02` checked against the kind's
schema before anything is written (add, import, extract, edit), and the write decision for typed
memories, which their fields make rather than their wording."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Mapping

from memctl.core.access import Access
from memctl.core.models import Memory
from memctl.core.schemas import Schema, validate_fields
from memctl.errors import InvalidMemory
from memctl.policy.decide import Decision
from memctl.store.filters import scope_filter
from memctl.store.repository import Memories


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


def same_fields(a: Memory, b: Memory) -> bool:
    """Whether two memories hold the same field values (a date read from YAML equals its text)."""
    return {k: str(v) for k, v in a.fields.items()} == {k: str(v) for k, v in b.fields.items()}


def identity_of(schema: Schema | None, memory: Memory) -> tuple[Any, ...] | None:
    """The values of the kind's identity fields (None when the kind has none). A field not given is
    part of the identity too: "my passport" with no country is replaced by the next one with none."""
    if schema is None or not schema.identity:
        return None
    return tuple(None if memory.fields.get(f) is None else str(memory.fields[f]).casefold() for f in schema.identity)


def typed_change(decision: Decision, candidate: Memory, matched: Memory | None, schemas: Mapping[str, Schema],
                 stored: Iterable[Memory]) -> Decision:
    """The write decision for a typed memory, decided by its fields rather than its wording: a new
    passport of the same country supersedes the old one; a trip with other dates is another trip,
    never an update of the last (which would keep the old fields); a typed memory replaces an
    untyped one it updates. `stored` are the owner's active memories."""
    if not candidate.kind:
        return decision
    schema = schemas.get(candidate.kind)
    key = identity_of(schema, candidate)
    same = next((m for m in stored if key is not None and m.id != candidate.id and m.kind == candidate.kind
                 and m.owner == candidate.owner and identity_of(schema, m) == key), None)
    if decision.action == "noop":  # a repeat of the words is a repeat only of a memory with the same fields
        twin = next((m for m in stored if m.kind == candidate.kind and same_fields(m, candidate)), None)
        if twin is not None:
            return decision.model_copy(update={"target": twin.id})
    if same is not None:
        return decision.model_copy(update={"action": "supersede", "target": same.id, "decided_by": "rules", "text": None,
                                           "reason": f"the same {candidate.kind} ({', '.join(key or ())}): "
                                                     "the new one replaces it"})
    if matched is None or decision.action == "add":
        return decision
    if not matched.kind and decision.action == "update":
        return decision.model_copy(update={"action": "supersede", "text": None,
                                           "reason": f"{decision.reason}; the typed {candidate.kind} replaces it"})
    if matched.kind and (matched.kind != candidate.kind or not same_fields(matched, candidate)):
        return decision.model_copy(update={"action": "add", "target": None, "text": None,
                                           "reason": f"another {candidate.kind}: its fields differ from {matched.id}'s"})
    return decision


def typed_memories(repo: Memories, kinds: Iterable[str], now: datetime, *, users: Iterable[str] = (),
                   projects: Iterable[str] = (), access: Access | None = None,
                   members: Mapping[str, Mapping[str, str]] | None = None) -> list[Memory]:
    """The active memories of these kinds of these users (and their projects: store/filters.py) and
    projects, when given, that the actor may see: chosen by the backend, so only they are loaded."""
    flt = scope_filter(members or {}, users, projects, kinds=tuple(sorted(set(kinds))) or ("",), access=access)
    return repo.select(flt, now)
