"""The pair model of the write decision (policy/pairs.py): frames, features, the fitted reading."""

from __future__ import annotations

import math
import time

import pytest

from memctl.policy.decide import Candidate, Neighbor, decide
from memctl.policy.decision_fit import FIT, MODEL
from memctl.policy.pairs import (
    CHANGE_FLOOR,
    DUPLICATE_FLOOR,
    LABELS,
    fitted_for,
    frame,
    may_be_one_slot,
    pair_features,
    probabilities,
    reading,
    reads_multilingual,
)


@pytest.mark.parametrize("text, owner, expected", [
    ("Max's license plate is 7XYZ123", "max", "my license plate is X"),
    ("Dentist appointment on 3 May at 9am", None, "Dentist appointment on X at X"),
    ("Order #4417 costs $120 on the 3rd", None, "X costs X on the X"),
    ("我的车位是B1-032", None, "我的车位是X"),
])
def test_a_frame_masks_the_values_and_reads_the_owner_as_i(text: str, owner: str | None, expected: str) -> None:
    assert frame(text, owner) == expected


def test_the_probabilities_are_a_distribution_over_the_labels() -> None:
    prob = probabilities(pair_features("Jun rides a red Trek", "I ride a blue Giant now", "jun",
                                       {"cos": 0.6, "frame": 0.8}))
    assert prob is not None and set(prob) == set(LABELS)
    assert math.isclose(sum(prob.values()), 1.0)


def test_a_fit_that_needs_a_feature_not_given_reads_nothing() -> None:
    fit = dict.fromkeys(LABELS, (("not_a_feature",), (1.0, 0.0)))
    assert probabilities(pair_features("a", "b", None, {}), fit) is None


def test_the_fit_names_the_shipped_model_and_only_it() -> None:
    assert fitted_for(MODEL) and not fitted_for("hashing")
    assert set(FIT) == set(LABELS)


def test_values_that_differ_are_never_read_as_one_fact() -> None:
    # the texts read alike (0.97), their frames are the same: the invoices are still two
    assert reading("Invoice INV-2024-001 was paid", "Invoice INV-2024-002 was paid", None, 0.97, 1.0) is None


def test_another_person_is_never_read_as_a_change() -> None:
    assert reading("My sister lives in Lyon", "My brother moved to Lyon", None, 0.9, 0.9) != "change"


def test_the_floors_are_probabilities() -> None:
    assert 0.5 <= DUPLICATE_FLOOR < 1 and 0.5 <= CHANGE_FLOOR < 1


def _decided(frame_cosine: float | None, old: str, new: str, cosine: float) -> tuple[str, list[str]]:
    neighbor = Neighbor(id="m1", text=old, type="fact", cosine=cosine, frame_cosine=frame_cosine)
    decision = decide(Candidate(text=new, type="fact", owner="jun"), [neighbor])
    return decision.action, decision.conflicts_with


def test_a_repeat_in_other_words_is_a_noop_only_when_the_frames_were_compared() -> None:
    old, new = "Jun works at Acme in Lyon", "I am employed by Acme in Lyon"
    prob = probabilities(pair_features(old, new, "jun", {"cos": 0.7, "frame": 0.8}))
    assert prob is not None and prob["duplicate"] >= DUPLICATE_FLOOR
    assert _decided(0.8, old, new, 0.7) == ("noop", [])
    assert _decided(None, old, new, 0.7) == ("add", [])  # the rules alone cannot prove it


@pytest.mark.parametrize("old, new", [
    ("Omar keeps bees on his roof", "Omar 的生日是十月九号"),  # two languages, no attribute in common
    ("Omar 的生日是十月九号", "Omar 搬到了里斯本"),  # a birthday / where he lives
    ("Omar's birthday is 9 October", "Omar moved to Porto in spring"),
])
def test_two_facts_of_one_person_about_other_attributes_are_never_read_as_a_change(old: str, new: str) -> None:
    assert not may_be_one_slot(old, new, None)
    for cosine in (0.5, 0.7, 0.9):
        assert reading(old, new, None, cosine, cosine, {"ml_cos": 0.9, "ml_frame": 0.9, "ml_attr": 0.9,
                                                        "ml_value": 0.9}) is None


@pytest.mark.parametrize("old, new", [
    ("Omar lives in Porto", "Omar 搬到了里斯本"),  # one attribute named in both languages
    ("我们的周会在周三", "周会改到周四了"),  # a shared word, after the grammar words that open the text
    ("My bike is a Brompton", "I ride a Trek"),  # neither names a single-valued attribute
])
def test_two_statements_that_can_be_of_one_attribute_may_be_read(old: str, new: str) -> None:
    assert may_be_one_slot(old, new, None)


def test_a_repeat_the_model_may_merge_shares_something() -> None:
    from memctl.policy.pairs import shares_anything

    assert not shares_anything("I'm a pilot", "I coach a junior football team on Sundays")
    assert shares_anything("Lars lives alone", "I live by myself", "lars")  # a content word
    assert shares_anything("Parcel 5521 comes on 3 July", "Delivery of #5521 expected July 3")  # values
    assert shares_anything("我家住在南京鼓楼", "我们住鼓楼区")


@pytest.mark.parametrize("old, new, novel, lost", [
    ("My dentist is Dr. Okafor", "Dr. Okafor does my dental checkups", 0.0, 0.0),  # the value said again
    ("I keep my bike at the Harbor Street garage", "The garage on Harbor Street is where my bike lives", 0.0, 0.0),
    ("Our standup uses Zoom", "We moved the standup from Zoom to Teams", 0.5, 0.0),  # a value the old never says
    ("My gym is Crunch", "I signed up at Equinox", 1.0, 1.0),  # one value gone, another come
])
def test_the_values_each_side_says_the_other_never_says_are_read(old: str, new: str, novel: float, lost: float) -> None:
    values = pair_features(old, new, None, {}).values
    assert (values["new_values_novel"], values["old_values_lost"]) == (novel, lost)
    assert values["novel_both"] == float(novel > 0 and lost > 0)


def test_a_word_the_other_side_says_anywhere_is_no_novelty() -> None:
    same = pair_features("I play badminton on Thursdays", "Badminton is my Thursday thing", None, {}).values
    other = pair_features("I play badminton on Thursdays", "I swim laps before work", None, {}).values
    assert same["new_words_novel"] < other["new_words_novel"] and same["old_words_lost"] < other["old_words_lost"]


@pytest.mark.parametrize("old, new, expected", [
    ("他在杭州读大学", "他大学毕业了", 1.0),  # a clause-final 了: a new situation
    ("我的闹钟定在六点", "闹钟不用了，现在自然醒", 1.0),
    ("I carpool with Dana", "I don't carpool anymore", 1.0),
    ("Tomas rents a flat downtown", "Tomas no longer rents, he bought a house", 1.0),
    ("他在杭州读大学", "他在杭州读了两年大学", 0.0),  # 了 inside the clause is no new situation
    ("我家的猫丢了", "猫找到了", 0.0),  # both sides state a new situation: none is new to the pair
])
def test_a_new_situation_stated_by_grammar_is_read(old: str, new: str, expected: float) -> None:
    assert pair_features(old, new, None, {}).values["new_state"] == expected


@pytest.mark.parametrize("old, new, expected", [
    ("我用的是华为Mate 40", "换了个iPhone 15，华为给我妈用了", True),  # the mother is not whom it is about
    ("Grace's manager is Tom Becker.", "Tom left in June, so I report to Hana Sato now.", True),
    ("My sister lives in Lyon", "My brother moved to Lyon", False),  # two people
    ("Alice is a teacher", "Alice's mother is a retired teacher", False),
    ("Invoice INV-2024-001 is due", "Invoice INV-2024-002 is due", False),  # another identifier
])
def test_a_change_is_read_only_of_the_same_person_and_thing(old: str, new: str, expected: bool) -> None:
    from memctl.policy.pairs import same_people_and_things

    assert same_people_and_things(old, new) is expected


@pytest.mark.parametrize("old, new, expected", [
    ("My manager is Bob Chen.", "I report to Bob Chen.", True),  # the relation is the attribute, said in other words
    ("周婷的男朋友叫李伟。", "我对象是李伟。", True),
    ("My sister's phone is a Pixel 8", "My phone is a Pixel 8", False),  # whom it is about differs
    ("My sister lives in Lyon", "My brother lives in Lyon", False),  # two relations named
    ("My manager is Bob Chen.", "My manager is Bob Stone.", False),  # another name
])
def test_a_relation_only_one_side_names_as_the_attribute_is_no_other_person(old: str, new: str, expected: bool) -> None:
    from memctl.policy.pairs import _no_distinct

    assert _no_distinct(old, new, None) is expected


def test_the_second_fit_reads_statements_and_leaves_long_texts_to_the_shipped_fit() -> None:
    """Its cosines cost the multilingual model about 1 ms CPU a character of each of 8 texts a
    neighbour; it was fitted on statements."""
    statement = "I switched to a Pixel 8"
    assert reads_multilingual("my phone is an iPhone 13", statement)
    assert reads_multilingual("我的手机是华为Mate 60，去年十一月在京东买的" * 10, statement)
    long = "Notes from the incident review: the payment service deploy moved to Thursday. " * 6
    assert not reads_multilingual(long, statement) and not reads_multilingual(statement, long)


@pytest.mark.parametrize("old, new, one_slot", [
    # the stored value made the topic of what happened to it (the texts name other attributes, or one none)
    ("最近在读《围城》", "围城读完了，开始读《边城》", True),
    ("我们公司在望京SOHO 12层", "公司搬到西二旗了", True),
    ("我住在朝阳区", "生日是五月三号", False),  # the opening pair is nowhere in the stored text
])
def test_a_chinese_text_opening_with_the_stored_value_may_be_of_its_attribute(old: str, new: str, one_slot: bool) -> None:
    assert may_be_one_slot(old, new, None) is one_slot


@pytest.mark.parametrize("old, new, one_slot", [
    # the same numbers and dates, and no other, whatever attribute each text names or leaves unnamed
    ("The beta opens on the 9th of June.", "Beta goes live 6/9.", True),
    ("老宋通勤单程十五公里。", "老宋家离公司15km。", True),
    ("The beta opens on the 9th of June.", "Beta goes live 6/10.", False),
    ("老宋通勤单程十五公里。", "老宋家离公司15km，开车二十分钟。", False),  # a value said on one side only
    ("Omar's birthday is 9 October", "Omar moved to Porto in spring", False),
])
def test_two_texts_naming_the_same_values_may_be_of_one_attribute(old: str, new: str, one_slot: bool) -> None:
    assert may_be_one_slot(old, new, None) is one_slot


def test_masking_numbers_reads_a_long_run_of_letters_or_numerals_once() -> None:
    from memctl.policy.pairs import _NUMBERS

    assert _NUMBERS.sub("X", "5a$5, 5a5, ab12cd, 十号, 三十五岁, 一二三") == "XX, XX, X, X号, X岁, 一二三"
    for unit in ("a", "B", "一"):  # one stored memory of a 40,000-character run cost minutes before
        text = "x" + unit * 40_000 + " 5"
        start = time.perf_counter()
        assert frame(text).endswith("X")
        assert time.perf_counter() - start < 2.0
