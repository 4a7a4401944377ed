"""Text analysis: English text takes an ASCII fast path with the same terms, CJK compiles on demand."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memctl.core import text
from memctl.core.text import is_cjk, raw_terms, search_terms


def reference_terms(value: str, index: bool) -> list[tuple[str, int, int]]:
    """raw_terms through the full pattern (CJK runs and words), never the ASCII fast path."""
    out: list[tuple[str, int, int]] = []
    for match in text._token_re().finditer(unicodedata.normalize("NFKC", value)):
        grams = text.cjk_grams(match.group(), index) if match.lastgroup == "cjk" else text.word_terms(match.group())
        out.extend((term, match.start(), match.end()) for term in grams)
    return out


@settings(max_examples=400, deadline=None)
@given(value=st.text(st.characters(max_codepoint=127), max_size=120), index=st.booleans())
def test_ascii_text_gets_the_terms_of_the_full_pattern(value: str, index: bool) -> None:
    assert list(raw_terms(value, index)) == reference_terms(value, index)


@pytest.mark.parametrize("value", [
    "Bob fixes createOrder in PAY-1234 (v2.1.0), doesn't he? user_service/api.py",
    "魏喜欢喝绿茶，不加糖", "Café au lait in Zürich", "東京タワー and ＡＢＣ full-width", "mixed中文text-二",
])
def test_other_text_gets_the_terms_of_the_full_pattern(value: str) -> None:
    for index in (True, False):
        assert list(raw_terms(value, index)) == reference_terms(value, index)


def test_terms_of_a_few_texts() -> None:
    assert search_terms("Bob's createOrder timeout") == ["bob", "createord", "creat", "order", "timeout"]
    assert search_terms("喝绿茶", "index") == ["喝", "绿", "茶", "喝绿", "绿茶"]
    assert search_terms("喝绿茶") == ["喝绿", "绿茶"]


@pytest.mark.parametrize(("char", "expected"), [("茶", True), ("タ", True), ("한", True), ("a", False),
                                                 ("é", False), ("", False), ("，", False)])
def test_is_cjk(char: str, expected: bool) -> None:
    assert is_cjk(char) is expected
