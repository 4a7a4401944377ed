"""Keyword terms for PostgreSQL (pure): memctl's own analysis as tsvectors, and the BM25F query.

A memory's tsvector holds one lexeme per (field, term): `b:createorder`, `t:travel` (the field's
one-letter code, a colon, the term as core.text.search_terms makes it: the same stemming, CJK
bigrams and identifier splitting as the whoosh index). The number of positions a lexeme has is the
term's frequency in that field (positions 1..tf: memctl never asks for phrases). Field lengths go
beside it, so the BM25F of search/keyword.py (per-field IDF and length normalisation, field
boosts, the probabilistic IDF, the coordination bonus) can be computed in SQL and rank as the file
index does.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from whoosh.util.numeric import byte_to_length, length_to_byte  # a lookup table: no index is touched

from memctl.core.keywordspec import KeywordSpec
from memctl.core.models import Memory
from memctl.core.text import search_terms

MAX_POSITIONS = 256  # PostgreSQL keeps at most 256 positions per lexeme: tf is counted up to that
MAX_LEXEME_BYTES = 2046  # PostgreSQL's limit is 2047 bytes; a longer "word" is not a search term
__all__ = ["KeywordSpec"]  # re-exported: the spec lives in core (search/native.py builds it, this module reads it)


def norm(length: int) -> int:
    """A field length as whoosh stores it per document (one byte: exact up to 10, then coarser), so a
    memory's length normalisation is the file index's; the corpus totals stay exact, as whoosh's do."""
    return byte_to_length(length_to_byte(length)) if length else 0


@dataclass
class Document:
    """One memory's terms: lexeme -> frequency, and each field's length in terms."""

    tf: dict[str, int]
    lengths: list[int]

    @property
    def norms(self) -> list[int]:
        """The lengths the scoring uses (see `norm`)."""
        return [norm(n) for n in self.lengths]

    def tsvector(self) -> str:
        """The tsvector literal (lexemes quoted; positions 1..tf)."""
        return " ".join(f"{quote(lexeme)}:{','.join(map(str, range(1, min(n, MAX_POSITIONS) + 1)))}"
                        for lexeme, n in sorted(self.tf.items()))


def quote(lexeme: str) -> str:
    """A lexeme as a quoted tsvector / tsquery token."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def document(memory: Memory, spec: KeywordSpec) -> Document:
    """The terms of a memory's keyword fields, as the whoosh index analyses them at index time."""
    texts = spec.fields(memory)
    tf: Counter[str] = Counter()
    lengths = []
    for name in spec.names:
        terms = search_terms(texts.get(name) or "", "index")
        lengths.append(len(terms))
        tf.update(f"{spec.codes[name]}:{t}" for t in terms if len(t.encode("utf-8")) <= MAX_LEXEME_BYTES - 2)
    return Document(dict(tf), lengths)


@dataclass
class QueryTerms:
    """A query's terms in every field: the lexemes to look up, their term group and field."""

    lexemes: list[str]
    groups: list[int]
    fields: list[int]
    total: int  # how many distinct terms the query has (the coordination bonus counts them)
    terms: list[str] = field(default_factory=list)  # each group's term, as analysed
    specific: Collection[str] | None = None  # the terms that name something (None: all of them)

    def tsquery(self) -> str:
        """Any lexeme matches (the scores say how well)."""
        return " | ".join(quote(lexeme) for lexeme in self.lexemes)


def query_terms(text: str, spec: KeywordSpec) -> QueryTerms:
    """The query's analysed, de-duplicated terms, each searched in every field (search/keyword.build_query)."""
    terms = [t for t in dict.fromkeys(search_terms(text or "", "query")) if len(t.encode("utf-8")) <= MAX_LEXEME_BYTES - 2]
    specific = spec.specific(text or "") if spec.specific is not None else None
    out = QueryTerms([], [], [], len(terms), terms, specific)
    for group, term in enumerate(terms):
        for index, name in enumerate(spec.names):
            out.lexemes.append(f"{spec.codes[name]}:{term}")
            out.groups.append(group)
            out.fields.append(index + 1)  # SQL arrays count from 1
    return out


def weights(query: QueryTerms, spec: KeywordSpec, docs: float, lengths: Sequence[float],
            df: Mapping[str, int]) -> tuple[list[float], list[float]]:
    """Per lexeme: boost x probabilistic IDF, and the field's average length (whoosh: total / docs, or 1)."""
    names = spec.names
    weight, average = [], []
    for lexeme, index in zip(query.lexemes, query.fields):
        n = df.get(lexeme, 0)
        weight.append(spec.boosts[names[index - 1]] * math.log(1.0 + (docs - n + 0.5) / (n + 0.5)))
        average.append((lengths[index - 1] / docs if docs else 0.0) or 1.0)
    return weight, average


def coverage(query: QueryTerms, spec: KeywordSpec, df: Mapping[str, int], docs: float,
             held: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """Per memory, the weighted share of the query's terms among its lexemes (`held`): a term's weight
    is the probabilistic IDF of its largest document frequency in any field, times its share (see
    KeywordSpec.specific): the coverage search/keyword.py computes over the file index."""
    groups: dict[int, list[str]] = {}
    for lexeme, group in zip(query.lexemes, query.groups):
        groups.setdefault(group, []).append(lexeme)
    weight = {}
    for group, lexemes in groups.items():
        held_by = max(df.get(lexeme, 0) for lexeme in lexemes)
        weight[group] = _share(query, spec, group, held_by) * _idf(held_by, docs)
    total = sum(weight.values())
    if not total:
        return dict.fromkeys(held, 0.0)
    group_of = dict(zip(query.lexemes, query.groups))
    return {i: sum(weight[g] for g in {group_of[x] for x in lexemes if x in group_of}) / total
            for i, lexemes in held.items()}


def _share(query: QueryTerms, spec: KeywordSpec, group: int, held_by: int) -> float:
    """1 for a specific term; for common vocabulary, less when some memory holds it, else the absent share."""
    if query.specific is None or query.terms[group] in query.specific:
        return 1.0
    return spec.present_common if held_by else spec.absent_common


def _idf(n: int, docs: float) -> float:
    """whoosh's probabilistic IDF: log(1 + (N - n + 0.5) / (n + 0.5))."""
    return math.log(1.0 + (docs - n + 0.5) / (n + 0.5))


def bm25_sql(where: str, columns: str, pool_first: bool) -> str:
    """The scoring query: BM25F per (memory, term group), summed, times the coordination bonus;
    the best `limit` with their rows, ties to the smaller id (as search/keyword.py breaks them).

    `pool_first` (a small candidate pool: one user's, one project's): the filter's rows are found
    first and only their terms are read; otherwise the GIN index finds the memories holding a query
    term and the filter is applied to those."""
    # (OFFSET 0 keeps the lookup per candidate: PostgreSQL would otherwise hash-join the whole table.)
    source = ("pool CROSS JOIN LATERAL (SELECT * FROM memctl_terms t WHERE t.id = pool.id "
              "AND t.terms @@ %(k_tsq)s::tsquery OFFSET 0) t" if pool_first else
              "memctl_memories m JOIN memctl_terms t ON t.id = m.id")
    # Pool first: each candidate's terms by its key (the join with the query's lexemes filters them);
    # a full-text condition would lead PostgreSQL to scan every memory holding a common query term.
    condition = "TRUE" if pool_first else f"({where}) AND t.terms @@ %(k_tsq)s::tsquery"
    pool = f"pool AS MATERIALIZED (SELECT m.id FROM memctl_memories m WHERE {where}), " if pool_first else ""
    return f"""
WITH {pool}q AS (
    SELECT * FROM unnest(%(k_lex)s::text[], %(k_grp)s::int[], %(k_fld)s::int[], %(k_w)s::float8[],
                         %(k_avg)s::float8[]) AS q(lexeme, grp, fld, w, avgfl)
), hits AS (
    SELECT t.id, q.grp,
           q.w * (cardinality(u.positions) * (%(k_k1)s + 1))
             / (cardinality(u.positions) + %(k_k1)s * ((1 - %(k_b)s) + %(k_b)s * t.norms[q.fld] / q.avgfl)) AS s
    FROM {source}
    CROSS JOIN LATERAL unnest(t.terms) AS u
    JOIN q ON q.lexeme = u.lexeme
    WHERE {condition}
), top AS (
    SELECT id, sum(s) * (1 + %(k_coord)s * (count(DISTINCT grp) - 1)::float8 / %(k_den)s) AS score
    FROM hits GROUP BY id ORDER BY score DESC, id COLLATE "C" LIMIT %(k_limit)s
)
SELECT top.score, {columns} FROM top JOIN memctl_memories m ON m.id = top.id
ORDER BY top.score DESC, m.id COLLATE "C"
"""
