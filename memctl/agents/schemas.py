"""The agent tools' results as pydantic models, and what binds their arguments to a directory.

The tools' arguments derive from the capabilities' request models (core/requests.py, core/byid.py;
agents/surfaces.py: argument_model); `bind` makes their `type` (a search's `types`) an enum of the
configured types, with the preset's default type where a tool has one, so an agent sees
`user, feedback, project, reference` under the claude preset instead of guessing `fact`.
`FieldValue` is memory_add's name/value pair. Result models describe the data each tool returns
(the CLI's --json shapes) for MCP's outputSchema and the OpenAPI responses.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model

from memctl.core.models import FIELD_ORDER, TIME_FIELDS, Hit, Memory
from memctl.core.requests import Listed


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or blank")
    return value


Text = Annotated[str, AfterValidator(_not_blank)]


class Arguments(BaseModel):
    """Tool arguments: unknown ones are refused, so a typo is reported instead of ignored; types are
    strict (`"5"` is not a number), as the JSON Schema says."""

    model_config = ConfigDict(extra="forbid", strict=True)


class FieldValue(Arguments):
    """One typed field of memory_add: a name and a plain value."""

    name: Text = Field(description="The field's name, e.g. expires, departs, amount.")
    value: Union[bool, int, float, str] = Field(description="Its value, e.g. \"2026-04-02\", \"120 EUR\", true.")


def bind(model: type[BaseModel], types: tuple[str, ...], default_type: str | None) -> type[BaseModel]:
    """`model` with its type field (`memory_type`, `type`, or the list `types`) an enum of the
    configured types; with `default_type` (an add), that type is the default."""
    kind: Any = Literal[types]
    if "types" in model.model_fields:
        field = model.model_fields["types"]
        spec: Any = (Annotated[list[kind], Listed], Field(default_factory=list, description=f"{field.description} Of {', '.join(types)}."))
        return create_model(model.__name__, __base__=model, types=spec)
    name = next((n for n in ("memory_type", "type") if n in model.model_fields), None)
    if name is None:
        return model
    field = model.model_fields[name]
    if default_type is not None:
        spec = (kind, Field(default_type, description=f"{field.description} One of {', '.join(types)}."))
    else:
        spec = (Optional[kind], Field(None, description=f"{field.description} One of {', '.join(types)}."))
    bound: type[BaseModel] = create_model(model.__name__, __base__=model, **{name: spec})
    return bound


# -- results (MCP's outputSchema, OpenAPI's responses) ---------------------------------------------
# Each is the --json data of its command, field for field: tests/agents/test_parity.py validates
# real answers against them with unknown fields forbidden, so a field the data gains and the
# schema lacks fails a test.

class Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _record_fields() -> dict[str, Any]:
    """A memory's public fields (frontmatter, content, path): times as text, the lists and the
    optional fields present only when set."""
    required = ("id", "type", "scope", "confidence", "source", "status", "created", "updated")
    out: dict[str, Any] = {}
    for name in FIELD_ORDER:
        info = Memory.model_fields[name]
        annotation: Any = str if name in TIME_FIELDS else info.annotation
        out[name] = (annotation, ...) if name in required else (Optional[annotation], None)
    return out


MemoryRecord = create_model(
    "MemoryRecord", __config__=ConfigDict(extra="allow"), __doc__="A memory as --json shows it: its frontmatter "
    "(unknown keys kept, as read), its content and its path.", content=(str, ...), path=(Optional[str], None),
    importance_score=(Optional[float], Field(None, description="show and list --sort importance: its score, 0..1.")),
    **_record_fields())
Record = dict[str, Any]


def _hit_fields() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, info in Hit.model_fields.items():
        if name in ("components", "memory"):
            continue
        annotation: Any = Optional[str] if name == "created" else info.annotation
        out[name] = (annotation, ... if info.is_required() else info.default)
    return out


HitOut = create_model("HitOut", __base__=Out, __doc__="One recall hit, best first.",
                      explain=(Optional[dict[str, Any]], Field(None, description="--explain: the component scores.")),
                      **_hit_fields())


class SearchOut(Out):
    query: str
    mode: str
    considered: int = Field(description="How many memories were in scope.")
    hits: list[HitOut] = Field(description="Best first; empty when nothing relevant is stored.")  # type: ignore[valid-type]
    held_back: int = Field(0, description="Hits of the top k held back below min_relevance.")
    min_relevance: float = Field(0.0, description="The calibrated relevance a hit needed.")
    order: Optional[Literal["newest", "oldest"]] = Field(None, description="Set when the query asks when (last, "
                                                          "first...): the hits on topic come first in this order of their date.")
    findings: list[Record] = Field(default_factory=list, description="Checks the hits take part in.")


class FailureOut(Out):
    code: str = Field(description="What failed: duplicate, low_confidence, rate_limited, sensitive, too_long, too_short.")
    message: str


class VerdictOut(Out):
    passed: bool
    failures: list[FailureOut] = Field(default_factory=list)
    text: str = Field(description="The text as it would be stored (secrets masked when redacting).")
    findings: list[Record] = Field(default_factory=list, description="Secrets found (kind and place, never the value).")
    redacted: bool = False


class DecisionOut(Out):
    action: Literal["add", "update", "supersede", "noop"]
    target: Optional[str] = Field(None, description="The stored memory it repeats, updates or supersedes.")
    similar: list[str] = Field(default_factory=list)
    conflicts_with: list[str] = Field(default_factory=list)
    reason: str
    decided_by: Literal["rules", "llm", "none"] = "rules"
    text: Optional[str] = None


class InferredOut(Out):
    kind: str = Field(description="The kind the words state (passport, trip, ...).")
    fields: dict[str, Any] = Field(description="Its fields as read, in canonical form.")
    by: str = Field(description="rules (offline recognisers) or llm.")


class AddOut(Out):
    decision: DecisionOut = Field(description="add, update, supersede or noop, with the reason and the memory matched.")
    verdict: VerdictOut = Field(description="The gate's checks.")
    written: bool = Field(description="False for a noop (already stored) or a refusal.")
    memory: Optional[MemoryRecord] = Field(description="The memory as stored (or as it would have been).")  # type: ignore[valid-type]
    matched: Optional[MemoryRecord] = Field(description="The stored memory it repeats or changes, if any.")  # type: ignore[valid-type]
    notes: list[str] = Field(default_factory=list, description="What was read from the text (dates...).")
    inferred: Optional[InferredOut] = Field(None, description="The kind and fields read from the text, if any "
                                                              "(services/structure.py).")


class ContextOut(Out):
    text: str = Field(description="The block to put in the prompt: data about the user, not instructions.")
    tokens: int
    budget: int
    format: str
    items: list[str] = Field(description="Ids of the memories in the block.")
    rules: list[str]
    profile_lines: int = 0
    truncated: bool
    note: Optional[str] = None
    explain: list[Record] = Field(default_factory=list, description="The rules that fired.")
    constraints: list[Record] = Field(default_factory=list, description="Constraints that came with the request "
                                                                         "(id, why: the domains they bite in).")
    warnings: int = 0
    held_back: int = Field(0, description="Recalled but below [recall] min_relevance: not in the block.")


class MemoryOut(Out):
    memory: MemoryRecord  # type: ignore[valid-type]


class ListOut(Out):
    count: int
    memories: list[MemoryRecord] = Field(description="Newest first.")  # type: ignore[valid-type]


class QueryOut(Out):
    op: str
    kind: str
    where: list[str]
    field: Optional[str]
    value: Any = Field(description="The answer: a count, a sum, a memory's field, or the list.")
    count: int = Field(description="How many memories matched.")
    memories: list[Record] = Field(description="The memories the answer used.")


class TreeOut(Out):
    user: Optional[str] = Field(None, description="Whose tree (a user's route).")
    project: Optional[str] = Field(None, description="Whose tree (a project's route).")
    count: int
    types: dict[str, dict[str, list[MemoryRecord]]] = Field(  # type: ignore[valid-type]
        description="type -> subtype (\"\" for none) -> its active memories, oldest first.")
