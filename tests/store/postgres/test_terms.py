"""Keyword terms for PostgreSQL (pure): the tsvector of a memory, the query's lexemes, the weights."""

from __future__ import annotations

import math
from datetime import datetime, timezone

from whoosh.util.numeric import byte_to_length, length_to_byte

from memctl.core.models import Memory
from memctl.core.text import search_terms
from memctl.search.native import keyword_spec
from memctl.store.postgres.terms import KeywordSpec, coverage, document, norm, query_terms, quote, weights

T = datetime(2026, 3, 14, tzinfo=timezone.utc)
SPEC = keyword_spec()


def memory(body: str, **fields) -> Memory:
    return Memory(id="ab12cd34", type="fact", user="alice", created=T, updated=T, body=body, **fields)


def test_every_field_has_its_own_code_and_the_codes_are_stable() -> None:
    assert SPEC.codes == {"body": "b", "tags": "t", "key": "k", "name": "n", "description": "d", "entities": "e",
                          "when": "w"}
    clash = KeywordSpec(fields=lambda m: {}, boosts={"body": 1.0, "bio": 1.0, "b2": 1.0}, version="x")
    assert len(set(clash.codes.values())) == 3


def test_a_document_holds_each_field_term_with_its_frequency() -> None:
    doc = document(memory("Bob fixes createOrder; createOrder times out", tags=["orders"], key="svc.orders"), SPEC)
    assert doc.tf["b:createord"] == 2 and doc.tf["b:creat"] == 2 and doc.tf["b:order"] == 2
    assert doc.tf["t:order"] == 1 and doc.tf["k:svc.orders"] == 1 and doc.tf["k:svc"] == 1
    assert doc.tf["w:march"] == 1 and doc.tf["w:2026"] == 1
    body_terms = search_terms("Bob fixes createOrder; createOrder times out", "index")
    assert doc.lengths[0] == len(body_terms)  # the body's length counts every indexed term, as whoosh does
    assert "'b:createord':1,2" in doc.tsvector()


def test_cjk_is_indexed_as_characters_and_bigrams() -> None:
    doc = document(memory("魏喜欢喝绿茶"), SPEC)
    assert {"b:绿茶", "b:绿", "b:茶", "b:喜欢"} <= set(doc.tf)
    assert query_terms("绿茶", SPEC).lexemes[0] == "b:绿茶"  # a query uses bigrams only


def test_quotes_and_backslashes_survive_in_lexemes() -> None:
    assert quote("o'brien\\x") == "'o''brien\\\\x'"


def test_a_query_is_its_distinct_terms_in_every_field() -> None:
    q = query_terms("flights flight FLIGHTS to Lisbon", SPEC)
    assert q.total == 2 and len(q.lexemes) == 2 * len(SPEC.boosts)
    assert q.lexemes[:2] == ["b:flight", "t:flight"] and q.groups[:7] == [0] * 7 and q.fields[:3] == [1, 2, 3]
    assert query_terms("the and of", SPEC).lexemes == []  # only stop words: nothing to look up


def test_lengths_are_normalised_as_whoosh_stores_them() -> None:
    assert [norm(n) for n in range(11)] == list(range(11))
    assert all(norm(n) == byte_to_length(length_to_byte(n)) for n in range(1, 5000))


def test_weights_are_the_boost_times_the_probabilistic_idf() -> None:
    q = query_terms("cello", SPEC)
    weight, average = weights(q, SPEC, docs=100.0, lengths=[800.0] + [0.0] * 6, df={"b:cello": 4})
    assert math.isclose(weight[0], 1.0 * math.log(1 + (100 - 4 + 0.5) / 4.5))
    assert math.isclose(weight[1], 1.5 * math.log(1 + 100.5 / 0.5))  # tags boost; no memory has it there
    assert average[0] == 8.0 and average[1] == 1.0  # an empty field's average is 1, as whoosh takes it


def test_coverage_weighs_each_query_term_by_its_rarest_field_idf() -> None:
    plain = KeywordSpec(fields=SPEC.fields, boosts=SPEC.boosts, version="x")  # every term specific
    q = query_terms("cello Lisbon", plain)
    idf = {n: math.log(1 + (100 - n + 0.5) / (n + 0.5)) for n in (2, 40)}
    held = {"both": ["b:cello", "t:lisbon"], "cello": ["b:cello"], "none": ["b:violin"]}
    found = coverage(q, plain, {"b:cello": 40, "t:cello": 2, "b:lisbon": 2}, 100.0, held)
    # cello's weight comes from its largest document frequency in any field (40), Lisbon's from 2
    assert math.isclose(found["cello"], idf[40] / (idf[40] + idf[2]))
    assert found["both"] == 1.0 and found["none"] == 0.0
    assert coverage(query_terms("", plain), plain, {}, 100.0, {"x": ["b:cello"]}) == {"x": 0.0}


def test_coverage_weighs_common_vocabulary_less_than_names_and_absent_common_words_not_at_all() -> None:
    spec = KeywordSpec(fields=SPEC.fields, boosts=SPEC.boosts, version="x", specific=lambda q: {"lisbon", "kyoto"},
                       present_common=0.25, absent_common=0.0)
    q = query_terms("schedule cello Lisbon Kyoto", spec)  # schedule: common, no memory holds it
    idf = {n: math.log(1 + (100 - n + 0.5) / (n + 0.5)) for n in (0, 2, 40)}
    held = {"cello": ["b:cello"], "lisbon": ["b:lisbon"], "schedule": ["b:schedul"]}
    found = coverage(q, spec, {"b:cello": 40, "b:lisbon": 2}, 100.0, held)
    total = 0.25 * idf[40] + idf[2] + idf[0]  # cello a quarter, Lisbon and the unheard-of Kyoto in full
    assert math.isclose(found["cello"], 0.25 * idf[40] / total) and math.isclose(found["lisbon"], idf[2] / total)
    assert found["schedule"] == 0.0
    assert coverage(query_terms("schedule", spec), spec, {}, 100.0, {"x": ["b:schedul"]}) == {"x": 0.0}


def test_the_shipped_spec_takes_the_file_index_coverage_weights() -> None:
    from memctl.search.keyword import ABSENT_COMMON_WEIGHT, PRESENT_COMMON_WEIGHT

    assert (SPEC.present_common, SPEC.absent_common) == (PRESENT_COMMON_WEIGHT, ABSENT_COMMON_WEIGHT)
    q = query_terms("schedule maintenance for my car in Kyoto", SPEC)
    assert q.specific == {"kyoto"} and q.terms == ["schedul", "mainten", "car", "kyoto"]
