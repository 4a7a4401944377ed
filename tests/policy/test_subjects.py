"""Whom two statements are about (policy/facts.py same_subject): a numbered label names no one."""

from __future__ import annotations

from memctl.policy.decide import announces_change_of
from memctl.policy.facts import same_subject, subjects
from memctl.policy.triple import read_triple


def test_a_numbered_label_both_texts_carry_is_no_subject_they_share() -> None:
    """"Note 12" / "Note 30" (or "In 2020") name no one: a move announced by one person is no change of
    another's statement because both are labelled alike; a name both say still is."""
    assert subjects("Note 12: Grace moved to Nairobi.") == {"Grace", "Nairobi"}
    assert not same_subject("Note 30: Ines lives in Lisbon.", "Note 12: Grace moved to Nairobi.")
    assert not announces_change_of("Note 30: Ines lives in Lisbon.", "Note 12: Grace moved to Nairobi.")
    assert announces_change_of("Note 30: Grace lives in Lisbon.", "Note 12: Grace moved to Nairobi.")
    assert not announces_change_of("In 2019 Ines lived in Lisbon.", "In 2021 Grace moved to Nairobi.")
    assert announces_change_of("In 2019 Grace lived in Lisbon.", "In 2021 Grace moved to Nairobi.")


def test_a_name_before_an_amount_is_still_whom_the_statement_is_about() -> None:
    """Only a label the number ends ("Room 4.") or that opens a sentence ("In 2020 ...") is one."""
    assert "Carla" in subjects("I lent Carla 200 dollars")
    assert same_subject("I lent Carla 200 dollars", "Carla paid me back")
    assert subjects("In 2020 Ines lived in Lisbon. The meeting is in Room 4.") == {"Ines", "Lisbon"}


def test_a_leading_numbered_label_is_stripped_before_reading_whom_a_statement_is_about() -> None:
    """"Note 1: Jonas lives in Porto." / "Note 2: Elena moved to Porto.": the label is no attribute
    both share, so the two people are read apart and no change is announced."""
    assert not announces_change_of("Note 1: Jonas lives in Porto.", "Note 2: Elena moved to Porto.")
    assert announces_change_of("Note 1: Elena lives in Porto.", "Note 2: Elena moved to Lisbon.")
    assert read_triple("Note 1: Jonas lives in Porto.").attribute == "Jonas lives in"
    assert read_triple("Offsite location: Nashville").attribute == "Offsite location"
