"""`check` over the typed memories in force, on both backends: the shipped rules find what they
should, per owner, within what the actor may see, and a renewed fact clears its warning."""

from __future__ import annotations

import pytest

AT = "2026-01-20"


@pytest.fixture
def alice_travels(store):
    """Alice's passport expires three weeks after her planned trip abroad; a dozen untyped memories
    and another user's typed ones beside them."""
    passport = store.add_raw("My US passport expires on 2 April 2026", user="alice", kind="passport",
                             fields={"expires": "2026-04-02", "country": "US"})
    trip = store.add_raw("Trip to Tokyo in March 2026", user="alice", type="event", kind="trip", state="planned",
                         fields={"departs": "2026-03-10", "destination": "Tokyo", "country": "JP", "international": True})
    for i in range(12):
        store.add_raw(f"Alice noted item {i}: the shed needs {i + 2} new planks", user="alice")
    store.add_raw("Carl's passport is valid until 2034", user="carl", kind="passport",
                  fields={"expires": "2034-01-01", "country": "DE"})
    return passport, trip


def test_the_passport_before_the_trip_is_found(store, alice_travels) -> None:
    passport, trip = alice_travels
    report = store.check(at=AT)
    (finding,) = report.findings
    assert finding.rule == "passport_before_trip" and finding.severity == "warning" and finding.owner == "users/alice"
    assert set(finding.memories) == {passport.id, trip.id} and finding.days == 49 and str(finding.due) == "2026-03-10"
    assert report.rules >= 10 and report.problems == []
    assert store.check(at="2026-03-21").findings == []  # the trip is over


def test_findings_are_per_owner_and_within_what_the_actor_may_see(store, alice_travels) -> None:
    assert store.check(at=AT, user="carl").findings == []
    assert [f.owner for f in store.check(at=AT, user="alice").findings] == ["users/alice"]
    assert store.as_actor("carl").check(at=AT).findings == []  # Alice's memories are hers
    assert len(store.as_actor("alice").check(at=AT).findings) == 1


def test_a_renewed_passport_supersedes_the_old_one_and_the_warning_goes(store, alice_travels) -> None:
    passport, _ = alice_travels
    result = store.add("I renewed my US passport: it now expires on 1 May 2036", user="alice", kind="passport",
                       fields={"expires": "2036-05-01", "country": "US"})
    assert result.decision.action == "supersede" and result.memory.supersedes == passport.id
    assert store.check(at=AT).findings == []
    assert store.get(passport.id).status == "superseded"


def test_a_medication_against_an_allergy_of_the_same_class_is_critical(store) -> None:
    med = store.add_raw("Alice takes amoxicillin 500 mg", user="alice", kind="medication",
                        fields={"name": "amoxicillin", "drug_class": "penicillin", "dose": "500 mg"})
    allergy = store.add_raw("Alice is allergic to penicillin", user="alice", type="constraint", kind="allergy",
                            fields={"substance": "penicillin G", "drug_class": "Penicillin"})
    (finding,) = store.check().findings
    assert finding.rule == "medication_allergy" and finding.severity == "critical"
    assert finding.memories == [med.id, allergy.id]
