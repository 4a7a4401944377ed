"""The relatives a Chinese query names by the relation alone (memctl.search.relations)."""

from __future__ import annotations

import pytest

from memctl.search.relations import relation_terms

BROTHER = ("哥哥", "哥 ", "兄 ", "brother", "brothers")


@pytest.mark.parametrize("text, terms", [
    ("我哥在哪里工作？", {BROTHER}),  # one character: looked up alone, and in its other words
    ("我的哥哥现在在哪个城市？", {BROTHER}),
    ("她女儿的学校在哪？", {("女儿", "daughter", "daughters")}),
    ("帮我妈约下周的针灸。", {("妈妈", "母亲", "妈 ", "mother", "mom", "mum")}),
    ("我老公在哪工作？", {("老公", "丈夫", "先生", "husband")}),  # a synonym of 丈夫
    ("我同事在哪工作？", set()),  # a relation whose every word is not known is no sign
    ("兄弟们周末去爬山。", set()),  # no possessive
    ("What's my brother's phone number?", set()),  # English relatives are often described, not named
])
def test_relation_terms(text: str, terms: set[tuple[str, ...]]) -> None:
    assert relation_terms(text) == terms
