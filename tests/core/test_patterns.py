"""Lazily compiled regular expressions: nothing is compiled until the first call, then once."""

from __future__ import annotations

import re

import pytest

from memctl.core import patterns
from memctl.core.patterns import lazy_pattern


def test_compiled_on_first_call_only(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real = re.compile
    monkeypatch.setattr(patterns.re, "compile", lambda source, flags=0: compiled.append(source) or real(source, flags))
    words = lazy_pattern(r"[a-z]+", re.IGNORECASE)
    assert compiled == []
    assert words().findall("Tea AND cake") == ["Tea", "AND", "cake"]
    assert words() is words()
    assert compiled == [r"[a-z]+"]
