"""The write gate: decide whether a candidate memory may be written, listing every reason it may not.

Pure: the caller supplies the facts that need I/O (an existing duplicate's id, how many automatic
writes this session already made), so every rule is a row in a test table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from memctl.config import GateSettings
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
) -> GateVerdict:
    """Run every gate check on a candidate memory; with redact=True secrets in the body are masked
    instead of refused. `fields` are the other text fields, checked for secrets too; `owner` is whose
    automatic writes with no session `auto_writes_in_window` counts."""
    findings = find_secrets(text)
    stored = redact_secrets(text, findings) if redact and findings else text
    checks = [
        check_confidence(confidence, thresholds),
        None if redact else check_secrets(findings),
        check_field_secrets(fields or {}),
        check_length(stored, thresholds),
        check_duplicate(duplicate_of),
        check_rate(source, session, auto_writes_in_window, thresholds, owner),
    ]
    failures = [failure for failure in checks if failure is not None]
    return GateVerdict(
        passed=not failures,
        failures=failures,
        text=stored,
        findings=findings,
        redacted=stored != text,
    )
