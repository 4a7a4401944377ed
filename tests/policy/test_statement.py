"""The structural reading of statements (policy/statement.py): subject, attribute, value. The sentences
are written for these tests."""

from __future__ import annotations

import pytest

from memctl.policy.statement import _capitalised, slot_relation
from tests.policy.linear import finishes


@pytest.mark.parametrize(("old", "new"), [
    # Chinese is read as overlapping character pairs: the pair straddling a word's first character
    # (晚游 in 周四晚上游泳课) is no qualifier of the word
    ("女儿每周四晚上上游泳课", "女儿的游泳课在周日上午"),
    ("网盘会员是自动续费，每月12元", "网盘自动续费每个月扣我15块"),
    # 每周三 ("every Wednesday") is a recurring schedule: its day is the slot's value
    ("团队每周一上午开周会", "团队周会在周三上午"),
])
def test_chinese_slot_with_another_value_is_a_change(old: str, new: str) -> None:
    assert slot_relation(old, new) == "change"


def test_chinese_qualifier_still_tells_two_slots_apart() -> None:
    assert slot_relation("我们家的买菜预算每月两千元", "我们家的外卖预算每月五百元") is None


def test_a_name_written_short_and_in_full_is_one_value() -> None:
    assert slot_relation("My insurer is State Farm Mutual", "State Farm is my insurer") == "same"
    # the new text naming more than the stored one is never "same" (a NOOP would drop what it adds)
    assert slot_relation("State Farm is my insurer", "My insurer is State Farm Mutual") is None
    assert slot_relation("My insurer is Geico", "My insurer is Allstate") == "change"


@pytest.mark.parametrize(("old", "new"), [
    ("My emergency contacts are Bob and Carol", "My emergency contact is Bob"),
    ("I live with Tom and Ana", "I live with Tom"),
    ("Our book club meets with Priya, Omar and Jun", "Our book club meets with Priya and Jun"),
    ("My emergency contact is Bob", "My emergency contacts are Bob and Carol"),
    ("My emergency contacts are Bob Smith and Carol Smith", "My emergency contact is Bob Smith"),
    ("My emergency contact is Bob Smith", "My emergency contacts are Bob Smith and Carol Smith"),
    ("The twins are Lily Chen and Rose Chen", "The twin is Lily Chen"),
    ("We bank with Alliant Credit Union and Chase Credit Union", "We bank with Alliant Credit Union"),
])
def test_a_list_that_loses_or_gains_a_member_is_a_change(old: str, new: str) -> None:
    # each name is its own value: "Bob and Carol" / "Bob" is no name written short
    assert slot_relation(old, new) == "change"


def test_a_person_named_short_and_in_full_is_one_value() -> None:
    assert slot_relation("My emergency contact is Bob Smith", "My emergency contact is Bob") == "same"
    assert slot_relation("My emergency contacts are Bob Smith and Carol", "My emergency contacts are Bob and Carol") \
        == "same"
    assert slot_relation("My emergency contacts are Bob Smith and Carol", "My emergency contact is Bob") == "change"
    assert slot_relation("My emergency contacts are Bob Smith and Carol Smith",
                         "My emergency contacts are Bob and Carol") == "same"
    assert slot_relation("My bank is Alliant Credit Union", "My bank is Alliant") == "same"


def test_an_email_address_is_the_value_of_its_slot() -> None:
    # the owner's name inside an address is part of the address, not the first person
    assert slot_relation("Tomas's personal email is tomas@fastmail.fm", "My personal email is t.novak@proton.me",
                         "tomas") == "change"
    assert slot_relation("我的工作邮箱是lei.chen@example.cn", "我现在的工作邮箱是chenlei@corp.example.com") == "change"
    assert slot_relation("Tomas's personal email is tomas@fastmail.fm", "My personal email is tomas@fastmail.fm",
                         "tomas") == "same"


def test_a_time_of_day_is_a_value_not_a_qualifier() -> None:
    assert slot_relation("My spin class is Thursdays at 7pm", "Spin: Saturdays, 8pm") == "change"


def test_a_name_given_to_a_new_thing_replaces_no_value() -> None:
    assert slot_relation("Tariq is allergic to dogs", "Tariq has a dog named Pepper", "tariq") is None
    assert slot_relation("My dog is Pepper", "My dog is called Biscuit") == "change"  # both name it


@pytest.mark.parametrize(("old", "new"), [
    ("My car is a Toyota Corolla.", "My car is silver."),
    ("Ruby's cat Luna is 4 years old.", "Ruby's cat Luna is strictly indoors."),
    ("彭博家的猫咪咪四岁了", "彭博家的猫咪咪已经绝育了"),
    ("Mei's Spotify plan costs $16.99/month.", "Mei's Spotify plan renews on the 14th of each month."),
])
def test_a_value_on_one_side_only_is_another_attribute(old: str, new: str) -> None:
    assert slot_relation(old, new) is None


@pytest.mark.parametrize(("old", "new"), [
    ("My phone is an iPhone 13", "My phone is a Pixel 8"),
    ("The gym costs $30 a month", "The gym costs $35 a month"),
    ("Yoga class is at 7pm", "Yoga class is at 8pm"),
    ("We're planning a trip to Iceland in August", "We cancelled the Iceland trip"),
])
def test_a_value_replaced_by_one_of_its_kind_or_a_change_announced_is_a_change(old: str, new: str) -> None:
    assert slot_relation(old, new) == "change"


def test_a_sister_and_her_husband_are_two_people() -> None:
    from memctl.policy.facts import relations

    assert relations("我姐的手机号是138 0000 1111") != relations("我姐夫的手机号是138 0000 2222")
    assert slot_relation("我姐的手机号是138 0000 1111", "我姐夫的手机号是138 0000 2222") is None


@pytest.mark.parametrize(("old", "new", "owner"), [
    ("Priya's boss is Omar", "Priya reports to Helen now", "priya"),
    ("My supervisor is Dana Wu.", "Since the merger I'm reporting directly to Luis Ortega.", None),
    ("My wife is Carla", "I'm married to Beatriz", None),
])
def test_a_verb_that_says_who_holds_a_relation_names_it_as_the_attribute(old: str, new: str, owner: str | None) -> None:
    from memctl.policy.statement import attribute_words, swaps_a_value

    assert attribute_words(old, owner) & attribute_words(new, owner)
    assert swaps_a_value(old, new, owner)  # another person holds it: a possible change


def test_a_relation_verb_with_another_relation_shares_no_attribute() -> None:
    from memctl.policy.statement import attribute_words, swaps_a_value

    assert not attribute_words("My landlord is Greg") & attribute_words("I report to Nadia")
    assert not swaps_a_value("My landlord is Greg", "I report to Nadia")


def test_a_possessive_is_no_stated_day() -> None:
    # "Tom's project" is no "is": two days of one project, each of its own event, are two facts
    old, new = "Tom's project Atlas has a code freeze on 3/10.", "Tom's project Atlas has its beta launch on 4/02."
    assert slot_relation(old, new) is None
    assert slot_relation("Tom's kickoff is on 2 February.", "Tom's kickoff is on 9 February.") == "change"


def test_a_long_hyphenated_run_is_read_in_linear_time() -> None:
    """The capitalised words were searched from every word start of a run of letters and hyphens, each
    reading the rest of the run for a capital: 16,000 characters of 'a-' took 26 s."""
    assert finishes(
        "from memctl.policy import statement\n"
        "for text in ('a-' * 60000, 'a-' * 60000 + 'B', '-' * 100000 + 'Zed', 'x' * 100000):\n"
        "    statement._capitalised(text)\n"
        "assert statement._capitalised('a-' * 60000 + 'B', opening=True) == {'a-' * 60000 + 'B'}\n")


def test_capitalised_words_are_the_runs_with_a_capital() -> None:
    text = "She moved from 1Password to LastPass. Then --Vault and x-Ray, not plain-words"
    assert _capitalised(text) == {"1Password", "LastPass", "Vault", "x-Ray"}
    assert _capitalised(text, opening=True) == {"She", "1Password", "LastPass", "Then", "Vault", "x-Ray"}
