"""Everyday changes to stored memories: edit fields or body, forget (archive), restore."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memctl import clock
from memctl.config import Config
from memctl.core.access import Access, access_view, can_read, write_refusal
from memctl.core.models import Memory
from memctl.errors import Forbidden, InvalidMemory, NotFound, UsageError
from memctl.services.build import check_state, check_type, check_visibility
from memctl.services.kinds import typed_input
from memctl.store.filters import MemoryFilter
from memctl.store.layout import is_archived
from memctl.store.repository import ReadsAndWrites

if TYPE_CHECKING:
    from memctl.policy.gate import Surface
    from memctl.store.kinds import KindFiles

IMMUTABLE_FIELDS = {"id", "created", "scope", "user", "project", "session", "path", "author"}


class EditService:
    """Edit, forget and restore single memories, each under the write lock."""

    def __init__(self, repo: ReadsAndWrites, config: Config, access: Access | None = None,
                 kinds: "KindFiles | None" = None) -> None:
        self.repo = repo
        self.config = config
        self.access = access
        self.actor = access.actor if access else None  # journaled with each write this service makes
        self.kinds = kinds  # the kinds typed memories follow (None: kind and fields are not checked)

    def _mine(self, memory_id: str) -> Memory:
        """The memory, if the actor may change it: NotFound when they may not see it, Forbidden else."""
        memory = self.repo.get(memory_id)
        if not can_read(self.access, access_view(memory)):
            raise NotFound(f"no memory with id {memory_id!r}")
        refusal = write_refusal(self.access, "change", access_view(memory))
        if refusal:
            raise Forbidden(refusal)
        return memory

    def edit(self, memory_id: str, sets: dict[str, str] | None = None, body: str | None = None,
             agent: bool = False) -> Memory:
        """Change fields (`field=value`, YAML-typed) and/or the body; validated before saving, and
        through the gate's rules for a person's edit, or (`agent`) for an agent's update."""
        from memctl.core.fileformat import serialise_memory
        from memctl.services.write import check_whole

        with self.repo.locked():
            memory = self._mine(memory_id)
            updated = apply_edits(memory, sets or {}, body)
            check_type(self.config, updated.type)
            if "visibility" in (sets or {}):  # an unknown value already on disk may stay while other fields change
                check_visibility(updated.visibility)
            if updated.state is not None:
                check_state(self.config, updated.state)
            typed_edit = (updated.kind, updated.fields) != (memory.kind, memory.fields)
            if typed_edit:
                updated = by_hand(memory, updated)
            if self.kinds is not None and typed_edit and updated.kind:  # other edits leave a hand-made kind alone
                updated = updated.model_copy(update=typed_input(self.kinds.schemas, updated.model_dump()))
            if updated.part_of and updated.part_of != memory.part_of:
                check_whole(self.repo, self.access, updated.part_of, memory.id)
            self._gate(memory, updated, "update" if agent else "edit")
            if serialise_memory(updated) == serialise_memory(memory):
                return memory
            updated.updated = clock.now()
            return self.repo.rewrite(updated, "edit", fields=",".join(sorted((sets or {}).keys())) or None,
                                     previous_body=memory.body if updated.body != memory.body else None, actor=self.actor)

    def _gate(self, before: Memory, after: Memory, surface: Surface) -> None:
        """An edit passes the gate's rules for its surface (policy/gate.py RULES), judged on what it
        changes: no secret in any field, a new body within the length bounds, a confidence it sets at
        or above the minimum (an agent's new text too: a new claim at the stored confidence)."""
        from memctl.policy.gate import evaluate_gate, refusal
        from memctl.services.write import resolve_gate, text_fields

        old, new = before.model_dump(exclude={"path", "updated"}), after.model_dump(exclude={"path", "updated"})
        changed = {name for name in old.keys() | new.keys() if old.get(name) != new.get(name)}
        verdict = evaluate_gate(after.body, confidence=after.confidence, source=after.source, session=after.session,
                                auto_writes_in_window=0, duplicate_of=None, thresholds=resolve_gate(self.config),
                                fields=text_fields(after), owner=after.owner, surface=surface, changed=changed)
        if not verdict.passed:
            raise refusal(verdict.failures)

    def parts(self, memory_id: str) -> list[Memory]:
        """The memories that are part of this one (active or archived) that the actor may see."""
        whole = self.repo.get(memory_id)
        flt = MemoryFilter(family=(whole.id,), status="all", expired=True, access=self.access)
        return [m for m in self.repo.select(flt, clock.now()) if m.part_of == whole.id]

    def forget(self, memory_id: str, reason: str | None = None, with_parts: bool = False) -> list[Memory]:
        """Archive a memory with status forgotten (and, `with_parts`, its active parts); `restore`
        brings them back. Returns the memories forgotten, the asked-for one first."""
        with self.repo.locked():
            whole = self._mine(memory_id)
            parts = [m for m in self.parts(whole.id) if self.repo.is_active(m)] if with_parts else []
            return [self.repo.archive(m if m is whole else self._mine(m.id), "forgotten", reason, "forget", actor=self.actor)
                    for m in [whole, *parts]]

    def restore(self, memory_id: str, with_parts: bool = False) -> list[Memory]:
        """Bring an archived memory back to its active folder, as it was before archiving (and,
        `with_parts`, its forgotten parts). Returns the memories restored, the asked-for one first."""
        with self.repo.locked():
            memory = self._mine(memory_id)
            if not is_archived(memory.path):
                raise UsageError(f"memory {memory.id} is not archived", code="not_archived")
            parts = [m for m in self.parts(memory.id) if m.status == "forgotten" and is_archived(m.path)] if with_parts else []
            return [self.repo.unarchive(m if m is memory else self._mine(m.id), actor=self.actor) for m in [memory, *parts]]


def by_hand(before: Memory, after: Memory) -> Memory:
    """A person's change of kind or fields: removing the kind removes its fields and records `typed:
    none` (so `structure` does not type it again); any other change makes the kind theirs."""
    extra = {k: v for k, v in after.extra.items() if k != "typed"}
    if not after.kind and before.kind:
        return after.model_copy(update={"fields": {}, "extra": {**extra, "typed": "none"}})
    return after.model_copy(update={"extra": extra})


def parse_value(field: str, raw: str) -> Any:
    """An edit's value, read as YAML (so `0.9`, `[a, b]` and dates keep their types); "" unsets."""
    import yaml

    from memctl.core.fileformat import _Loader

    if raw == "":
        return None
    try:
        return yaml.load(raw, Loader=_Loader)
    except yaml.YAMLError:
        raise UsageError(f"cannot read the value of {field!r} as YAML", code="bad_value") from None


def apply_edits(memory: Memory, sets: dict[str, str], body: str | None) -> Memory:
    """A copy of `memory` with edits applied and fully validated (round-tripped through the file format)."""
    from memctl.core.fileformat import compose, parse_memory

    front = memory.frontmatter()
    for field, raw in sets.items():
        if field in IMMUTABLE_FIELDS:
            raise UsageError(f"field {field!r} cannot be edited", code="immutable_field")
        if not field or not field.replace("_", "").replace("-", "").replace(".", "").isalnum():
            raise UsageError(f"invalid field name {field!r}", code="bad_field")
        value = parse_value(field, raw)
        if field.startswith("fields."):  # one typed field: `--set fields.expires=2026-05-01`
            _set_field(front, field.removeprefix("fields."), value)
        elif field in ("body", "content"):
            body = "" if value is None else str(value)
        elif value is None:
            front.pop(field, None)
        else:
            front[field] = value
    if body is not None and not body.strip():
        raise InvalidMemory("empty content: the body cannot be empty", code="empty_content")
    new = parse_memory(compose(front, body if body is not None else memory.body), memory.path)
    new.path = memory.path
    return new


def _set_field(front: dict[str, Any], name: str, value: Any) -> None:
    """Set (or, with None, unset) one entry of the `fields:` mapping."""
    fields = dict(front.get("fields") or {})
    if value is None:
        fields.pop(name, None)
    else:
        fields[name] = value
    if fields:
        front["fields"] = fields
    else:
        front.pop("fields", None)
