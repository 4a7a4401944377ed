"""What a database's own search needs from the file index's definition: the same keyword fields,
boosts, analysis and embedded text, so both backends find and rank the same memories."""

from __future__ import annotations

from memctl.search.engine import keyword_doc, vector_text
from memctl.store.postgres.terms import KeywordSpec


def keyword_spec() -> KeywordSpec:
    """The keyword index's fields and BM25F settings (search/keyword.py), for a SQL implementation.
    `version` changes with the whoosh index's schema or analyzer version, so stored terms follow."""
    from memctl.search.keyword import COORD_SCALE, FIELD_BOOSTS, INDEX_NAME  # whoosh: this path only

    return KeywordSpec(fields=lambda memory: keyword_doc(memory).fields(), boosts=dict(FIELD_BOOSTS),
                       version=f"{INDEX_NAME}:{','.join(FIELD_BOOSTS)}", vector_text=vector_text, coord=COORD_SCALE)
