"""The relatives a Chinese query names by the relation alone (memctl.search.relations)."""

from __future__ import annotations

import pytest

from memctl.search.relations import relation_terms, unasked

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


@pytest.mark.parametrize(("query", "other"), [
    ("Where does my brother Luis work?", False),  # English names the relation 我哥 says
    ("哥哥Luis在哪工作？", False),  # no possessive before 哥哥
    ("Luis是我哥哥，他在哪上班？", False),
    ("我男朋友在哪工作？", True),  # another relation: someone else
    ("Where does my boyfriend work?", True),
    ("我在哪工作？", True),
])
def test_a_memory_s_relative_is_someone_else_only_when_the_query_says_none_of_its_words(query: str, other: bool) -> None:
    assert bool(unasked(relation_terms("我哥在西门子工作"), query)) is other
