"""Whose question it is (memctl.policy.parties): a question about another person or an animal is no
request of the user's, so only the constraints naming that party ride along with it."""

from __future__ import annotations

import pytest

from memctl.policy.parties import party_words, read, says_party, sentences


def parties(query: str, names: frozenset[str] = frozenset()) -> list[str | None]:
    return [s.party for s in read(query, names)]


@pytest.mark.parametrize("query, party", [
    ("What do rabbits eat in the wild?", None),  # a plural noun opens no known party word: the user's
    ("What does a rabbit eat in the wild?", "rabbit"),
    ("Is the dog due for his vaccine?", "dog"),
    ("So which clinic did she go to?", "she"),
    ("Did my brother book his flight home?", "brother"),
    ("What can Priya eat at the wedding?", "priya"),
    ("我家猫咪的疫苗打了没有？", "猫咪"),
    ("我妈能吃海鲜吗？", "妈"),
])
def test_a_question_about_another_party_names_it(query: str, party: str | None) -> None:
    assert parties(query, frozenset({"priya"})) == [party]


@pytest.mark.parametrize("query", [
    "Which hotel in Porto has a pool?",  # a thing: the user's trip
    "What can I eat at the Thai place?",
    "Is Priya eating with us tonight?",  # the user too
    "Book a table for Priya on Friday.",  # a request, not a question
    "Priya is coming for dinner.",  # a statement
    "Where should we take the dog for lunch?",
    "这家餐厅好吃吗？",
    "我可以吃海鲜吗？",
    "周五我们和小李去哪家餐厅吃饭？",
])
def test_the_user_s_own_questions_and_requests_name_no_party(query: str) -> None:
    assert parties(query, frozenset({"priya", "小李"})) == [None]


def test_a_dialogue_is_read_sentence_by_sentence_without_its_speakers() -> None:
    dialogue = "User: my aunt is in hospital.\nAssistant: Sorry to hear it.\nUser: thanks. which ward did she say?"
    assert sentences(dialogue)[0] == "my aunt is in hospital."
    assert parties(dialogue) == [None, None, None, "she"]
    assert "aunt" in party_words(dialogue)


def test_a_constraint_names_the_party_by_any_of_its_words() -> None:
    words = party_words("User: my aunt's visiting\nUser: what does she eat?", frozenset({"priya"}))
    assert says_party("My aunt is coeliac", words) and says_party("Priya's vegan", words)
    assert not says_party("I am severely allergic to peanuts", words)
    assert says_party("我妈有糖尿病", party_words("我妈能吃甜的吗？"))
