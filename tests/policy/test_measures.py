"""What a number measures (policy/measures.py), and two measures of other kinds read as two
attributes of one thing, never as a new value of one (statement.measures_another_attribute)."""

from __future__ import annotations

import time

import pytest

from memctl.policy import pairs
from memctl.policy.decide import Candidate, Neighbor, decide
from memctl.policy.distinct import canonical_values
from memctl.policy.measures import number_kinds
from memctl.policy.statement import measures_another_attribute, swaps_a_value


@pytest.mark.parametrize("text, kinds", [
    ("Nell's bike is a 2021 Cannondale Synapse", {"2021": "year"}),
    ("The Synapse has about 8,000 miles on it", {"8000": "distance"}),
    ("Theo's puppy weighs 6 kg and is 2 years old", {"6": "weight", "2": "age"}),
    ("a 3-year-old collie", {"3": "age"}),
    ("Gran takes 5 mg of Amlodipine", {"5": "dose"}),
    ("The ride takes 40 minutes", {"40": "duration"}),
    ("My old phone was an iPhone 11", {"11": "model"}),
    ("In 2019 I moved", {"2019": "year"}),
    ("Spin class is at 6pm and costs $22", {"18:00": "clock", "$22": "money"}),
    ("我体重70公斤", {"70": "weight"}),
    ("雅阁开了80000公里", {"80000": "distance"}),
    ("我的车是2017年的雅阁", {"2017": "year"}),
    ("他今年8岁", {"8": "age"}),
    ("信用卡账单日是每月8号", {"8": "day"}),
    ("车位在B2层218号", {"2": "floor", "218": "count"}),  # past 31: a numbered thing, no day
    ("She scored 14 goals", {"14": "count"}),
])
def test_a_number_is_read_with_what_it_measures(text: str, kinds: dict[str, str]) -> None:
    assert number_kinds(text) == kinds


@pytest.mark.parametrize("old, new", [
    ("Priya's spin class is Thursday at 6pm", "Priya's spin class costs $22 a ride"),
    ("Omar's van is a 2016 Ford Transit", "Omar's Transit has 120,000 km on the clock now"),
    ("My commute is 12 miles each way", "My commute takes about 40 minutes"),
    ("周老师的钢琴课在周六上午10点", "周老师的钢琴课一节200块"),
])
def test_two_measures_of_other_kinds_are_two_attributes(old: str, new: str) -> None:
    assert measures_another_attribute(old, new)


@pytest.mark.parametrize("old, new", [
    ("I weigh 82 kg", "Down to 77 kilos after a summer of cycling"),
    ("我体重70公斤", "最近减到65了"),  # a count said without its unit may be the same measure
    ("My rent is $1,500 a month", "The landlord raised it, I now pay 1,650 a month"),
    ("Dad takes 5 mg of Ramipril", "His doctor moved him to 10 mg"),
    ("Zara's car is a 2015 Polo", "Zara sold the Polo last week"),  # a date says when, not another measure
])
def test_the_same_measure_or_a_bare_count_may_be_a_new_value(old: str, new: str) -> None:
    assert not measures_another_attribute(old, new)


@pytest.mark.parametrize("old, new", [
    ("My car is a 2018 Mazda 3", "The car has 64,000 miles on it"),
    ("Omar's van is a 2016 Ford Transit", "Omar's Transit has 120,000 km on the clock now"),
    ("Mei's dog is 4 years old", "Mei's dog weighs 12 kg"),
    ("My commute is 12 miles each way", "My commute takes about 40 minutes"),
])
def test_a_model_year_a_mileage_an_age_a_weight_are_never_linked(old: str, new: str) -> None:
    decision = decide(Candidate(text=new, type="fact"), [Neighbor(id="m1", text=old, type="fact", cosine=0.6)])
    assert decision.action == "add" and "m1" not in decision.conflicts_with


def test_a_model_year_is_no_value_swapped_for_a_mileage() -> None:
    assert not swaps_a_value("Nell's bike is a silver 2021 Cannondale Synapse.",
                             "Nell's Synapse has about 8,000 miles on it.")


def test_the_pair_model_never_reads_two_measures_of_other_kinds_as_a_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the fitted model says, the class's time and its price are two attributes."""
    monkeypatch.setattr(pairs, "probabilities", lambda features: {"change": 0.95, "distinct": 0.03, "duplicate": 0.02})
    assert pairs.reading("Priya's spin class is Thursday at 6pm", "Priya's spin class costs $22 a ride", None, 0.7, 0.8) is None
    assert pairs.reading("Priya's spin class is Thursday at 6pm", "Priya's spin class moved to Friday at 7pm", None, 0.7, 0.8) == "change"


@pytest.mark.parametrize("old, new, linked", [
    ("我的房租每月1号交", "我的房租每月3000", False),  # the day it is due and the amount: two attributes
    ("我的信用卡账单日是每月5号", "我的信用卡账单日改到每月20号了", True),
    ("小周的车位在B1层306号", "小周的车位换到了B2的117", True),
])
def test_a_day_of_the_month_is_compared_with_days_only(old: str, new: str, linked: bool) -> None:
    decision = decide(Candidate(text=new, type="fact"), [Neighbor(id="m1", text=old, type="fact", cosine=0.75)])
    assert ("m1" in decision.conflicts_with) is linked


@pytest.mark.parametrize("old, new", [
    ("Kofi's climbing session is on Wednesdays", "Kofi's climbing session costs $25 a visit"),
    ("Sana goes to the swim club every Sunday", "The swim club charges Sana $60 a month"),
    ("阿明的吉他课每周二", "阿明的吉他课一节150块"),
])
def test_a_day_said_as_a_habit_is_a_schedule_apart_from_a_price(old: str, new: str) -> None:
    assert measures_another_attribute(old, new)


def test_the_pair_model_never_reads_a_schedule_and_a_price_as_a_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the fitted model says, the weekday a class meets on and its price are two attributes;
    the weekday moved, or a price said on the day it changed, may still be a change."""
    monkeypatch.setattr(pairs, "probabilities", lambda features: {"change": 0.95, "distinct": 0.03, "duplicate": 0.02})
    old = "Kofi's climbing session is on Wednesdays"
    assert pairs.reading(old, "Kofi's climbing session costs $25 a visit", None, 0.7, 0.8) is None
    assert pairs.reading(old, "Kofi's climbing session moved to Fridays", None, 0.7, 0.8) == "change"
    assert pairs.reading("The gym costs $40 a month", "Since Monday the gym costs $55 a month", None, 0.7, 0.8) == "change"


@pytest.mark.parametrize("old, new", [
    ("Zara sold her Polo last Tuesday", "Zara's Polo was a 2015 model"),  # one day something happened
    ("The gym costs $40 a month", "Since Monday the gym costs $55 a month"),
])
def test_a_day_something_happened_is_no_schedule(old: str, new: str) -> None:
    assert not measures_another_attribute(old, new)


@pytest.mark.parametrize("unit", ["7", "a1b ", "Mazda 3 ", "5 dollars ", "5.5 percent "])
def test_a_long_hostile_text_is_read_in_time(unit):
    # A planted memory file may hold 256 KB, and the write decision reads its neighbours' values: a
    # run of digits was matched for an amount or a share from each digit in turn, and each number's
    # name looked for over the whole text before it (minutes for 40 KB of digits).
    text = unit * (40_000 // len(unit))
    began = time.perf_counter()
    canonical_values(text)
    number_kinds.__wrapped__(text)
    assert time.perf_counter() - began < 10


@pytest.mark.parametrize("text", ["5" + " " * 40_000 + "1", "下午" + " " * 40_000 + "3点", "ana" + " " * 40_000 + "(at)"])
def test_a_long_run_of_spaces_is_read_in_time(text: str) -> None:
    # The unit after a number, a Chinese clock time and an address's hidden "(at)" were each tried
    # from every space of a run, and each try scanned the rest of the run (a minute for 40 KB).
    began = time.perf_counter()
    canonical_values(text)
    number_kinds.__wrapped__(text)
    assert time.perf_counter() - began < 10
    assert canonical_values("下午 3点") == canonical_values("下午3点")


def test_a_number_of_hours_is_read_from_its_first_digit() -> None:
    # Tried from each digit, 40 KB of digits took minutes, and "每12小时" (every 12 hours, a rate) was
    # read from its second digit as a duration: "每1" and 120 minutes.
    assert canonical_values("每12小时吃一次") == "每12小时吃1次"
    assert canonical_values("开会12小时") == "开会720分钟"
