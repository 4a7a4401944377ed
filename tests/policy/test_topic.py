"""What a query is about (memctl.policy.topic): its shape and the kinds it names."""

from __future__ import annotations

import time

import pytest

from memctl.core.text import text_language
from memctl.policy.topic import dialogue_lines, kind_words_in, kinds_in, lexicon, query_shape, without_frame

WORDS = lexicon({"vehicle": {"en": ["car", "vehicle"], "zh": ["汽车", "车辆"]},
                 "passport": {"en": ["passport", "id card"], "zh": ["护照"]}})


@pytest.mark.parametrize("query, shape", [
    ("where does Hank live", "question"),
    ("What are my options, my phone screen broke", "question"),
    ("Is the gym open on Sundays", "question"),
    ("孩子念几年级了？", "question"),
    ("你知道我住在哪里吗", "question"),
    ("Schedule maintenance for my car", "task"),
    ("Book a table for two on Friday", "task"),
    ("帮我订一家餐厅", "task"),
    ("User: my brother is visiting\nAssistant: nice!\nUser: what does he like to eat?", "dialogue"),
    ("用户：岳父下周过生日。\n助手：打算怎么庆祝？\n用户：他最爱喝什么酒？", "dialogue"),
    ("I was telling my colleague about the conference last week and she asked whether I would be going again "
     "next year, which reminded me that I never booked the hotel, and then we started talking about flights "
     "and whether the company pays for them", "dialogue"),
])
def test_query_shape(query: str, shape: str) -> None:
    assert query_shape(query) == shape


@pytest.mark.parametrize("query, rest", [
    ("Renew the permit for my kayak.", " the permit for my kayak."),  # a verb, then a determiner
    ("Please move my haircut to Friday", " my haircut to Friday"),
    ("Sign me up for the pottery class", " me up for the pottery class"),
    ("Clear off the morning I see the dentist", " off the morning I see the dentist"),
    ("Refill Omar's inhaler", "Refill Omar's inhaler"),  # a name follows: no frame read
    ("Passport renewal reminder", "Passport renewal reminder"),  # a noun opens it
    ("I need a plumber for the sink", "I need a plumber for the sink"),
    ("Where is my passport?", "Where is my passport?"),  # a question has no frame
    ("User: book a table\nAssistant: where?\nUser: the usual", "User: book a table\nAssistant: where?\nUser: the usual"),
])
def test_a_task_without_its_frame_is_its_object(query: str, rest: str) -> None:
    assert without_frame(query) == rest


@pytest.mark.parametrize("texts, kinds", [
    (["Schedule maintenance for my car"], {"vehicle"}),
    (["Both cars need new tyres"], {"vehicle"}),  # stems: cars -> car
    (["I lost my ID card"], {"passport"}),
    (["card id"], set()),  # a phrase's words in its order
    (["我的汽车该保养了"], {"vehicle"}),
    (["护照快过期了", "renew the car"], {"passport", "vehicle"}),
    (["carpet cleaning"], set()),  # a word, not a prefix
    ([""], set()),
])
def test_kinds_in(texts: list[str], kinds: set[str]) -> None:
    assert kinds_in(texts, WORDS) == kinds


def test_kind_words_in_says_which_words_named_each_kind() -> None:
    # as keyword search looks them up: a phrase's stems, a CJK word as written
    assert kind_words_in(["I lost my ID card", "我的汽车"], WORDS) == {"passport": ["id card"], "vehicle": ["汽车"]}
    assert kind_words_in(["Both cars need new tyres"], WORDS) == {"vehicle": ["car"]}


@pytest.mark.parametrize("text, language", [
    ("where does Hank live", "en"), ("Hank 搬到了上海", "zh"), ("我住在哪个城市？", "zh"),
    ("Hank lives in 上海 now, he says", "en"), ("", "en"), ("2026-03-01", "en"),
])
def test_text_language(text: str, language: str) -> None:
    assert text_language(text) == language


def test_dialogue_lines_are_the_last_lines_of_several() -> None:
    assert dialogue_lines("User: hi\n\n  Assistant: hello  \nUser: where?") == ["User: hi", "Assistant: hello", "User: where?"]
    assert dialogue_lines("Where does Hank live?") == []
    assert len(dialogue_lines("\n".join(f"line {n}" for n in range(20)))) == 8


@pytest.mark.parametrize("lines, shape", [
    (["Mara: where did I park", "Assistant: level 3"], "dialogue"),
    (["   : ok", "\t: ok"], "question"),  # a space may stand for the name, a tab may not (as before)
    (["x" * 31 + ": too long for a name", "Ben: hi"], "question"),
])
def test_a_speaker_is_a_short_name_before_a_colon(lines: list[str], shape: str) -> None:
    assert query_shape("\n".join(lines) + "?") == shape


def test_a_query_of_long_blank_runs_is_shaped_in_linear_time() -> None:
    query = "\n".join([" " * 6_000 + "x", " " * 6_000 + "y"])  # about 40 s before
    start = time.perf_counter()
    query_shape(query)
    assert time.perf_counter() - start < 2.0
