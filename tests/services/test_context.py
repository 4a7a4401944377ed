"""The context service: what recall hands to the prompt block, and what it holds back."""

from __future__ import annotations

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
