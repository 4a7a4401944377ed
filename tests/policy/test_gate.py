"""The write gate: thresholds, their resolution order, and every check reported together."""

from __future__ import annotations

from typing import Any

import pytest

from memctl.config import GateSettings
from memctl.policy.gate import (
    AUTO_SOURCES,
    RULES,
    SURFACES,
    GateVerdict,
    claimed_source,
    evaluate_gate,
    gate_failures,
    refusal,
    resolve_thresholds,
)

DEFAULTS = GateSettings()
GOOD_TEXT = "Alice prefers window seats on flights."


def gate(text: str = GOOD_TEXT, **overrides: Any) -> GateVerdict:
    """evaluate_gate with passing defaults, so each test states only what it varies."""
    arguments: dict[str, Any] = {
        "confidence": 0.9,
        "source": "user",
        "session": None,
        "auto_writes_in_window": 0,
        "duplicate_of": None,
        "thresholds": DEFAULTS,
    }
    arguments.update(overrides)
    return evaluate_gate(text, **arguments)


def codes(verdict: GateVerdict) -> list[str]:
    return [failure.code for failure in verdict.failures]


def test_a_good_memory_passes_unchanged() -> None:
    verdict = gate()
    assert verdict.passed and verdict.failures == [] and verdict.text == GOOD_TEXT and not verdict.redacted


@pytest.mark.parametrize(
    ("confidence", "expected"),
    [(0.69, ["low_confidence"]), (0.7, []), (1.0, []), (0.0, ["low_confidence"]), (float("nan"), ["low_confidence"])],
)
def test_confidence_boundary(confidence: float, expected: list[str]) -> None:
    assert codes(gate(confidence=confidence)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("abcd", ["too_short"]),
        ("abcde", []),
        ("   abcd   ", ["too_short"]),  # surrounding whitespace does not count
        ("x" * 2000, []),
        ("x" * 2001, ["too_long"]),
        ("", ["too_short"]),
    ],
)
def test_length_boundaries(text: str, expected: list[str]) -> None:
    assert codes(gate(text)) == expected


def test_duplicate_names_the_existing_memory() -> None:
    verdict = gate(duplicate_of="3f9a1c2e")
    assert codes(verdict) == ["duplicate"]
    assert "3f9a1c2e" in verdict.failures[0].message


@pytest.mark.parametrize(
    ("source", "session", "already", "expected"),
    [
        ("auto", "s1", 0, []),
        ("auto", "s1", 2, []),  # the 3rd automatic write passes
        ("auto", "s1", 3, ["rate_limited"]),  # the 4th is refused
        ("ai", "s1", 3, ["rate_limited"]),
        ("AI", "s1", 7, ["rate_limited"]),
        ("user", "s1", 50, []),  # explicit writes are never limited
        ("import", "s1", 50, []),
        ("auto", None, 50, []),  # no session, nothing to count against
    ],
)
def test_rate_limit(source: str, session: str | None, already: int, expected: list[str]) -> None:
    assert codes(gate(source=source, session=session, auto_writes_in_window=already)) == expected


def test_auto_sources() -> None:
    assert frozenset({"auto", "ai"}) == AUTO_SOURCES


@pytest.mark.parametrize(
    "text",
    [
        "My card is 4111 1111 1111 1111.",
        "Deploy with AKIAIOSFODNN7EXAMPLE.",
        "SSN 536-22-1234",
        "Login password: hunter22",
        "身份证号11010519491231002X",
    ],
)
def test_sensitive_text_is_refused_without_quoting_the_secret(text: str) -> None:
    verdict = gate(text)
    assert codes(verdict) == ["sensitive"] and not verdict.passed
    assert verdict.text == text and verdict.findings
    message = verdict.failures[0].message
    assert message.startswith("looks like ") and "\n" not in message
    secret = text[verdict.findings[0].start : verdict.findings[0].end]
    assert secret not in message


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("My card is 4111 1111 1111 1111.", "My card is [REDACTED:card_number]."),
        ("Wifi password: hunter22 at home", "Wifi password: [REDACTED:password] at home"),
        ("IBAN GB82 WEST 1234 5698 7654 32", "IBAN [REDACTED:iban]"),
    ],
)
def test_redact_mode_masks_and_passes(text: str, stored: str) -> None:
    verdict = gate(text, redact=True)
    assert verdict.passed and verdict.failures == []
    assert verdict.text == stored and verdict.redacted and verdict.findings


def test_redact_mode_still_reports_other_failures() -> None:
    verdict = gate("card 4111111111111111", redact=True, confidence=0.2)
    assert codes(verdict) == ["low_confidence"] and verdict.text == "card [REDACTED:card_number]"


def test_every_failure_is_reported_together() -> None:
    verdict = gate(
        "pw: x AKIAIOSFODNN7EXAMPLE " * 100,
        confidence=0.1,
        source="auto",
        session="s1",
        auto_writes_in_window=3,
        duplicate_of="abcd1234",
    )
    assert codes(verdict) == ["low_confidence", "sensitive", "too_long", "duplicate", "rate_limited"]
    assert all("\n" not in failure.message for failure in verdict.failures)


def test_verdict_serialises_to_json() -> None:
    data = gate("x", confidence=0.5).model_dump(mode="json")
    assert set(data) == {"passed", "failures", "text", "findings", "redacted"}
    assert data["failures"][0] == {"code": "low_confidence", "message": "confidence 0.5 is below the minimum 0.7"}


def test_custom_thresholds_are_used() -> None:
    strict = GateSettings(min_confidence=0.95, min_length=10, max_auto_writes=1)
    verdict = gate("too short", thresholds=strict, source="ai", session="s", auto_writes_in_window=1)
    assert codes(verdict) == ["low_confidence", "too_short", "rate_limited"]


# --- resolving thresholds -----------------------------------------------------------------


def test_defaults_without_config_env_or_flags() -> None:
    assert resolve_thresholds({}, {}, {}) == GateSettings(
        min_confidence=0.7,
        duplicate_threshold=0.85,
        related_threshold=0.55,
        max_auto_writes=3,
        min_length=5,
        max_length=2000,
        rate_window_hours=24,
    )


@pytest.mark.parametrize(
    ("config", "env", "overrides", "field", "expected"),
    [
        ({"min_confidence": 0.6}, {}, {}, "min_confidence", 0.6),
        ({"min_confidence": 0.6}, {"MEMORY_MIN_CONFIDENCE": "0.8"}, {}, "min_confidence", 0.8),
        ({"min_confidence": 0.6}, {"MEMORY_MIN_CONFIDENCE": "0.8"}, {"min_confidence": 0.9}, "min_confidence", 0.9),
        ({}, {"MEMORY_MIN_CONFIDENCE": "0.8"}, {"min_confidence": None}, "min_confidence", 0.8),
        ({}, {"MEMORY_DUPLICATE_THRESHOLD": "0.9"}, {}, "duplicate_threshold", 0.9),
        ({}, {"MEMORY_MAX_EXTRACTIONS": "5"}, {}, "max_auto_writes", 5),
        ({"max_auto_writes": 2}, {"MEMORY_MAX_EXTRACTIONS": " 5 "}, {"max_auto_writes": 1}, "max_auto_writes", 1),
        ({}, {"MEMORY_MIN_LENGTH": "10"}, {}, "min_length", 10),
        ({}, {"MEMORY_MAX_LENGTH": "500"}, {}, "max_length", 500),
        ({"max_length": 800}, {"MEMORY_MAX_LENGTH": ""}, {}, "max_length", 800),  # empty = unset
        ({"related_threshold": 0.4, "redact": True, "other": 1}, {}, {}, "related_threshold", 0.4),
        ({"rate_window_hours": 12}, {"UNRELATED": "x"}, {}, "rate_window_hours", 12),
    ],
)
def test_resolution_order_config_then_env_then_flags(
    config: dict[str, Any], env: dict[str, str], overrides: dict[str, Any], field: str, expected: float
) -> None:
    assert getattr(resolve_thresholds(config, env, overrides), field) == expected


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MEMORY_MIN_CONFIDENCE", "high"),
        ("MEMORY_MIN_CONFIDENCE", "1.5"),
        ("MEMORY_MIN_CONFIDENCE", "nan"),
        ("MEMORY_DUPLICATE_THRESHOLD", "-0.1"),
        ("MEMORY_MAX_EXTRACTIONS", "3.5"),
        ("MEMORY_MAX_EXTRACTIONS", "-1"),
        ("MEMORY_MIN_LENGTH", "five"),
        ("MEMORY_MAX_LENGTH", "2k"),
    ],
)
def test_malformed_environment_value_names_the_variable(name: str, value: str) -> None:
    with pytest.raises(ValueError, match=name) as raised:
        resolve_thresholds({}, {name: value}, {})
    assert "\n" not in str(raised.value)


def test_malformed_env_is_reported_even_when_a_flag_overrides_it() -> None:
    with pytest.raises(ValueError, match="MEMORY_MIN_CONFIDENCE"):
        resolve_thresholds({}, {"MEMORY_MIN_CONFIDENCE": "oops"}, {"min_confidence": 0.5})


@pytest.mark.parametrize(
    ("config", "env", "overrides", "fragment"),
    [
        ({"min_confidence": "lots"}, {}, {}, "min_confidence"),
        ({}, {"MEMORY_MIN_LENGTH": "100", "MEMORY_MAX_LENGTH": "50"}, {}, "greater than max_length"),
        ({}, {}, {"min_confidence": 2.0}, "min_confidence"),
        ({}, {}, {"no_such_threshold": 1}, "no_such_threshold"),
    ],
)
def test_invalid_thresholds_raise_one_line_errors(
    config: dict[str, Any], env: dict[str, str], overrides: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(ValueError, match=fragment) as raised:
        resolve_thresholds(config, env, overrides)
    assert "\n" not in str(raised.value)


# -- the registry: where each rule applies --------------------------------------------------------

LOW = {"text": "Alice likes tea.", "confidence": 0.5}
# (surface, what it changes, the codes a low-confidence, secret-free, short-enough memory gets)
WHERE = [
    ("add", None, ["low_confidence"]), ("import", None, ["low_confidence"]), ("restore", None, []),
    ("edit", {"tags"}, []), ("edit", {"confidence"}, ["low_confidence"]), ("edit", {"body"}, []),
    ("update", {"tags"}, []), ("update", {"confidence"}, ["low_confidence"]), ("update", {"body"}, ["low_confidence"]),
]


@pytest.mark.parametrize(("surface", "changed", "expected"), WHERE)
def test_each_surface_runs_the_rules_the_registry_gives_it(surface: str, changed: set | None, expected: list) -> None:
    assert codes(gate(LOW["text"], confidence=LOW["confidence"], surface=surface, changed=changed)) == expected


def test_secrets_are_refused_on_every_surface_and_length_only_where_the_body_is_written() -> None:
    secret = "My card number is 4111 1111 1111 1111"
    for surface in SURFACES:
        assert "sensitive" in codes(gate(secret, surface=surface, changed={"tags"}))
        assert "sensitive" in codes(gate(GOOD_TEXT, surface=surface, changed={"tags"}, fields={"tags": secret}))
    assert codes(gate("abc", surface="edit", changed={"tags"})) == []
    assert codes(gate("abc", surface="edit", changed={"body"})) == ["too_short"]
    assert codes(gate("abc", surface="restore")) == []


def test_duplicates_and_the_rate_limit_judge_new_memories_only() -> None:
    busy = {"source": "ai", "session": "s1", "auto_writes_in_window": 3, "duplicate_of": "0000abcd"}
    assert codes(gate(**busy)) == ["duplicate", "rate_limited"]
    assert codes(gate(**busy, surface="import")) == ["duplicate", "rate_limited"]
    for surface in ("restore", "edit", "update"):
        assert codes(gate(**busy, surface=surface, changed={"body"})) == []


def test_every_rule_names_its_codes_and_surfaces() -> None:
    for rule in RULES:
        assert rule.codes and rule.why and set(rule.applies) <= set(SURFACES), rule.name
    with pytest.raises(ValueError):
        gate_failures(object(), "delete", DEFAULTS)  # type: ignore[arg-type]


def test_one_wording_for_every_refusal() -> None:
    failures = gate("abc", confidence=0.1).failures
    error = refusal(failures, data={"x": 1})
    assert error.code == "low_confidence" and error.exit_code == 3 and error.data == {"x": 1}
    assert str(error) == ("refused by the gate (low_confidence, too_short): confidence 0.1 is below the minimum 0.7; "
                          "text is 3 characters, shorter than the minimum 5")


@pytest.mark.parametrize(("claimed", "trusted", "expected"),
                         [("user", True, "user"), (None, True, "user"), ("auto", True, "auto"),
                          ("user", False, "ai"), (None, False, "ai"), ("import", False, "ai")])
def test_an_untrusted_client_writes_as_ai_whatever_it_claims(claimed, trusted, expected) -> None:
    assert claimed_source(claimed, trusted) == expected
