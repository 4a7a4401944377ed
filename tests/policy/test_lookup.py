"""Lookups: a question that looks up something stored, told from a request that plans, chooses,
books or recommends, by its grammar, in English and Chinese."""

from __future__ import annotations

import pytest

from memctl.policy.lookup import is_general, is_lookup, last_sentence


@pytest.mark.parametrize("query", [
    "When is my next appointment with the dentist?", "What time did our flight to Lisbon leave?",
    "Is the dog due for his worming tablet this week?", "who is my eye doctor",
    "User: We might go to Scotland next year.\nAssistant: Have you booked anything?\nUser: I think so. Which hotel did we reserve?",
    "我的眼科医生是哪位？", "给我看病的那个中医大夫姓什么？", "我的Switch是什么时候买的？", "我家狗狗疫苗打了没有？",
    "User: 下周要去杭州见客户。\nAssistant: 交通住宿都订了吗？\nUser: 订了，我订的酒店在哪？",
    "叫上同事小吴，他上次推荐的那家户外店叫什么来着？",  # 推荐的: what he recommended, not a request
])
def test_a_question_about_a_stored_fact_is_a_lookup(query: str) -> None:
    assert is_lookup(query)


@pytest.mark.parametrize("query", [
    "Recommend a Thai restaurant", "Which hotel in Porto has a pool?", "Any good hotels in Porto for our trip?",
    "Which restaurant should we book for Friday?", "What can I eat at the Thai place?", "Where should we eat tonight?",
    "Book a nail trim for my ferret.", "What does a goat eat in spring?", "What does our dog eat?",
    "Do a fortnightly meal plan for the four of us.", "Make me a checklist of what to have on me on the wedding day.",
    "User: we are going out for Thai food tonight\nAssistant: Sounds fun!\nUser: which place did Ana say was the best?",
    "推荐一家泰国餐厅", "帮我订个泰国餐厅", "周五去哪家餐厅吃饭？", "这家餐厅好吃吗？", "哪家酒店适合带老人住？", "帮我安排下周的行程",
])
def test_a_request_that_plans_chooses_books_or_recommends_is_no_lookup(query: str) -> None:
    assert not is_lookup(query)


def test_the_last_sentence_is_read_without_its_speaker() -> None:
    assert last_sentence("User: 下个月要去云南出差。\nAssistant: 哪个城市？\nUser: 昆明。学校给我订的是哪家酒店？") == "学校给我订的是哪家酒店?"
    assert last_sentence("") == ""
    assert last_sentence("Thanks. What is Dr. Lee's number?") == "what is dr lee's number?"  # a title is no end
    assert last_sentence("Ok. Was the 2.5% rate ours?") == "was the 25% rate ours?"
    assert is_lookup("When is my appointment with Dr. Lee?") and not is_lookup("When is my appointment? Book Dr. Lee.")


@pytest.mark.parametrize("query", [
    "What does a goat eat?", "How many strings does a cello have?", "Is a peanut a legume?",
    "how does a dishwasher heat its water?", "Why do onions make eyes water?",
])
def test_a_question_about_things_in_general_is_general(query: str) -> None:
    assert is_general(query)


@pytest.mark.parametrize("query", [
    "What does our goat eat?", "What do I feed a goat?", "When is the dog due his worming tablet?",  # someone's own
    "Which hotel has a lift?", "What can a vegan eat at a barbecue?", "What's a good wine for a stew?",  # a choice
    "How many strings does Ana's cello have?", "What does a goat eat in Norway?",  # a name, a place
    "Book a table for a party of six.", "Recommend a goat cheese.", "Do a meal plan for a week.",  # no question
    "User: hi\nAssistant: hello, what's up?\nUser: what does a goat eat?", "山羊吃什么？",
])
def test_a_question_about_someone_or_something_in_particular_is_not(query: str) -> None:
    assert not is_general(query)
