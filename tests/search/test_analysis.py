"""The memory analyzer: stemming, stop words, identifiers, CJK bigrams."""

import pickle

import pytest

from memctl.core.text import cjk_grams, word_terms
from memctl.search.analysis import analyze, memory_analyzer


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("booking", "booked"),
        ("flights", "flight"),
        ("prefers", "preferred"),
        ("running", "runs"),
        ("Café", "cafe"),
        ("ＡＢＣ１２３", "abc123"),  # full-width forms fold to ASCII
    ],
)
def test_word_forms_share_a_term(a: str, b: str) -> None:
    assert analyze(a) == analyze(b)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("createOrder", ["createord", "creat", "order"]),
        ("ERR_42", ["err_42", "err", "42"]),
        ("PAY-1234", ["pay-1234", "pay", "1234"]),
        ("HTTPServer", ["httpserver", "http", "server"]),
        ("config.yaml", ["config.yaml", "config", "yaml"]),
        ("v2.3.1", ["v2.3.1", "v2", "3", "1"]),
        ("__init__", ["init"]),
        ("42", ["42"]),
    ],
)
def test_identifiers_are_kept_whole_and_split(text: str, expected: list[str]) -> None:
    assert analyze(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the flight is at the gate", ["flight", "gate"]),
        ("does not like coffee", ["not", "like", "coffe"]),
        ("never no", ["never", "no"]),
        ("doesn't like tea", ["doesnt", "not", "like", "tea"]),
        ("Alice's cat", ["alic", "cat"]),
    ],
)
def test_stop_words_go_but_negations_stay(text: str, expected: list[str]) -> None:
    assert analyze(text) == expected


@pytest.mark.parametrize(
    ("run", "index", "expected"),
    [
        ("茶", True, ["茶"]),
        ("茶", False, ["茶"]),
        ("绿茶", False, ["绿茶"]),
        ("喝绿茶", False, ["喝绿", "绿茶"]),
        ("喝绿茶", True, ["喝", "绿", "茶", "喝绿", "绿茶"]),
    ],
)
def test_cjk_grams(run: str, index: bool, expected: list[str]) -> None:
    assert cjk_grams(run, index) == expected


def test_cjk_runs_split_from_latin_text() -> None:
    assert analyze("用户createOrder接口") == ["用户", "createord", "creat", "order", "接口"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("東京タワー", ["東京", "京タ", "タワ", "ワー"]),
        ("김치를 좋아해요", ["김치", "치를", "좋아", "아해", "해요"]),
    ],
)
def test_japanese_and_korean_bigrams(text: str, expected: list[str]) -> None:
    assert analyze(text) == expected


@pytest.mark.parametrize(
    "text", ["", "???", "AND OR", "* : ~ ^ ( ) [ ] { } \" '", "\u200b\u00a0\t\n"]
)
def test_punctuation_and_operators_produce_no_terms(text: str) -> None:
    assert analyze(text) == []


@pytest.mark.parametrize("word", ["don't", "O'Brien", "rock'n'roll", "'quoted'"])
def test_apostrophes_never_produce_empty_terms(word: str) -> None:
    assert all(analyze(word))


def test_word_terms_has_no_duplicates() -> None:
    assert word_terms("order") == ["order"]
    assert word_terms("Order_order") == ["order_order", "order"]


def test_analyzer_survives_pickling() -> None:
    # whoosh pickles the schema (and so the analyzer) into the index TOC.
    analyzer = pickle.loads(pickle.dumps(memory_analyzer()))
    assert [t.text for t in analyzer("Booking flights", mode="query")] == ["book", "flight"]
