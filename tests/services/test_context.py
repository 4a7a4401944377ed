"""The context service: what recall hands to the prompt block, and what it holds back."""

from __future__ import annotations

import pytest

from memctl.api import MemoryStore


def payments(store: MemoryStore) -> MemoryStore:
    for text in ("Bob's team deploys the payment service on Fridays",
                 "Payments are retried three times before an order is cancelled",
                 "The payment gateway returns ERR_42 when it times out",
                 "Refunds are processed by the finance team within five days"):
        store.add_raw(text, type="fact", project="shop")
    return store


def test_an_unrelated_query_injects_no_memory(store: MemoryStore) -> None:
    block = payments(store).context("Kyoto hotel")
    assert block["items"] == [] and block["held_back"] == 4
    assert "payment" not in block["text"].lower()


def test_a_related_query_injects_only_what_is_about_it(store: MemoryStore) -> None:
    block = payments(store).context("what does ERR_42 from the payment gateway mean")
    memories = {m.id: m.body for m in store.active()}
    injected = [memories[i] for i in block["items"]]
    assert injected[0].startswith("The payment gateway returns ERR_42")
    assert "Refunds are processed by the finance team within five days" not in injected
    assert block["held_back"] >= 1


def test_continue_with_that_error_brings_this_sessions_work(store: MemoryStore) -> None:
    """session_first: the query points at the current work, not at its words; nothing else moves."""
    payments(store)
    mine = store.add_raw("bug456: TypeError in parse_date when the input has a timezone offset", type="context",
                         user="dana", session="bug456")
    store.add_raw("Carl is fixing the login redirect loop", type="context", user="carl", session="bug456")
    block = store.context("continue with that error", user="dana", session="bug456")
    assert block["items"][:1] == [mine.id] and "parse_date" in block["text"]
    assert "login redirect" not in block["text"]
    assert "session_first" in block["rules"]


def test_a_restaurant_request_brings_the_allergy_and_says_why(store: MemoryStore) -> None:
    allergy = store.add_raw("severe peanut allergy", type="fact", user="dana")
    store.add_raw("I prefer window seats on long flights", type="preference", user="dana")
    hits = store.recall("Recommend a Thai restaurant", users=["dana"]).hits
    along = next(h for h in hits if h.id == allergy.id)
    assert along.constraint is not None and "food" in along.constraint
    block = store.context("Recommend a Thai restaurant", user="dana")
    assert "[user/fact constraint] severe peanut allergy" in block["text"]
    assert block["constraints"] == [{"id": allergy.id, "why": along.constraint}]
    assert store.context("Suggest a name for my puppy", user="dana")["constraints"] == []


def test_a_request_about_nothing_stored_holds_no_memory_and_no_profile_line(store: MemoryStore) -> None:
    for text in ("Dana works as a data engineer at Initech", "Dana prefers short replies"):
        store.add_raw(text, type="fact", user="dana")
    block = store.context("Kyoto hotel", user="dana")
    assert block["items"] == [] and block["profile_lines"] == 0
    assert "Initech" not in block["text"] and "short replies" not in block["text"]


def test_the_profile_holds_what_the_request_found_and_the_budget_goes_to_it_first(store: MemoryStore) -> None:
    job = store.add_raw("Dana works as a data engineer at Initech", type="fact", user="dana")
    store.add_raw("Dana prefers short replies", type="preference", user="dana")
    block = store.context("where does Dana work as a data engineer", user="dana")
    assert "Initech" in block["text"] and "short replies" not in block["text"]
    assert block["profile_lines"] == 1 and job.id not in block["items"]  # said once, in the profile


def test_a_passport_number_stays_out_of_a_request_that_is_not_about_it(store: MemoryStore) -> None:
    store.add_raw("Passport X1234567 expires on 2027-03-01; renew it before travel", type="fact", user="dana")
    about_travel = store.context("renew before travel", user="dana")["text"]
    assert "expires on 2027-03-01" in about_travel and "X1234567" not in about_travel
    assert "X1234567" in store.context("what is my passport number", user="dana")["text"]


@pytest.mark.parametrize("request_text", ["Recommend a Thai restaurant", "Can you find us a Thai restaurant for Friday?",
                                          "Where should we eat tonight?", "帮我订个泰国餐厅"])
def test_a_request_about_food_brings_the_allergy(store: MemoryStore, request_text: str) -> None:
    # the part of the deleted 9442314 test that still holds: a plan in the allergy's domain brings it
    allergy = store.add_raw("severe peanut allergy", type="fact", user="dana")
    store.add_raw("I prefer window seats on long flights", type="preference", user="dana")
    assert [c["id"] for c in store.context(request_text, user="dana")["constraints"]] == [allergy.id]


@pytest.mark.parametrize("query", ["When is my next appointment with the dentist?", "Which hotel did we reserve for the trip?",
                                   "我的眼科医生是哪位？", "我订的酒店在哪？"])
def test_a_lookup_nothing_answers_brings_no_constraint(store: MemoryStore, query: str) -> None:
    for text in ("severe peanut allergy", "I have asthma", "I use a wheelchair"):
        store.add_raw(text, type="fact", user="dana")
    assert store.context(query, user="dana")["constraints"] == [], query


@pytest.mark.parametrize("query", ["Book us a hotel for the trip", "Which hotel in Porto has a pool?", "帮我订一家酒店",
                                   "下个月去日本旅游，哪家酒店适合？"])
def test_a_plan_in_a_constraint_s_domain_still_brings_it(store: MemoryStore, query: str) -> None:
    chair = store.add_raw("I use a wheelchair", type="fact", user="dana")
    store.add_raw("severe peanut allergy", type="fact", user="dana")
    assert [c["id"] for c in store.context(query, user="dana")["constraints"]] == [chair.id], query


def test_a_lookup_about_the_constraint_itself_brings_it(store: MemoryStore) -> None:
    store.add_raw("I have asthma", type="fact", user="dana")
    store.add_raw("I use a wheelchair", type="fact", user="dana")
    assert "I have asthma" in store.context("Which doctor did I see about my asthma?", user="dana")["text"]
    assert "I have asthma" in store.context("我的哮喘医生叫什么？", user="dana")["text"]


@pytest.mark.parametrize("query", ["What does a goat eat?", "What do goats eat in spring?"])
def test_a_question_about_things_in_general_brings_no_constraint(store: MemoryStore, query: str) -> None:
    store.add_raw("severe peanut allergy", type="fact", user="dana")
    store.add_raw("I use a wheelchair", type="fact", user="dana")
    assert store.context(query, user="dana")["constraints"] == [], query
    ours = query.replace("a goat", "our goat").replace("goats", "our goats")  # the user's goat: a plan of theirs
    assert store.context(ours, user="dana")["constraints"] != [], ours
