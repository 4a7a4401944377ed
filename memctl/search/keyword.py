"""The keyword index: a whoosh BM25F cache of the memory files.

The index is derived state in this user's cache folder of the directory (``keyword/``), never in
the shared folder: whoosh's table of contents is a pickle, so whoosh opens only files memctl wrote
there itself. It can be deleted at any time, and a damaged one is thrown away and recreated empty
(``was_reset``) so the caller rebuilds it from the Markdown files.
"""

from __future__ import annotations

import heapq
import logging
import math
import shutil
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from memctl.search._whoosh_startup import quiet_import

quiet_import()
# Only the whoosh submodules we use: a CLI pays their import time on every run.
from whoosh import index as whoosh_index  # noqa: E402
from whoosh.fields import ID, TEXT, Schema  # noqa: E402
from whoosh.query import NullQuery, Or, Query, Term  # noqa: E402
from whoosh.scoring import BM25F  # noqa: E402
from whoosh.searching import SearchContext  # noqa: E402
from whoosh.writing import CLEAR  # noqa: E402

from memctl.core.text import search_terms  # noqa: E402
from memctl.search.analysis import ANALYZER_VERSION, memory_analyzer  # noqa: E402
from memctl.search.specificity import specific_terms  # noqa: E402

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2
INDEX_NAME = f"memctl_s{SCHEMA_VERSION}_a{ANALYZER_VERSION}"
FIELD_BOOSTS: dict[str, float] = {
    "body": 1.0,
    "tags": 1.5,
    "key": 1.5,
    "name": 2.0,
    "description": 1.2,
    "entities": 2.0,
    "when": 1.0,
}
# Coordination bonus: documents matching more of the query's terms rank higher.
COORD_SCALE = 0.9
# Coverage weighs a query word by its IDF times a share: 1 for a specific word (a name, an
# identifier, a rare word: search/specificity.py); less for common vocabulary some memory holds (it
# says less about the topic than a name does); nothing for common vocabulary no memory holds (a
# task's words, "schedule", "help", "maintenance": what to do, not what about). bench/README.md.
PRESENT_COMMON_WEIGHT = 0.25
ABSENT_COMMON_WEIGHT = 0.0
LOCK_TIMEOUT_S = 5.0
ALLOWED_MEMO = 32  # candidate pools whose document numbers are kept (a server answers many users)
_PROGRESS_EVERY = 500
T = TypeVar("T")


class KeywordDoc(BaseModel):
    """What the keyword index knows about one memory."""

    id: str
    body: str
    tags: list[str] = []
    key: str | None = None
    name: str | None = None
    description: str | None = None
    entities: list[str] = []
    when: str | None = None  # the memory's month and year as words ("March 2026"): dates are searchable

    def fields(self) -> dict[str, str]:
        """Field values for whoosh; lists are newline-joined, missing values skipped."""
        values = {
            "id": self.id,
            "body": self.body,
            "tags": "\n".join(self.tags),
            "key": self.key or "",
            "name": self.name or "",
            "description": self.description or "",
            "entities": "\n".join(self.entities),
            "when": self.when or "",
        }
        return {name: value for name, value in values.items() if value}


def doc_terms(doc: KeywordDoc) -> frozenset[str]:
    """The terms a memory's indexed fields hold (not the id: no query word is an id)."""
    return frozenset(t for name, value in doc.fields().items() if name in FIELD_BOOSTS
                     for t in search_terms(value, "index"))


class ProbabilisticBM25F(BM25F):
    """BM25F with the probabilistic (Robertson / Lucene) IDF, log(1 + (N - n + 0.5) / (n + 0.5)).

    whoosh's default IDF, log(N / (n + 1)) + 1, never drops below 1, so a word found in half the
    memories (a user's own name, say) still weighs about a quarter of a rare one; here it weighs
    about a tenth, and rare words decide the ranking.
    """

    def idf(self, searcher: Any, fieldname: str, text: Any) -> float:
        parent = searcher.get_parent()
        return probabilistic_idf(parent.doc_frequency(fieldname, text), parent.doc_count_all())


def probabilistic_idf(n: int, total: int) -> float:
    """log(1 + (N - n + 0.5) / (n + 0.5)): a term no memory holds weighs the most."""
    return math.log(1.0 + (total - n + 0.5) / (n + 0.5))


def make_schema() -> Schema:
    """The index schema: a stored unique id column plus analysed text fields."""
    analyzer = memory_analyzer()
    text_fields = {name: TEXT(analyzer=analyzer, phrase=False) for name in FIELD_BOOSTS}
    return Schema(id=ID(stored=True, unique=True, sortable=True), **text_fields)


def build_query(text: str, schema: Schema) -> Query:
    """An OR over the analysed query terms, each searched in every boosted field.

    User text is never parsed as whoosh query syntax, so operators, quotes,
    brackets and punctuation are just characters (usually dropped).
    """
    groups = query_groups(text, schema)
    if not groups:
        return NullQuery
    return Or([Or([Term(field, term, boost=boost) for field, term, boost in group]) for group in groups],
              scale=COORD_SCALE)


def query_groups(text: str, schema: Schema) -> list[list[tuple[str, str, float]]]:
    """The analysed query terms, each as its (field, term, boost) in every boosted field: what
    `build_query` ORs together (empty when the text has no term)."""
    analyzer = schema["body"].analyzer
    terms = list(dict.fromkeys(t.text for t in analyzer(text or "", mode="query")))
    fields = [name for name in FIELD_BOOSTS if name in schema]
    return [[(field, term, FIELD_BOOSTS[field]) for field in fields] for term in terms] if fields else []


def score_query(searcher: Any, query: Query, docnums: Container[int] | None = None) -> dict[int, float]:
    """BM25F scores by docnum for a ``build_query`` query, with its coordination bonus; only of
    ``docnums`` when given (the others' postings are stepped over, never scored).

    Equivalent to ``searcher.search(query)`` but walks each term's postings
    once and accumulates scores in a dict: whoosh's tree of union matchers
    plus CoordMatcher is about four times slower on a 10k-memory index.
    """
    context = SearchContext(needs_current=False, weighting=searcher.weighting)
    scores: dict[int, float] = defaultdict(float)
    matched_terms: Counter[int] = Counter()
    term_groups = query.subqueries
    for group in term_groups:
        seen: set[int] = set()
        for term_query in group.subqueries:
            matcher = term_query.matcher(searcher, context)
            while matcher.is_active():
                docnum = matcher.id()
                # scoring a posting costs several times stepping over it: a user's recall among
                # 10,000 memories scores only that user's postings
                if docnums is None or docnum in docnums:
                    scores[docnum] += matcher.score()
                    seen.add(docnum)
                matcher.next()
        matched_terms.update(seen)
    scale = getattr(query, "scale", None) or 0.0
    total = len(term_groups)
    return {d: s * _coordination(matched_terms[d], total, scale) for d, s in scores.items()}


def _coordination(matched: int, total: int, scale: float) -> float:
    """Score multiplier rewarding memories that contain more of the query's terms."""
    if total <= 1:
        return 1.0
    return 1.0 + scale * (matched - 1) / (total - 1)


class KeywordIndex:
    """A persistent whoosh index of memories under one directory."""

    def __init__(self, path: Path) -> None:
        """Remember where the index lives; nothing is opened until first use."""
        self.path = Path(path)
        self._was_reset = False
        self._damaged = False
        self._ix: Any = None
        self._searcher: Any = None
        self._by_id: tuple[Any, dict[str, int]] | None = None  # id -> docnum, for one searcher
        self._allowed: list[tuple[Collection[str], Any, frozenset[int]]] = []
        self._postings: Any = None  # search/postings.Postings, once `keep` is called (a warm process)
        self._names: tuple[Any, list[str]] | None = None  # docnum -> id, for one searcher
        self._masks: list[tuple[frozenset[int], Any]] = []  # allowed docnums -> a boolean per docnum

    def keep(self) -> None:
        """Keep the postings in memory from now on and score queries with numpy (the same scores):
        for a long-running process, which answers many queries from the same segments."""
        if self._postings is None:
            from memctl.search.postings import Postings

            self._postings = Postings()

    @property
    def was_reset(self) -> bool:
        """True when the index was found damaged or outdated (and, by a writer, discarded): the caller
        must rebuild it. Readers never delete an index: another process may be writing or reading it."""
        self._get_searcher()  # corruption is only discovered by opening
        return self._was_reset or self._damaged

    # -- opening ---------------------------------------------------------

    def _open(self, create: bool) -> Any:
        """The whoosh index, opened (or created when ``create``: writers only) on first use."""
        if self._ix is not None:
            return self._ix
        if self.path.is_dir():
            try:
                self._ix = whoosh_index.open_dir(str(self.path), indexname=INDEX_NAME)
                return self._ix
            except whoosh_index.EmptyIndexError:
                if any(self._foreign_entries()):
                    self._trouble(None, create)  # another schema/analyzer version: rebuild
            # A damaged pickle/TOC can raise nearly anything; the index is a cache.
            except Exception as exc:
                self._trouble(exc, create)
        elif self.path.exists():
            self._trouble(None, create)  # a stray file where the directory belongs
        if create:
            self.path.mkdir(parents=True, exist_ok=True)
            self._ix = whoosh_index.create_in(str(self.path), make_schema(), indexname=INDEX_NAME)
        return self._ix

    def _foreign_entries(self) -> Iterator[Path]:
        """Entries that are not this index version's (e.g. an older schema's files)."""
        return (p for p in self.path.iterdir() if INDEX_NAME not in p.name)

    def _trouble(self, exc: BaseException | None, writer: bool) -> None:
        """A damaged index: a writer (holding the engine's keyword lock) discards it; a reader only
        notes it, so the next sync rebuilds it."""
        if writer:
            self._reset(exc)
        else:
            self.close()
            self._damaged = True

    def _reset(self, exc: BaseException | None) -> None:
        """Delete the index directory so it is recreated empty."""
        if exc is not None:
            log.warning("keyword index at %s is unreadable (%s); recreating it", self.path, exc)
        self.close()
        self._was_reset = True
        if self.path.is_dir():
            shutil.rmtree(self.path, ignore_errors=True)
        elif self.path.exists():
            self.path.unlink()

    def _get_searcher(self) -> Any:
        """A searcher on the latest commit, or None when there is no index yet."""
        ix = self._open(create=False)
        if ix is None:
            return None
        try:
            if self._searcher is None:
                self._searcher = ix.searcher(weighting=ProbabilisticBM25F())
            elif not self._searcher.up_to_date():
                # refresh() reuses unchanged segment readers and closes the rest.
                self._searcher = self._searcher.refresh()
            return self._searcher
        except Exception as exc:
            self._trouble(exc, writer=False)
            return None

    def close(self) -> None:
        """Release the open searcher and index handles."""
        if self._searcher is not None:
            self._searcher.close()
        self._searcher = None
        self._ix = None
        self._by_id, self._allowed, self._names, self._masks = None, [], None, []
        if self._postings is not None:
            self.keep_reset()

    def keep_reset(self) -> None:
        """Forget the kept postings (the index was closed or replaced); they are read again as needed."""
        from memctl.search.postings import Postings

        self._postings = Postings()

    # -- writing ---------------------------------------------------------

    def _writer(self) -> Any:
        """A writer, waiting up to LOCK_TIMEOUT_S for another process's lock."""
        self._get_searcher()  # opening a reader first resets a damaged index
        ix = self._open(create=True)
        try:
            return ix.writer(timeout=LOCK_TIMEOUT_S, delay=0.05)
        except whoosh_index.LockError as exc:
            raise TimeoutError(f"keyword index {self.path} is locked by another writer") from exc

    def update(self, upserts: Sequence[KeywordDoc], deletes: Iterable[str]) -> None:
        """Add or replace ``upserts`` and drop ``deletes`` in one transaction."""
        deletes = list(deletes)
        docs = [doc.fields() for doc in upserts]  # before locking: a bad doc changes nothing
        if not docs and not deletes:
            return
        try:
            self._write(docs, deletes)
        except TimeoutError:
            raise
        # Damaged segments can surface only when the writer reads them; the
        # caller sees was_reset and rebuilds, but this change is kept meanwhile.
        except Exception as exc:
            self._reset(exc)
            self._write(docs, deletes)

    def _write(self, docs: list[dict[str, str]], deletes: list[str]) -> None:
        """Apply deletes then upserts under the write lock, all or nothing."""
        writer = self._writer()
        try:
            for doc_id in deletes:
                writer.delete_by_term("id", doc_id)
            for fields in docs:
                writer.update_document(**fields)
        except BaseException:
            writer.cancel()
            raise
        writer.commit()

    def rebuild(
        self,
        docs: Iterable[KeywordDoc],
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """Replace the whole index with ``docs``; readers see the old one until commit."""
        writer = self._writer()
        count = 0
        try:
            for doc in docs:
                writer.add_document(**doc.fields())
                count += 1
                if progress and count % _PROGRESS_EVERY == 0:
                    progress(count)
        except BaseException:
            writer.cancel()
            raise
        writer.commit(mergetype=CLEAR)  # drops every old segment atomically
        if progress:
            progress(count)

    # -- reading ---------------------------------------------------------

    def _read(self, read: Callable[[Any], T], default: T) -> T:
        """Run ``read(searcher)``; if it fails (another process committed and removed the segments
        just listed, or the index is damaged), reopen and try once more, else give `default`."""
        for attempt in (1, 2):
            searcher = self._get_searcher()
            if searcher is None:
                return default
            try:
                return read(searcher)
            # Truncated or vanished segment files surface as struct/IO/bare whoosh errors mid-read.
            except Exception:
                self.close()
                if attempt == 2:
                    self._damaged = True
        return default

    def search(
        self,
        query: str,
        limit: int = 50,
        allowed: Collection[str] | None = None,
    ) -> list[tuple[str, float]]:
        """(id, BM25F score) pairs best first, optionally only ids in ``allowed``."""
        if limit <= 0 or (allowed is not None and not allowed):
            return []
        if self._postings is not None:
            return self._read(lambda searcher: self._kept_hits(searcher, query, limit, allowed), [])
        return self._read(lambda searcher: _top_hits(searcher, query, limit, self._docnums(searcher, allowed)), [])

    def _kept_hits(self, searcher: Any, query: str, limit: int, allowed: Collection[str] | None) -> list[tuple[str, float]]:
        """`_top_hits` from the kept postings: the same hits, scores and order."""
        groups = query_groups(query, searcher.schema)
        if not groups or searcher.doc_count_all() == 0:
            return []
        import numpy as np  # a warm process's: a fresh keyword recall never imports numpy

        docnums, scores = self._postings.scores(searcher, groups, self._mask(searcher, allowed), COORD_SCALE)
        if len(scores) > limit:  # the limit best, and every one tied with the last of them
            best = scores >= np.partition(scores, len(scores) - limit)[len(scores) - limit]
            docnums, scores = docnums[best], scores[best]
        names = self._names_of(searcher)
        ranked = sorted(zip([names[d] for d in docnums.tolist()], scores.tolist()), key=lambda hit: (-hit[1], hit[0]))
        return ranked[:limit]

    def _mask(self, searcher: Any, allowed: Collection[str] | None) -> Any:
        """A boolean per docnum of the ``allowed`` ids (None: all), memoised with their docnums."""
        docnums = self._docnums(searcher, allowed)
        if docnums is None:
            return None
        for memo_docnums, mask in self._masks:
            if memo_docnums is docnums:
                return mask
        import numpy as np

        mask = np.zeros(searcher.doc_count_all(), dtype=bool)
        mask[np.fromiter(docnums, dtype=np.int64, count=len(docnums))] = True
        self._masks = [(docnums, mask), *self._masks[:ALLOWED_MEMO - 1]]
        return mask

    def _names_of(self, searcher: Any) -> list[str]:
        """The id of every docnum of this searcher (deleted documents' too: no posting names them)."""
        if self._names is None or self._names[0] is not searcher:
            ids = searcher.reader().column_reader("id")
            self._names = (searcher, [ids[d] for d in range(searcher.doc_count_all())])
        return self._names[1]

    def _docnums(self, searcher: Any, allowed: Collection[str] | None) -> frozenset[int] | None:
        """The document numbers of the ``allowed`` ids in this searcher (None: all), memoised per
        searcher and ``allowed`` object: the repository hands out the same pool for the same filter."""
        if allowed is None:
            return None
        if searcher.doc_count_all() == 0:
            return frozenset()  # an empty index has no id column to read
        for memo_allowed, memo_searcher, docnums in self._allowed:
            if memo_allowed is allowed and memo_searcher is searcher:
                return docnums
        if self._by_id is None or self._by_id[0] is not searcher:
            reader = searcher.reader()
            ids = reader.column_reader("id")
            self._by_id = (searcher, {ids[docnum]: docnum for docnum in reader.all_doc_ids()})
        by_id = self._by_id[1]
        docnums = frozenset(by_id[i] for i in allowed if i in by_id)
        self._allowed = [(allowed, searcher, docnums), *self._allowed[:ALLOWED_MEMO - 1]]
        return docnums

    def coverage(self, query: str, docs: Mapping[str, KeywordDoc | Collection[str]]) -> dict[str, float]:
        """For each doc, the IDF-weighted share of the query's terms it contains, in [0, 1]; a doc
        is a KeywordDoc or the terms it holds (`doc_terms`, which a caller may keep).

        Unlike BM25 this does not depend on the query's length or best match, so it compares
        across queries. A query word no memory holds weighs the most when it is specific (a name
        the store never heard of: a memory matching only the rest of the query covers little of
        it) and nothing when it is common vocabulary (the words of a task: "schedule maintenance
        for my car" is about the car); a common word some memory holds weighs a quarter of its
        IDF, less than a name. See search/specificity.py."""
        terms = list(dict.fromkeys(search_terms(query, "query")))
        specific = specific_terms(query)
        empty: dict[str, float] = {}
        weights = self._read(lambda searcher: _term_weights(searcher, terms, specific), empty)
        total = sum(weights.values())
        if not total:
            return dict.fromkeys(docs, 0.0)
        out = {}
        for doc_id, doc in docs.items():
            held = doc_terms(doc) if isinstance(doc, KeywordDoc) else doc
            out[doc_id] = sum(w for t, w in weights.items() if t in held) / total
        return out

    def query_coverage(self, query: str, plain: bool = False) -> float:
        """The share of the query's weight (as `coverage` weighs its terms; `plain`: every term by its
        IDF alone, common words too) that some memory holds: low when the query names things the
        store never mentions ("my flat in Shanghai" to a store that knows only Beijing; plain: "what
        time is Harper's piano lesson" to one that never heard of a piano), 1 when every informative
        term is somewhere. 1 for a query with no weighted term."""
        terms = list(dict.fromkeys(search_terms(query, "query")))
        specific = set(terms) if plain else specific_terms(query)
        held: dict[str, tuple[float, bool]] = self._read(lambda searcher: _held_weights(searcher, terms, specific), {})
        total = sum(w for w, _ in held.values())
        return sum(w for w, present in held.values() if present) / total if total else 1.0

    def ids(self) -> set[str]:
        """Ids of every memory in the index."""
        return self._read(_live_ids, set())

    def doc_count(self) -> int:
        """Number of (undeleted) memories in the index."""
        return self._read(lambda searcher: searcher.doc_count(), 0)


def _top_hits(
    searcher: Any, query: str, limit: int, docnums: Container[int] | None
) -> list[tuple[str, float]]:
    """The ``limit`` best (id, score) pairs for ``query``, restricted to ``docnums`` (None: all)."""
    q = build_query(query, searcher.schema)
    if q is NullQuery or searcher.doc_count_all() == 0:
        return []  # an empty index has no id column to read (whoosh raises NotImplementedError)
    ids = searcher.reader().column_reader("id")
    ranked = ((score, ids[docnum]) for docnum, score in score_query(searcher, q, docnums).items())
    # Ties go to the smaller id so results are deterministic.
    best = heapq.nsmallest(limit, ranked, key=lambda pair: (-pair[0], pair[1]))
    return [(doc_id, score) for score, doc_id in best]


def _term_weights(searcher: Any, terms: Sequence[str], specific: Collection[str]) -> dict[str, float]:
    """Each term's probabilistic IDF, its document frequency taken in the field that holds it most,
    times a share: 1 for a `specific` term, else PRESENT_ or ABSENT_COMMON_WEIGHT."""
    total = searcher.doc_count_all()
    fields = [name for name in FIELD_BOOSTS if name in searcher.schema]
    out = {}
    for term in terms:
        held_by = max(searcher.doc_frequency(f, term) for f in fields)
        share = 1.0 if term in specific else PRESENT_COMMON_WEIGHT if held_by else ABSENT_COMMON_WEIGHT
        out[term] = share * probabilistic_idf(held_by, total)
    return out


def _held_weights(searcher: Any, terms: Sequence[str], specific: Collection[str]) -> dict[str, tuple[float, bool]]:
    """Each term's coverage weight and whether any memory holds it."""
    fields = [name for name in FIELD_BOOSTS if name in searcher.schema]
    weights = _term_weights(searcher, terms, specific)
    return {t: (w, any(searcher.doc_frequency(f, t) for f in fields)) for t, w in weights.items()}


def _live_ids(searcher: Any) -> set[str]:
    """Ids of undeleted documents (the id lexicon keeps deleted ones until a merge)."""
    reader = searcher.reader()
    ids = reader.column_reader("id")
    return {ids[docnum] for docnum in reader.all_doc_ids()}
