"""Where constraints bite: the domains of a request and of a constraint, from the shipped words."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memctl.core.models import Memory
from memctl.policy.constraints import constraint_domains, read_domains, request_domains, riding_along
from memctl.store.domains import shipped_tables

DOMAINS = read_domains(shipped_tables())
WHEN = datetime(2026, 11, 30, tzinfo=timezone.utc)


def memory(body: str, type: str = "fact", kind: str | None = None) -> Memory:
    return Memory(id="3f9a1c2e", type=type, scope="user", user="dana", created=WHEN, updated=WHEN, body=body, kind=kind)


@pytest.mark.parametrize("request_, domain", [
    ("Recommend a Thai restaurant", "food"), ("What should I cook for dinner?", "food"),
    ("推荐一家附近的火锅店", "food"), ("Book me a flight to Tokyo", "travel"), ("下个月去日本旅游", "travel"),
    ("I need a new prescription for my back pain", "medical"), ("I want to buy a new laptop", "spending"),
])
def test_a_request_is_in_its_domain(request_: str, domain: str) -> None:
    assert domain in request_domains(request_, DOMAINS)


def test_a_request_in_no_domain_brings_nothing() -> None:
    assert request_domains("Suggest a name for my puppy", DOMAINS) == frozenset()
    assert request_domains("Find a good time for a team meeting", DOMAINS) == frozenset()


@pytest.mark.parametrize("body, type, kind, domain", [
    ("I'm allergic to peanuts, badly", "fact", None, "food"),
    ("severe peanut allergy", "fact", None, "food"),
    ("Peanuts", "constraint", "allergy", "food"),  # typed: its kind says so
    ("我是素食者，不吃肉", "fact", None, "food"),
    ("I need a visa for any trip to China", "fact", None, "travel"),
    ("Dana uses a wheelchair, so places need step-free access", "fact", None, "travel"),
    ("我对青霉素过敏", "fact", None, "medical"),
    ("Our rule: nothing over $500 without asking Sam first", "constraint", None, "spending"),
    ("Dinners out stay under $40 a head", "constraint", None, "food"),  # a constraint saying a request word
])
def test_a_constraint_bites_in_its_domain(body: str, type: str, kind: str | None, domain: str) -> None:
    assert domain in constraint_domains(memory(body, type, kind), DOMAINS)
    assert riding_along(memory(body, type, kind), frozenset({domain}), DOMAINS) is not None


def test_a_plain_fact_is_no_constraint() -> None:
    for body in ("I prefer window seats on long flights", "Dinner with Sam was great", "My dentist is Dr. Lee"):
        assert constraint_domains(memory(body), DOMAINS) == frozenset(), body


def test_a_domain_table_that_does_not_read_is_left_out() -> None:
    domains = read_domains({"food": {"requests": {"en": ["dinner"]}, "constraints": {"en": ["vegan"]}},
                            "bad": {"requests": "dinner"}, "worse": {"kinds": "allergy"}, "odd": 3})
    assert set(domains.description) == {"food"}


@pytest.mark.parametrize("body", [
    "My husband Douglas is 70; he retired in 2019 and does most of the cooking these days",  # not "at most"
    "Pixel 8 on T-Mobile, bought Nov 2024; I added T-Mobile Protection for $18/mo",  # not "mobility"
    "British passport came in June. No more Schengen forms for short jobs",  # not "no more than"
])
def test_a_word_of_a_phrase_alone_makes_no_constraint(body: str) -> None:
    assert constraint_domains(memory(body), DOMAINS) == frozenset(), body


def test_every_word_of_a_phrase_counts() -> None:
    assert "spending" in constraint_domains(memory("Spend at most $50 on a gift"), DOMAINS)
    assert "travel" in constraint_domains(memory("I use a mobility scooter"), DOMAINS)
    assert "travel" in request_domains("Check us in for the Lisbon flight", DOMAINS)
    assert request_domains("Check the calendar for Tuesday", DOMAINS) == frozenset()


@pytest.mark.parametrize("request_", ["What's the gate code at Marcus's lake house?", "我在上海那套房子物业费一个月多少？"])
def test_a_question_about_ones_home_is_no_outing(request_: str) -> None:
    assert "outings" not in request_domains(request_, DOMAINS)
