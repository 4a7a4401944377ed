"""Identifiers stay out of a prompt unless the request is about them."""

from __future__ import annotations

import pytest

from memctl.policy.identifiers import MASK, withhold_identifiers


@pytest.mark.parametrize("text, masked", [
    ("My passport number is X1234567 and it expires in 2027", "My passport number is {} and it expires in 2027"),
    ("Visa card 4111 1111 1111 1111 expires 03/28", "Visa card {} expires 03/28"),
    ("Gym membership at FitLife, member no. 88231945, renews every January",
     "Gym membership at FitLife, member no. {}, renews every January"),
    ("我的护照号码是E12345678", "我的护照号码是{}"),
    ("Rent goes to account DE89 3704 0044 0532 0130 00", "Rent goes to account {}"),
])
def test_an_identifier_is_withheld_from_a_request_about_something_else(text: str, masked: str) -> None:
    assert withhold_identifiers(text, "Suggest a name for my puppy") == masked.format(MASK)
    assert withhold_identifiers(text, "plan my trip to Lisbon") == masked.format(MASK)


@pytest.mark.parametrize("text", [
    "Return flight TP1234 on 2026-12-20 at 18:05", "My passport expires 2027-03-01",
    "I have a card from Chase, since 2019", "The dentist's phone is 555-0134",
])
def test_what_is_no_labelled_identifier_stays(text: str) -> None:
    assert withhold_identifiers(text, "Suggest a name for my puppy") == text


@pytest.mark.parametrize("query", ["What's my passport number?", "when does my passport expire",
                                   "which documents do I need for Japan", "我的护照号码是多少"])
def test_a_request_about_the_document_gets_its_number(query: str) -> None:
    text = "My passport number is X1234567 and it expires in 2027"
    assert withhold_identifiers(text, query) == text
    assert MASK in withhold_identifiers("Visa card 4111 1111 1111 1111", "What's my passport number?")
