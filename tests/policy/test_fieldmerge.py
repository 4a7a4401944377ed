"""The merge driver's field-by-field judgement (policy/fieldmerge.py), as plain tables."""

from __future__ import annotations

from typing import Any

import pytest

from memctl.policy.fieldmerge import merge_fields

CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], list[str]]] = [
    ("one side changed a field", {"confidence": 0.9}, {"confidence": 0.9}, {"confidence": 0.7}, {"confidence": 0.7}, []),
    ("each side changed another", {"a": 1.0, "b": "x"}, {"a": 2.0, "b": "x"}, {"a": 1.0, "b": "y"}, {"a": 2.0, "b": "y"}, []),
    ("tags as sets", {"tags": ["t"]}, {"tags": ["t", "a"]}, {"tags": ["t", "b"]}, {"tags": ["t", "a", "b"]}, []),
    ("a removed tag stays removed", {"tags": ["t", "u"]}, {"tags": ["u", "a"]}, {"tags": ["t", "u"]}, {"tags": ["u", "a"]}, []),
    ("sources as sets", {}, {"sources": ["s1"]}, {"sources": ["s2"]}, {"sources": ["s1", "s2"]}, []),
    ("links unioned", {"conflicts_with": []}, {"conflicts_with": ["x"]}, {"conflicts_with": ["y"]},
     {"conflicts_with": ["x", "y"]}, []),
    ("updated is the later", {"updated": "2026-01-01T00:00:00Z"}, {"updated": "2026-02-01T00:00:00Z"},
     {"updated": "2026-03-01T00:00:00Z"}, {"updated": "2026-03-01T00:00:00Z"}, []),
    ("counters summed", {"use_count": 3}, {"use_count": 5}, {"use_count": 4}, {"use_count": 6}, []),
    ("a number that is no counter clashes", {"priority": 3}, {"priority": 5}, {"priority": 4}, {"priority": 5}, ["priority"]),
    ("same field, different values", {"confidence": 0.9}, {"confidence": 0.8}, {"confidence": 0.7}, {"confidence": 0.8},
     ["confidence"]),
    ("same change on both sides", {"type": "fact"}, {"type": "skill"}, {"type": "skill"}, {"type": "skill"}, []),
    ("a field one side removed", {"key": "k", "a": 1}, {"a": 1}, {"key": "k", "a": 2}, {"a": 2}, []),
    ("a field only theirs added", {}, {"a": 1}, {"a": 1, "expires": "x"}, {"a": 1, "expires": "x"}, []),
    ("no base (added on both sides)", {}, {"id": "i", "tags": ["a"]}, {"id": "i", "tags": ["b"]},
     {"id": "i", "tags": ["a", "b"]}, []),
]


@pytest.mark.parametrize("base, ours, theirs, fields, conflicts", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_merge_fields(base: dict, ours: dict, theirs: dict, fields: dict, conflicts: list[str]) -> None:
    merged = merge_fields(base, ours, theirs)
    assert merged.fields == fields and merged.conflicts == conflicts


def test_hostile_values_never_raise() -> None:
    merged = merge_fields({"tags": "x"}, {"tags": [{"a": 1}, "b"]}, {"tags": 5})
    assert merged.conflicts == ["tags"]
