"""The relatives a Chinese query names by the relation alone (memctl.search.relations)."""

from __future__ import annotations

import pytest

from memctl.search.relations import relation_terms


@pytest.mark.parametrize("text, terms", [
    ("我哥在哪里工作？", {"哥 "}),  # one character: looked up alone
    ("我的哥哥现在在哪个城市？", {"哥哥"}),
    ("她女儿的学校在哪？", {"女儿"}),
    ("帮我妈约下周的针灸。", {"妈 "}),
    ("兄弟们周末去爬山。", set()),  # no possessive
    ("What's my brother's phone number?", set()),  # English relatives are often described, not named
])
def test_relation_terms(text: str, terms: set[str]) -> None:
    assert relation_terms(text) == terms
