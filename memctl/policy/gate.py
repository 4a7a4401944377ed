"""The write gate: decide whether a candidate memory may be written, listing every reason it may not.

Pure: the caller supplies the facts that need I/O (an existing duplicate's id, how many automatic
writes this session already made), so every rule is a row in a test table. Every rule is declared
once in RULES with where it applies (add, import, restore, edit, agent update); every way a memory
is written or changed asks `evaluate_gate` with its surface, and every refusal is worded by
`refusal`. Which source a client may claim is decided here too (`claimed_source`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable, Literal, cast

from pydantic import BaseModel, Field, ValidationError

from memctl.config import GateSettings
from memctl.errors import Refused
from memctl.policy.secrets import SecretFinding, describe_finding, find_secrets, redact_secrets

AUTO_SOURCES = frozenset({"auto", "ai"})


# Environment variable -> (threshold field, parser). MAX_EXTRACTIONS keeps its historical name.
ENV_VARIABLES: dict[str, tuple[str, type]] = {
    "MEMORY_MIN_CONFIDENCE": ("min_confidence", float),
    "MEMORY_DUPLICATE_THRESHOLD": ("duplicate_threshold", float),
    "MEMORY_MAX_EXTRACTIONS": ("max_auto_writes", int),
    "MEMORY_MIN_LENGTH": ("min_length", int),
    "MEMORY_MAX_LENGTH": ("max_length", int),
}


def _parse_env_value(name: str, raw: str, parser: type) -> float | int:
    """Parse one environment value, raising a one-line ValueError that names the variable."""
    kind = "a number between 0 and 1" if parser is float else "a non-negative whole number"
    try:
        value = parser(raw.strip())
    except ValueError:
        raise ValueError(f"{name} must be {kind}, got {raw!r}") from None
    valid = 0.0 <= value <= 1.0 if parser is float else value >= 0
    if not valid:  # NaN fails the range test too
        raise ValueError(f"{name} must be {kind}, got {raw!r}")
    return value


def _env_values(env: Mapping[str, str]) -> dict[str, Any]:
    """Threshold values set in the environment; empty variables count as unset."""
    values: dict[str, Any] = {}
    for name, (field, parser) in ENV_VARIABLES.items():
        raw = env.get(name)
        if raw is not None and raw.strip():
            values[field] = _parse_env_value(name, raw, parser)
    return values


def resolve_thresholds(
    config: Mapping[str, Any], env: Mapping[str, str], overrides: Mapping[str, Any]
) -> GateSettings:
    """Merge thresholds: config values, then environment variables, then explicit flags (None = not given)."""
    fields = GateSettings.model_fields
    unknown = sorted(key for key, value in overrides.items() if value is not None and key not in fields)
    if unknown:
        raise ValueError(f"unknown gate threshold(s): {', '.join(unknown)}")
    merged: dict[str, Any] = {key: value for key, value in config.items() if key in fields}
    merged.update(_env_values(env))
    merged.update({key: value for key, value in overrides.items() if value is not None})
    try:
        return GateSettings(**merged)
    except ValidationError as error:
        # pydantic's report spans several lines; callers show one line per problem.
        problems = "; ".join(_describe_error(item) for item in error.errors())
        raise ValueError(f"invalid gate thresholds: {problems}") from None


def _describe_error(item: Mapping[str, Any]) -> str:
    """One pydantic error as 'field: message'."""
    field = ".".join(str(part) for part in item["loc"])
    return f"{field}: {item['msg']}" if field else str(item["msg"])


class GateFailure(BaseModel):
    """One failed check: a stable code for machines and a one-line message for people."""

    code: str
    message: str


class GateVerdict(BaseModel):
    """The gate's answer: whether to write, every failed check, and the text to store."""

    passed: bool
    failures: list[GateFailure] = Field(default_factory=list)
    text: str
    findings: list[SecretFinding] = Field(default_factory=list)
    redacted: bool = False


def check_confidence(confidence: float, thresholds: GateSettings) -> GateFailure | None:
    """Refuse guesses: confidence below min_confidence (or not a number at all)."""
    if math.isfinite(confidence) and confidence >= thresholds.min_confidence:
        return None
    return GateFailure(
        code="low_confidence",
        message=f"confidence {confidence:g} is below the minimum {thresholds.min_confidence:g}",
    )


def check_length(text: str, thresholds: GateSettings) -> GateFailure | None:
    """Refuse fragments and dumps: stripped length must lie in min_length..max_length inclusive."""
    length = len(text.strip())
    if length < thresholds.min_length:
        return GateFailure(
            code="too_short",
            message=f"text is {length} characters, shorter than the minimum {thresholds.min_length}",
        )
    if length > thresholds.max_length:
        return GateFailure(
            code="too_long",
            message=f"text is {length} characters, longer than the maximum {thresholds.max_length}",
        )
    return None


def check_duplicate(duplicate_of: str | None) -> GateFailure | None:
    """Refuse a fact already stored (the caller found it by similarity or key)."""
    if duplicate_of is None:
        return None
    return GateFailure(code="duplicate", message=f"the same fact is already stored as {duplicate_of}")


def check_rate(
    source: str, session: str | None, auto_writes_in_window: int, thresholds: GateSettings,
    owner: str | None = None,
) -> GateFailure | None:
    """Refuse a runaway extractor: automatic writes are capped per session, and those with no session
    per owner (`max_auto_writes_without_session`); explicit writes never are."""
    if source.strip().lower() not in AUTO_SOURCES or (session is None and owner is None):
        return None
    limit = thresholds.max_auto_writes if session is not None else thresholds.max_auto_writes_without_session
    if auto_writes_in_window < limit:
        return None
    who = f"session {session}" if session is not None else f"{owner} (no session)"
    return GateFailure(
        code="rate_limited",
        message=(
            f"{who} already made {auto_writes_in_window} automatic writes in the last "
            f"{thresholds.rate_window_hours:g} hours (limit {limit})"
        ),
    )


def check_secrets(findings: list[SecretFinding]) -> GateFailure | None:
    """Refuse credentials and personal identifiers; the message says where, never what."""
    if not findings:
        return None
    return GateFailure(code="sensitive", message="; ".join(describe_finding(finding) for finding in findings))


def check_field_secrets(fields: Mapping[str, str]) -> GateFailure | None:
    """Refuse a secret in any text field besides the body (tags, key, subtype, source, name, description).

    These are never masked: a masked tag or key would be meaningless, so the write is refused."""
    flagged = [name for name, value in fields.items() if value and find_secrets(value)]
    if not flagged:
        return None
    return GateFailure(code="sensitive", message=f"the {', '.join(flagged)} field(s) hold what looks like a secret")


# --- the registry: every rule once, with where it applies ----------------------------------------

Surface = Literal["add", "import", "restore", "edit", "update"]
SURFACES: tuple[Surface, ...] = ("add", "import", "restore", "edit", "update")
ALWAYS: frozenset[str] = frozenset()  # a rule that applies whatever changed
# What a surface is: add (a new memory: `add`, memory_add, REST POST), import (candidates from a file,
# another store or an extraction, each a new memory), restore (memctl's own exported records, brought
# back as they were), edit (a person's change: `edit`, store.edit), update (an agent's correction:
# memory_update, REST PUT).


@dataclass(frozen=True)
class GateInput:
    """What the rules read: the candidate's text and fields, and the facts that need I/O (found by the
    caller). `changed` is what an edit or update changes (body, confidence, ...); None: a new memory."""

    text: str
    confidence: float
    source: str
    session: str | None
    owner: str | None
    auto_writes_in_window: int
    duplicate_of: str | None
    fields: Mapping[str, str]
    findings: tuple[SecretFinding, ...]
    redact: bool
    changed: frozenset[str] | None


@dataclass(frozen=True)
class GateRule:
    """One rule: its failure codes, its check, and where it applies. `applies` maps a surface to the
    changes that trigger it there (ALWAYS: every time); a surface it does not name never runs it."""

    name: str
    codes: tuple[str, ...]
    check: Callable[[GateInput, GateSettings], "GateFailure | None"]
    applies: Mapping[Surface, frozenset[str]]
    why: str

    def runs_on(self, surface: Surface, changed: frozenset[str] | None) -> bool:
        """Whether this rule judges a write on `surface` that changes `changed` (None: everything)."""
        trigger = self.applies.get(surface)
        if trigger is None:
            return False
        return changed is None or not trigger or bool(trigger & changed)


def _each(names: str, trigger: frozenset[str] = ALWAYS) -> dict[Surface, frozenset[str]]:
    return {cast(Surface, name): trigger for name in names.split()}


RULES: tuple[GateRule, ...] = (
    GateRule("confidence", ("low_confidence",), lambda g, th: check_confidence(g.confidence, th),
             {**_each("add import"), "edit": frozenset({"confidence"}), "update": frozenset({"confidence", "body"})},
             "no guesses: below min_confidence is refused; a person's edit is judged when it sets the "
             "confidence, an agent's update also when it rewrites the text (a new claim at the stored confidence)"),
    GateRule("secrets", ("sensitive",), lambda g, th: None if g.redact else check_secrets(list(g.findings)),
             _each("add import restore edit update"),
             "no credentials or personal identifiers in the body (add --redact masks them instead)"),
    GateRule("field_secrets", ("sensitive",), lambda g, th: check_field_secrets(g.fields),
             _each("add import restore edit update"),
             "no secret in any other text field (tags, key, subtype, source, name, description, unknown keys)"),
    GateRule("length", ("too_short", "too_long"), lambda g, th: check_length(g.text, th),
             {**_each("add import"), **_each("edit update", frozenset({"body"}))},
             "no fragments or dumps: the body within min_length..max_length when it is written"),
    GateRule("duplicate", ("duplicate",), lambda g, th: check_duplicate(g.duplicate_of), _each("add import"),
             "no fact stored twice (the write decision finds repeats too)"),
    GateRule("rate", ("rate_limited",),
             lambda g, th: check_rate(g.source, g.session, g.auto_writes_in_window, th, g.owner), _each("add import"),
             "no runaway extractor: automatic writes (source auto or ai) are capped per session and per owner"),
)


def gate_failures(candidate: GateInput, surface: Surface, thresholds: GateSettings) -> list[GateFailure]:
    """Every rule that applies on `surface` to what the candidate changes, and the failures they find."""
    if surface not in SURFACES:
        raise ValueError(f"unknown gate surface {surface!r}")
    found = (rule.check(candidate, thresholds) for rule in RULES if rule.runs_on(surface, candidate.changed))
    return [failure for failure in found if failure is not None]


def evaluate_gate(
    text: str,
    *,
    confidence: float,
    source: str,
    session: str | None,
    auto_writes_in_window: int,
    duplicate_of: str | None,
    thresholds: GateSettings,
    redact: bool = False,
    fields: Mapping[str, str] | None = None,
    owner: str | None = None,
    surface: Surface = "add",
    changed: Collection[str] | None = None,
) -> GateVerdict:
    """Run the rules that apply on `surface` (RULES) on a candidate memory; with redact=True secrets in
    the body are masked instead of refused. `fields` are the other text fields, checked for secrets
    too; `owner` is whose automatic writes with no session `auto_writes_in_window` counts; `changed`
    is what an edit or update changes (None: a new memory, every rule of the surface runs)."""
    findings = find_secrets(text)
    stored = redact_secrets(text, findings) if redact and findings else text
    candidate = GateInput(text=stored, confidence=confidence, source=source, session=session, owner=owner,
                          auto_writes_in_window=auto_writes_in_window, duplicate_of=duplicate_of,
                          fields=fields or {}, findings=tuple(findings), redact=redact,
                          changed=frozenset(changed) if changed is not None else None)
    failures = gate_failures(candidate, surface, thresholds)
    return GateVerdict(passed=not failures, failures=failures, text=stored, findings=findings,
                       redacted=stored != text)


def refusal(failures: Sequence[GateFailure], data: Any = None) -> Refused:
    """The one form of a gate refusal: every failed check's code and message, the first code as the error's."""
    codes = ", ".join(f.code for f in failures)
    return Refused(f"refused by the gate ({codes}): " + "; ".join(f.message for f in failures),
                   code=failures[0].code, data=data)


# --- who may claim a source ----------------------------------------------------------------------

UNTRUSTED_SOURCE = "ai"


def claimed_source(claimed: str | None, trusted: bool, default: str = "user") -> str:
    """The source a write from a client is recorded with: what it claims when the server trusts it
    (`--trust-source`, or the CLI forwarding from the same folder), else `ai`, so an agent's write counts
    for the rate limit whatever it says it is."""
    if not trusted:
        return UNTRUSTED_SOURCE
    return claimed if claimed else default
