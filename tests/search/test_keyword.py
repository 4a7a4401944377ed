"""The whoosh keyword index: ranking, multilingual recall, safety, persistence."""

import threading
import time
from pathlib import Path

import pytest

import memctl.search.keyword as keyword
from memctl.search.keyword import KeywordDoc, KeywordIndex, build_query, make_schema

MEMORIES = [
    KeywordDoc(id="seat", body="Alice prefers window seats on flights.", tags=["travel"], key="travel.seat"),
    KeywordDoc(id="hotel", body="Booked the Hilton near the conference venue.", tags=["travel"]),
    KeywordDoc(id="tea", body="用户喜欢喝绿茶，不喜欢咖啡。"),
    KeywordDoc(id="tea2", body="他每天早上喝茶。"),
    KeywordDoc(id="tokyo", body="東京タワーの近くに住んでいます。"),
    KeywordDoc(id="kimchi", body="저는 김치를 정말 좋아해요."),
    KeywordDoc(
        id="order",
        body="The createOrder endpoint fails with ERR_42; tracked in PAY-1234.",
        entities=["createOrder", "ERR_42", "PAY-1234"],
    ),
    KeywordDoc(id="order2", body="To create an order, call the API; errors are logged, pay attention."),
    KeywordDoc(id="coffee", body="Bob drinks coffee every morning.", name="coffee habit", description="Bob's morning routine"),
    KeywordDoc(id="err", body="Error 42 appears in the payment logs."),
]


@pytest.fixture()
def index(tmp_path: Path) -> KeywordIndex:
    ix = KeywordIndex(tmp_path / "keyword")
    ix.rebuild(MEMORIES)
    return ix


def top(ix: KeywordIndex, query: str, **kwargs: object) -> list[str]:
    return [doc_id for doc_id, _ in ix.search(query, **kwargs)]


@pytest.mark.parametrize(
    ("query", "expected_first"),
    [
        ("booking", "hotel"),  # stemming: booking ~ booked
        ("flight", "seat"),  # flights ~ flight
        ("window seat preference", "seat"),
        ("绿茶", "tea"),  # 2-char Chinese query inside a longer run
        ("喜欢喝绿茶", "tea"),
        ("喝绿茶", "tea"),
        ("東京タワー", "tokyo"),
        ("김치", "kimchi"),
        ("createOrder", "order"),
        ("ERR_42", "order"),
        ("err_42", "order"),
        ("PAY-1234", "order"),
        ("coffee habit", "coffee"),
    ],
)
def test_query_ranks_expected_memory_first(index: KeywordIndex, query: str, expected_first: str) -> None:
    assert top(index, query)[0] == expected_first


def test_split_words_find_both_the_identifier_and_the_prose(index: KeywordIndex) -> None:
    assert set(top(index, "create order")[:2]) == {"order", "order2"}


def test_one_cjk_character_matches_via_unigrams(index: KeywordIndex) -> None:
    assert set(top(index, "茶")) == {"tea", "tea2"}


def test_identifier_memory_outranks_memories_sharing_its_parts(index: KeywordIndex) -> None:
    ranked = top(index, "createOrder ERR_42")
    assert ranked[0] == "order"
    assert "order2" in ranked  # create/order parts still match, lower


def test_scores_are_positive_and_descending(index: KeywordIndex) -> None:
    scores = [score for _, score in index.search("travel flights hotel")]
    assert scores and all(s > 0 for s in scores)
    assert scores == sorted(scores, reverse=True)


def test_more_matched_terms_rank_higher(tmp_path: Path) -> None:
    ix = KeywordIndex(tmp_path / "kw")
    ix.rebuild(
        [
            KeywordDoc(id="one", body="garden garden garden tomatoes"),
            KeywordDoc(id="both", body="garden basil"),
            KeywordDoc(id="none", body="unrelated"),
        ]
    )
    assert top(ix, "garden basil")[0] == "both"


@pytest.mark.parametrize(
    "query",
    ["AND", "OR NOT", "*", "a:b", '"unbalanced', "(x", "[1 TO 2]", "~", "^2", "", "???", "body:flight",
     "title:(a OR b)", "\\", "{x TO}", "NOT NOT", "'", "a AND (b OR", "\x00", " " * 5],
)
def test_query_syntax_is_never_interpreted(index: KeywordIndex, query: str) -> None:
    results = index.search(query)
    assert isinstance(results, list)


def test_syntax_characters_do_not_block_plain_words(index: KeywordIndex) -> None:
    assert top(index, "flight AND (window")[0] == "seat"
    assert top(index, "body:booking^2")[0] == "hotel"


def test_build_query_is_safe_on_empty_text() -> None:
    schema = make_schema()
    assert build_query("", schema) is build_query("???", schema)


def test_update_and_delete_are_reflected(index: KeywordIndex) -> None:
    index.update([KeywordDoc(id="seat", body="Alice now prefers aisle seats.")], deletes=["hotel"])
    assert top(index, "aisle") == ["seat"]
    assert top(index, "window") == []
    assert "hotel" not in index.ids()
    assert top(index, "booking") == []
    assert index.doc_count() == len(MEMORIES) - 1


def test_update_visible_to_a_fresh_instance(index: KeywordIndex, tmp_path: Path) -> None:
    index.update([KeywordDoc(id="new", body="Prefers trains over planes.")], deletes=[])
    assert top(KeywordIndex(tmp_path / "keyword"), "train") == ["new"]


def test_rebuild_replaces_everything_and_reports_progress(index: KeywordIndex) -> None:
    seen: list[int] = []
    index.rebuild([KeywordDoc(id="only", body="just one")], progress=seen.append)
    assert index.ids() == {"only"}
    assert seen == [1]


def test_ids_and_count(index: KeywordIndex) -> None:
    assert index.ids() == {m.id for m in MEMORIES}
    assert index.doc_count() == len(MEMORIES)


def test_missing_index_is_empty_without_creating_files(tmp_path: Path) -> None:
    ix = KeywordIndex(tmp_path / "nope")
    assert ix.search("anything") == []
    assert ix.ids() == set()
    assert ix.doc_count() == 0
    assert not (tmp_path / "nope").exists()
    assert not ix.was_reset


@pytest.mark.parametrize(
    ("allowed", "expected"),
    [
        ({"hotel"}, ["hotel"]),
        (["seat"], ["seat"]),
        (frozenset({"seat", "hotel"}), ["seat", "hotel"]),
        (set(), []),
        ({"tea"}, []),  # allowed but not matching
    ],
)
def test_allowed_restricts_results(index: KeywordIndex, allowed: object, expected: list[str]) -> None:
    assert sorted(top(index, "travel", allowed=allowed)) == sorted(expected)


def test_allowed_respects_limit(tmp_path: Path) -> None:
    ix = KeywordIndex(tmp_path / "kw")
    ix.rebuild([KeywordDoc(id=f"m{i}", body=f"note {i} about tea") for i in range(30)])
    allowed = {f"m{i}" for i in range(0, 30, 2)}
    hits = top(ix, "tea", limit=5, allowed=allowed)
    assert len(hits) == 5 and set(hits) <= allowed


@pytest.mark.parametrize("first_op", ["check", "search", "update"])
@pytest.mark.parametrize("damage", ["truncate_toc", "garbage_segment", "file_instead_of_dir", "foreign_files"])
def test_corrupt_index_recovers_empty(tmp_path: Path, damage: str, first_op: str) -> None:
    path = tmp_path / "keyword"
    KeywordIndex(path).rebuild(MEMORIES)
    if damage == "truncate_toc":
        for toc in path.glob("*.toc"):
            toc.write_bytes(b"\x00garbage")
    elif damage == "garbage_segment":
        for seg in path.glob("*.seg"):
            seg.write_bytes(b"not a segment")
    elif damage == "file_instead_of_dir":
        for f in path.iterdir():
            f.unlink()
        path.rmdir()
        path.write_text("oops")
    else:
        for toc in path.glob("*.toc"):
            toc.rename(path / ("old_" + toc.name.replace("memctl_", "v0_")))
    ix = KeywordIndex(path)
    if first_op == "check":
        assert ix.was_reset and ix.doc_count() == 0
    elif first_op == "search":
        assert ix.search("flight") == []
    else:
        ix.update([KeywordDoc(id="new", body="a fresh flight memory")], deletes=["seat"])
        assert ix.ids() == {"new"}
    assert ix.was_reset
    ix.rebuild(MEMORIES)
    assert top(ix, "flight") == ["seat"]


def test_writer_waits_for_another_writers_lock(index: KeywordIndex, tmp_path: Path) -> None:
    other = KeywordIndex(tmp_path / "keyword")
    writer = other._writer()  # holds the whoosh write lock
    threading.Timer(0.3, writer.cancel).start()
    started = time.monotonic()
    index.update([KeywordDoc(id="late", body="written after the lock cleared")], deletes=[])
    assert time.monotonic() - started >= 0.25
    assert top(index, "cleared") == ["late"]


def test_writer_gives_up_with_timeout_error(index: KeywordIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keyword, "LOCK_TIMEOUT_S", 0.2)
    writer = KeywordIndex(tmp_path / "keyword")._writer()
    try:
        with pytest.raises(TimeoutError):
            index.update([KeywordDoc(id="x", body="x")], deletes=[])
    finally:
        writer.cancel()


def test_failed_update_leaves_index_unchanged(index: KeywordIndex) -> None:
    class Boom(KeywordDoc):
        def fields(self) -> dict[str, str]:
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        index.update([KeywordDoc(id="a", body="first"), Boom(id="b", body="second")], deletes=["seat"])
    assert "seat" in index.ids() and "a" not in index.ids()
    index.update([KeywordDoc(id="a", body="first")], deletes=[])  # the lock was released
    assert "a" in index.ids()


def test_keyword_doc_fields_skip_empty_values() -> None:
    doc = KeywordDoc(id="x", body="b", tags=["t1", "t2"], entities=[])
    assert doc.fields() == {"id": "x", "body": "b", "tags": "t1\nt2"}


CHINESE = [
    KeywordDoc(id="green-tea", body="我喜欢喝绿茶"),
    KeywordDoc(id="coffee", body="我喜欢喝咖啡，不加糖"),
    KeywordDoc(id="green-cup", body="绿色的茶杯放在桌子上"),
    KeywordDoc(id="black-tea", body="下午喝红茶"),
    KeywordDoc(id="beijing", body="他住在北京，每天坐地铁上班"),
]


@pytest.mark.parametrize(
    ("query", "expected_first"),
    [("绿茶", "green-tea"), ("喝绿茶", "green-tea"), ("喜欢绿茶", "green-tea"), ("红茶", "black-tea"),
     ("咖啡", "coffee"), ("北京地铁", "beijing"), ("茶杯", "green-cup")],
)
def test_chinese_queries_rank_their_memory_first(tmp_path: Path, query: str, expected_first: str) -> None:
    ix = KeywordIndex(tmp_path / "kw")
    ix.rebuild(CHINESE)
    assert top(ix, query)[0] == expected_first


def test_write_error_from_damaged_segments_resets_and_keeps_the_change(
    index: KeywordIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    import struct

    real_write = KeywordIndex._write
    calls: list[int] = []

    def flaky_write(self: KeywordIndex, docs: list, deletes: list) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise struct.error("unpack requires a buffer of 12 bytes")
        real_write(self, docs, deletes)

    monkeypatch.setattr(KeywordIndex, "_write", flaky_write)
    index.update([KeywordDoc(id="kept", body="kept change")], deletes=[])
    assert index.was_reset
    assert index.ids() == {"kept"}


def test_probabilistic_idf_makes_common_words_weigh_little(tmp_path: Path) -> None:
    from memctl.search.keyword import KeywordDoc, KeywordIndex

    index = KeywordIndex(tmp_path / "kw")
    docs = [KeywordDoc(id=f"{i:08x}", body=f"Alice note {i} about the garden") for i in range(20)]
    docs.append(KeywordDoc(id="ffff0001", body="Alice bought a red kayak"))
    index.rebuild(docs)
    searcher = index._get_searcher()
    weighting = searcher.weighting
    common = weighting.idf(searcher, "body", "alic")
    rare = weighting.idf(searcher, "body", "kayak")
    assert common < 0.1 * rare
    assert index.search("Alice kayak")[0][0] == "ffff0001"


# --- coverage: the IDF-weighted share of the query's terms a memory holds -----------------------


@pytest.mark.parametrize("query, doc_id, low, high", [
    ("window seats", "seat", 1.0, 1.0),  # every term held
    ("Hilton in Kyoto", "hotel", 0.3, 0.5),  # two names, "Kyoto" held by no memory: weighs more
    ("Kyoto conference", "hotel", 0.05, 0.2),  # a common word held weighs less than a name
    ("Kyoto hotel", "seat", 0.0, 0.0),
    ("Kyoto hotel", "hotel", 0.0, 0.0),  # the doc's id is "hotel", its text is not
    # a task's common words that no memory holds weigh nothing: the request is about the seat
    ("find me a window seat for the flight", "seat", 1.0, 1.0),
    ("绿茶", "tea", 1.0, 1.0),
    ("", "seat", 0.0, 0.0),
])
def test_coverage(index: KeywordIndex, query: str, doc_id: str, low: float, high: float) -> None:
    docs = {d.id: d for d in MEMORIES}
    value = index.coverage(query, {doc_id: docs[doc_id]})[doc_id]
    assert low <= value <= high


def test_coverage_weighs_rare_terms_more(index: KeywordIndex) -> None:
    docs = {d.id: d for d in MEMORIES}
    # "booked" is held by one memory, "travel" (a tag) by two: matching the rarer covers more
    assert index.coverage("booked travel", {"hotel": docs["hotel"]})["hotel"] == 1.0
    assert index.coverage("booked travel", {"seat": docs["seat"]})["seat"] < 0.5


def test_coverage_of_a_task_phrased_query_counts_its_topic(tmp_path: Path) -> None:
    from memctl.search.keyword import KeywordDoc, KeywordIndex

    index = KeywordIndex(tmp_path / "kw")
    docs = {"camry": KeywordDoc(id="camry", body="My car is a 2019 Toyota Camry"),
            "tesla": KeywordDoc(id="tesla", body="My second car is a Tesla Model 3 that my partner drives"),
            "trip": KeywordDoc(id="trip", body="Trip to Tokyo in March")}
    index.rebuild(docs.values())
    # "schedule" and "maintenance" are held by no memory but are common words: the task, not the topic
    assert index.coverage("schedule maintenance for my car", docs) == {"camry": 1.0, "tesla": 1.0, "trip": 0.0}
    # a name no memory holds still counts against a memory matching the rest
    assert index.coverage("car rental in Kyoto", docs)["camry"] < 0.3


def test_a_restricted_search_scores_exactly_as_the_whole_one_filtered(index: KeywordIndex) -> None:
    """Only the allowed memories' postings are scored: the same scores as scoring all of them and
    keeping the allowed ones, and the same after an update changes the document numbers."""
    allowed = {"order", "err", "coffee", "seat"}
    for query in ("create order error 42", "coffee flights", "window seats travel"):
        whole = index.search(query, limit=50)
        assert index.search(query, limit=50, allowed=allowed) == [hit for hit in whole if hit[0] in allowed]
    index.update([KeywordDoc(id="seat", body="Alice prefers aisle seats on long flights.")], ["coffee"])
    whole = index.search("aisle flights coffee", limit=50)
    assert index.search("aisle flights coffee", limit=50, allowed=allowed) == [h for h in whole if h[0] in allowed]
    assert index.search("coffee", allowed={"coffee"}) == []


def test_a_documents_terms_are_what_coverage_reads(index: KeywordIndex) -> None:
    doc = MEMORIES[0]
    assert index.coverage("window seats", {"seat": doc}) == index.coverage("window seats", {"seat": keyword.doc_terms(doc)})
    assert {"window", "seat", "travel"} <= keyword.doc_terms(doc)
