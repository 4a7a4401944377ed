"""What a database's own search needs from the file index's definition: the same keyword fields,
boosts, analysis and embedded text, so both backends find and rank the same memories."""

from __future__ import annotations

from memctl.core.keywordspec import KeywordSpec
from memctl.search.engine import keyword_doc, vector_text


def keyword_spec() -> KeywordSpec:
    """The keyword index's fields, BM25F settings and coverage weights (search/keyword.py), for a SQL
    implementation. `version` changes with the whoosh index's schema or analyzer version, so stored
    terms follow."""
    from memctl.search import keyword  # whoosh: this path only
    from memctl.search.specificity import specific_terms

    boosts = dict(keyword.FIELD_BOOSTS)
    return KeywordSpec(fields=lambda memory: keyword_doc(memory).fields(), boosts=boosts,
                       version=f"{keyword.INDEX_NAME}:{','.join(boosts)}", vector_text=vector_text,
                       coord=keyword.COORD_SCALE, specific=specific_terms,
                       present_common=keyword.PRESENT_COMMON_WEIGHT, absent_common=keyword.ABSENT_COMMON_WEIGHT)
