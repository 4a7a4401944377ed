"""The requests of the capabilities that name one memory by its id: show, edit, forget, restore,
history (core/declare.py says how a request is declared once for every surface)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Optional

from pydantic import AfterValidator, BeforeValidator, Field

from memctl.core.declare import SURFACES, Request, Spelled
from memctl.core.models import id_arg
from memctl.core.requests import LIBRARY_AND_CLI, VISIBILITIES, NotBlank, OneOf
from memctl.errors import InvalidId, InvalidMemory, UsageError

LOCAL = frozenset({"cli"})  # a person's command: no server offers it (the library takes every field)


def _memory_id(value: str) -> str:
    """A memory id or a unique prefix of one, as list and recall print it (core/models.id_arg)."""
    try:
        return id_arg(value)
    except InvalidId as exc:
        raise ValueError(exc.message) from None


def _some(value: Any) -> Any:
    """One text where a list is expected is a list of one; None stays None (leave it as it is)."""
    return [value] if isinstance(value, str) else value


def MemoryId(surfaces: frozenset[str] = SURFACES) -> Any:  # noqa: N802 (reads as a type)
    """The memory a capability names: the CLI's positional ID, `memory_id` (or `id`) elsewhere."""
    return Annotated[str, AfterValidator(_memory_id), Spelled(cli=("",), metavar="ID", aliases=("id",),
                                                              complete="ids", surfaces=surfaces), Field(
        description="The memory's id (or a unique prefix of at least 4 characters).")]


ID_CODES = {"memory_id": "invalid_id"}
ID_ERRORS: dict[str, Any] = {"memory_id": InvalidId}  # the class id_arg raises: the same exit code


class ShowRequest(Request):
    """show: one memory, with its importance (REST: GET of the memory's path; MCP: memory_show)."""

    codes: ClassVar[dict[str, str]] = ID_CODES
    errors: ClassVar[dict[str, Any]] = ID_ERRORS
    memory_id: MemoryId()  # type: ignore[valid-type]


class HistoryRequest(Request):
    """history: what happened to a memory, from the journal."""

    codes: ClassVar[dict[str, str]] = ID_CODES
    errors: ClassVar[dict[str, Any]] = ID_ERRORS
    memory_id: MemoryId(LOCAL)  # type: ignore[valid-type]


class EditRequest(Request):
    """edit: change a memory's fields and/or its text, validated and through the gate before saving."""

    codes: ClassVar[dict[str, str]] = {**ID_CODES, "body": "empty_content", "visibility": "bad_visibility"}
    errors: ClassVar[dict[str, Any]] = {**ID_ERRORS, "body": InvalidMemory}  # as the editor raises them

    memory_id: MemoryId()  # type: ignore[valid-type]
    sets: Annotated[Optional[dict[str, str]], Spelled(surfaces=frozenset()), Field(
        description="Any other fields by name, each value YAML (`tags: \"[a, b]\"`; the CLI: --set FIELD=VALUE; "
                    "an empty value clears the field).")] = None
    body: Annotated[Optional[str], NotBlank, Spelled(cli=("--body",), metavar="TEXT", aliases=("content", "text")),
                    Field(description="The new text (checked by the gate: no secrets; the CLI: - reads stdin).")] = None
    type: Annotated[Optional[str], Spelled(cli=("--type", "-t"), metavar="TYPE", aliases=("memory_type", "category"),
                                           complete="types"), Field(description="A new type.")] = None
    subtype: Annotated[Optional[str], Spelled(metavar="SUBTYPE", aliases=("subType",)), Field(
        description="A new subtype.")] = None
    confidence: Annotated[Optional[float], Spelled(metavar="0..1"), Field(
        ge=0.0, le=1.0, description="A new confidence, 0..1 (below the gate's minimum is refused).")] = None
    key: Annotated[Optional[str], Spelled(metavar="KEY"), Field(description="A new key (a stable slot).")] = None
    tags: Annotated[Optional[list[str]], BeforeValidator(_some), Spelled(cli=("--tag",), metavar="TAG"), Field(
        description="The new tags, replacing the old ones.")] = None
    importance: Annotated[Optional[float], Spelled(metavar="0..1"), Field(
        ge=0.0, le=1.0, description="Explicit importance (1 pins it).")] = None
    expires: Annotated[Optional[str], Spelled(metavar="TIME"), Field(
        description="When it stops being true (ISO date or time).")] = None
    visibility: Annotated[Optional[str], OneOf(VISIBILITIES, "visibility"), Spelled(metavar="WHO", choices=VISIBILITIES),
                          Field(description="public, members or owner_only (only its author sees it).")] = None
    agent: Annotated[bool, Spelled(surfaces=frozenset()), Field(
        description="An agent's correction (memory_update): its new text is also a claim at the memory's "
                    "confidence, gated like an add.")] = False

    def changes(self) -> dict[str, str]:
        """Every field to set as the YAML text the editor reads (JSON is YAML: each value keeps its type)."""
        import json

        typed = {name: json.dumps(getattr(self, name)) for name in TYPED_CHANGES if getattr(self, name) is not None}
        both = sorted(set(typed) & set(self.sets or {}))
        if both:
            raise UsageError(f"edit: {both[0]} is given twice (as a field and in sets)", code="duplicate_argument")
        return {**(self.sets or {}), **typed}


TYPED_CHANGES = ("type", "subtype", "confidence", "key", "tags", "importance", "expires", "visibility")


class ForgetRequest(Request):
    """forget: archive a memory (status forgotten); restore brings it back."""

    codes: ClassVar[dict[str, str]] = ID_CODES
    errors: ClassVar[dict[str, Any]] = ID_ERRORS

    memory_id: MemoryId()  # type: ignore[valid-type]
    reason: Annotated[Optional[str], Spelled(metavar="TEXT"), Field(
        description="Why it is forgotten (kept with the archived memory).")] = None
    with_parts: Annotated[bool, Spelled(surfaces=LIBRARY_AND_CLI), Field(
        description="Also the active memories that are part of it (part_of: a trip's bookings).")] = False


class RestoreRequest(Request):
    """restore: bring an archived memory back to its active folder, as it was before archiving."""

    codes: ClassVar[dict[str, str]] = ID_CODES
    errors: ClassVar[dict[str, Any]] = ID_ERRORS

    memory_id: MemoryId(LOCAL)  # type: ignore[valid-type]
    with_parts: Annotated[bool, Spelled(surfaces=LOCAL), Field(
        description="Also its forgotten parts (the memories part_of it).")] = False
