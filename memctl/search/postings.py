"""The keyword index's postings kept in memory by a warm process, scored with numpy.

`keyword.score_query` walks whoosh's matchers and calls its BM25F scorer once per posting: at
10,000 memories that was most of a warm server's keyword search. A server (`KeywordIndex.keep`)
instead reads each term's postings once per index segment (document numbers, term weights and the
field lengths whoosh scores with) and keeps them; a query then scores whole arrays at once.

The scores are whoosh's, bit for bit: the same BM25 formula in the same order of float64
operations (`whoosh.scoring.bm25`), the same IDF and average field length (the searcher's own),
the same field boosts and coordination bonus, added up per memory in the same order (term by term,
field by field). tests/search/test_postings.py compares both on a generated store.

Segments are kept by reader: whoosh reuses the reader of a segment a commit did not touch, so after
an add only the new segment's postings are read again. A segment that lost documents since (an
edit deletes the old version) has another live count and is read again too.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

Arrays = tuple[np.ndarray, np.ndarray, np.ndarray]  # global docnums, term weights, field lengths
SEGMENT_TERMS = 200_000  # (field, term) postings kept per segment before the cache starts over


class Postings:
    """A searcher's postings by (field, term), read on first use and kept per segment reader."""

    def __init__(self) -> None:
        # segment reader -> (its live document count, {(field, term bytes): (local docnums, weights, lengths)})
        self._segments: dict[int, tuple[Any, int, dict[tuple[str, bytes], Arrays]]] = {}

    def scores(self, searcher: Any, groups: Sequence[Sequence[tuple[str, str, float]]],
               mask: np.ndarray | None, scale: float) -> tuple[np.ndarray, np.ndarray]:
        """(docnums, scores) of the memories matching any term, `mask` (a boolean per docnum, None:
        all) allowing: each group is a query word's (field, text, boost) terms, scored as
        `keyword.score_query` scores a `build_query` query, coordination bonus included."""
        total = searcher.doc_count_all()
        summed, matched = np.zeros(total), np.zeros(total, dtype=np.int64)
        weighting, leaves = searcher.weighting, self._leaves(searcher)
        for group in groups:
            seen = np.zeros(total, dtype=bool)
            for field, text, boost in group:
                btext = searcher.schema[field].to_bytes(text)
                docs, weights, lengths = self._term(leaves, field, btext)
                if mask is not None and len(docs):
                    keep = mask[docs]
                    docs, weights, lengths = docs[keep], weights[keep], lengths[keep]
                if not len(docs):
                    continue
                score = _bm25(searcher.idf(field, btext), weights, lengths,
                              searcher.avg_field_length(field) or 1, weighting._field_B.get(field, weighting.B),
                              weighting.K1)
                if boost != 1.0:
                    score = score * boost
                summed[docs] += score
                seen[docs] = True
            matched += seen
        docnums = np.flatnonzero(matched)
        out = summed[docnums]
        if len(groups) > 1:
            out = out * (1.0 + scale * (matched[docnums] - 1) / (len(groups) - 1))
        return docnums, out

    def _leaves(self, searcher: Any) -> list[tuple[dict[tuple[str, bytes], Arrays], Any, int]]:
        """Each segment's kept postings, reader and first docnum; segments no longer read are dropped."""
        out, live = [], {}
        for reader, offset in searcher.reader().leaf_readers():
            kept = self._segments.get(id(reader))
            count = reader.doc_count()
            if kept is None or kept[0] is not reader or kept[1] != count or len(kept[2]) > SEGMENT_TERMS:
                kept = (reader, count, {})
            live[id(reader)] = kept
            out.append((kept[2], reader, offset))
        self._segments = live
        return out

    def _term(self, leaves: list[tuple[dict[tuple[str, bytes], Arrays], Any, int]], field: str, btext: bytes) -> Arrays:
        """The term's postings over every segment (global docnums, in order)."""
        parts = []
        for terms, reader, offset in leaves:
            arrays = terms.get((field, btext))
            if arrays is None:
                arrays = terms[(field, btext)] = _read(reader, field, btext)
            if len(arrays[0]):
                parts.append((arrays[0] + offset, arrays[1], arrays[2]))
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return _EMPTY
        docs, weights, lengths = zip(*parts)
        return np.concatenate(docs), np.concatenate(weights), np.concatenate(lengths)


_EMPTY: Arrays = (np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0))


def _read(reader: Any, field: str, btext: bytes) -> Arrays:
    """One segment's live postings of a term: local docnums, weights, and the field lengths whoosh's
    scorer reads (`doc_field_length(docnum, field, 1)`)."""
    if (field, btext) not in reader:
        return _EMPTY
    matcher = reader.postings(field, btext)  # deleted documents filtered out, as whoosh scores them
    docs, weights = [], []
    while matcher.is_active():
        docs.append(matcher.id())
        weights.append(matcher.weight())
        matcher.next()
    lengths = [reader.doc_field_length(d, field, 1) for d in docs]
    return (np.array(docs, dtype=np.int64), np.array(weights, dtype=np.float64),
            np.array(lengths, dtype=np.float64))


def _bm25(idf: float, tf: np.ndarray, fl: np.ndarray, avgfl: float, b: float, k1: float) -> np.ndarray:
    """whoosh.scoring.bm25 over arrays, its operations in its order (so the floats are the same)."""
    return idf * ((tf * (k1 + 1)) / (tf + k1 * ((1 - b) + b * fl / avgfl)))
