"""One relation of two people said from either side is one fact (policy/converse.py)."""

from __future__ import annotations

import time

import pytest

from memctl.policy.converse import relation_of, same_relation
from memctl.policy.decide import Candidate, Neighbor, decide


@pytest.mark.parametrize(("old", "new"), [
    ("Lena reports to Omar.", "Omar is Lena's manager."),
    ("Omar is Lena's boss", "Lena works for Omar"),
    ("Lena's supervisor is Omar.", "Lena reports to Omar"),
    ("Hugo is married to Ines.", "Ines is Hugo's wife."),
    ("Ines is Hugo's wife", "Hugo is Ines's husband"),
    ("Nora is Felix's older sister.", "Felix is Nora's younger brother."),
    ("Paul is the father of Mina", "Mina is Paul's daughter"),
    ("I report to Omar.", "Omar is my manager."),
    ("阿强向刘总汇报工作。", "刘总是阿强的上司。"),
    ("阿强的上级是刘总", "阿强向刘总汇报"),
    ("晓雯是小峰的表姐", "小峰是晓雯的表弟"),
    ("老周是美玲的丈夫", "美玲是老周的妻子"),
    ("晓雯和阿凯在谈恋爱", "阿凯是晓雯的男朋友"),  # a relation that holds both ways
    ("晓雯和阿凯在谈恋爱", "晓雯跟阿凯是男女朋友"),
    ("Maya is dating Leo.", "Leo is Maya's boyfriend."),
    ("晓雯和阿凯是夫妻", "阿凯是晓雯的丈夫"),
    ("Rosa's son is named Milo.", "Milo is Rosa's son."),  # a relative's name said as a naming
    ("My wife is called Ines", "Ines is my wife."),
    ("Milo is Rosa's son", "Rosa's son's name is Milo"),
    ("秀兰的儿子叫小宝。", "小宝是秀兰的儿子。"),
    ("秀兰的女儿名叫甜甜", "甜甜是秀兰的闺女"),  # 闺女 is 女儿
    ("老周的媳妇叫美玲", "美玲是老周的妻子"),
])
def test_one_relation_said_from_the_other_side_is_the_same(old: str, new: str) -> None:
    assert same_relation(old, new)


@pytest.mark.parametrize(("old", "new"), [
    ("Lena reports to Omar.", "Lena is Omar's manager."),  # the other way round: a change, not a repeat
    ("Lena reports to Omar.", "Omar reports to Lena."),
    ("Nora is Felix's older sister.", "Felix is Nora's older brother."),
    ("Nora is Felix's older sister.", "Felix is Nora's brother."),  # "older" is said once only
    ("Lena reports to Omar.", "Lena reports to Omar since March."),  # more than the relation
    ("Lena reports to Omar.", "Omar is Tessa's manager."),  # another person
    ("晓雯是小峰的表姐", "小峰是晓雯的堂弟"),
    ("晓雯是小峰的表姐", "小峰是晓雯的表姐"),
    ("晓雯和阿凯在谈恋爱", "晓雯和阿凯是夫妻"),  # dating, then married: a change
    ("Maya is dating Leo.", "Maya is married to Leo."),
    ("Rosa's son is named Milo.", "Rosa's daughter is named Milo."),
    ("秀兰的女儿叫甜甜", "甜甜是秀兰的儿子"),  # a daughter in one, a son in the other
    ("秀兰的闺女叫甜甜", "秀兰的女儿叫甜甜，今年六岁"),  # more than the relation
])
def test_another_relation_or_more_than_it_is_not_the_same(old: str, new: str) -> None:
    assert not same_relation(old, new)


def test_a_text_that_says_more_than_a_relation_is_not_read() -> None:
    assert relation_of("Omar is Lena's manager and mentor") is None
    assert relation_of("Omar is Lena's manager") == ("manages", "omar", "lena")
    assert relation_of("Omar is Omar's manager") is None


def test_the_write_decision_merges_a_relation_said_from_the_other_side() -> None:
    old = Neighbor(id="m1", text="Lena reports to Omar.", type="fact", cosine=0.6)
    decision = decide(Candidate(text="Omar is Lena's manager.", type="fact"), [old])
    assert (decision.action, decision.target) == ("noop", "m1")
    assert decide(Candidate(text="Lena is Omar's manager.", type="fact"), [old]).action != "noop"


@pytest.mark.parametrize(("old", "new", "same"), [
    ("Tom is Ann's son.", "Tom is Ann's daughter.", False),  # a correction: one person a man, then a woman
    ("Ines is Hugo's wife", "Ines is Hugo's husband", False),
    ("美玲是老周的妻子", "美玲是老周的丈夫", False),
    ("Ines is Hugo's wife", "Hugo is Ines's husband", True),  # each names another person's sex
    ("Paul is the father of Mina", "Mina is Paul's daughter", True),
])
def test_one_person_a_woman_in_one_text_and_a_man_in_the_other_is_no_repeat(old: str, new: str, same: bool) -> None:
    assert same_relation(old, new) is same


def test_a_text_with_a_long_run_of_stops_is_read_in_time() -> None:
    # The stops a text ends with were cut by a pattern tried from every stop inside the text, each
    # try scanning to its end: a stored memory of 80 KB of ". " cost minutes in every decision.
    began = time.perf_counter()
    assert same_relation("Lena" + ". " * 40_000 + "x", "Omar is Lena's manager.") is False
    assert time.perf_counter() - began < 10
    assert same_relation("Lena reports to Omar. !", "Omar is Lena's manager。") is True
