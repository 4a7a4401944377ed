"""The forwardable commands' arguments: checked and completed the same way on both sides."""

from __future__ import annotations

from typing import Any

import pytest

from memctl.agents.commands import PARAMS, normalise
from memctl.errors import UsageError


def test_defaults_are_filled_in() -> None:
    args = normalise("recall", {"query": "seat"})
    assert args == {"query": "seat", "users": [], "projects": [], "session": None, "types": [], "subtypes": [], "tags": [], "sources": [],
                    "since": None, "until": None, "status": "active", "k": None, "mode": None, "scopes": [],
                    "min_relevance": None, "explain": False, "all_": False}
    assert normalise("context", {"query": "q", "budget": None})["budget"] == 800  # null: the default
    assert normalise("add", {"text": "t", "confidence": 1})["confidence"] == 1


@pytest.mark.parametrize("command, raw, message", [
    ("recall", {}, "query is required"),
    ("recall", {"query": "q", "k": 0}, "k must be at least 1"),
    ("recall", {"query": "q", "k": "5"}, "k must be an integer"),
    ("recall", {"query": "q", "k": True}, "k must be an integer"),
    ("recall", {"query": "q", "users": "alice"}, "users must be a list of strings"),
    ("recall", {"query": "q", "explain": "yes"}, "explain must be true or false"),
    ("add", {"text": "t", "confidence": 1.5}, "confidence must be at most 1"),
    ("add", {"text": "t", "confidence": float("nan")}, "confidence must be a number"),
    ("list", {"colour": "red"}, "unknown argument 'colour'"),
    ("list", [1], "must be a JSON object"),
    ("compact", {}, "no command 'compact'"),
])
def test_bad_arguments(command: str, raw: Any, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        normalise(command, raw)


def test_every_command_has_its_text_or_id() -> None:
    assert set(PARAMS) == {"recall", "context", "add", "list", "show"}
