"""occurred, state, valid_until and part_of through the library: writing, filtering, ranking, editing."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memctl import clock
from memctl.errors import InvalidMemory, NotFound

NOW = datetime(2026, 1, 10, 12, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def _pinned():
    clock.set_now(NOW)


def test_since_and_until_use_when_it_occurred(store):
    trip = store.add("Trip to Tokyo in February", type="event", user="u", occurred="2026-02-03..2026-02-10").memory
    other = store.add("Kim likes jazz", user="u").memory
    feb = {h.id for h in store.recall("trip jazz", users=["u"], since=datetime(2026, 2, 1, tzinfo=timezone.utc)).hits}
    assert feb == {trip.id}
    jan = {h.id for h in store.recall("trip jazz", users=["u"], until=datetime(2026, 1, 31, tzinfo=timezone.utc)).hits}
    assert jan == {other.id}
    overlap = datetime(2026, 2, 9, tzinfo=timezone.utc)
    assert trip.id in {h.id for h in store.recall("trip", users=["u"], since=overlap).hits}


def test_relative_dates_become_occurred_and_are_reported(store):
    result = store.add("Dentist appointment tomorrow at 10", user="u")
    assert result.memory.occurred == "2026-01-11"
    assert result.notes and "tomorrow" in result.notes[0]
    unresolved = store.add("Gina asked about rain on Monday", user="u")
    assert unresolved.memory.occurred is None and "left as written" in unresolved.notes[0]
    given = store.add("Flight next week", user="u", occurred="2026-03-02")
    assert given.memory.occurred == "2026-03-02" and given.notes == []


def test_a_source_date_anchors_relative_phrases(store):
    report = store.import_text('{"content": "Moving to Berlin next month", "user": "u", '
                               '"created": "2025-06-15T09:00:00Z"}\n'
                               '{"content": "Concert with Sam", "user": "u", "type": "event", "occurred": "2025-07-04", '
                               '"state": "done"}\n')
    assert report.counts["added"] == 2
    by_text = {m.body: m for m in store.list(user="u")}
    assert by_text["Moving to Berlin next month"].occurred == "2025-07-01..2025-07-31"
    assert by_text["Moving to Berlin next month"].created.year == 2025
    assert by_text["Concert with Sam"].occurred == "2025-07-04" and by_text["Concert with Sam"].state == "done"


def test_unknown_state_and_bad_dates_are_refused(store):
    with pytest.raises(InvalidMemory, match="unknown state"):
        store.add("Quote from Acme", user="u", state="maybe")
    with pytest.raises(InvalidMemory, match="occurred"):
        store.add("Trip", user="u", occurred="next spring")


def test_not_in_force_ranks_below_in_force(store):
    for text in ("Kim likes jazz", "The office is on Main Street", "Sam's birthday is in May"):
        store.add(text, user="u")  # a realistic pool: scores are normalised over the candidates
    quote = store.add("Loan quote from Acme Bank at 6.1%", user="u", state="inactive").memory
    contract = store.add("Loan contract from Acme Bank at 6.1%, signed", user="u").memory
    hits = store.recall("loan from Acme Bank", users=["u"]).hits
    assert [h.id for h in hits[:2]] == [contract.id, quote.id]
    assert hits[1].in_force is False and hits[1].state == "inactive" and "not_in_force_penalty" in hits[1].components


def test_valid_until_passing_takes_a_fact_out_of_force(store):
    store.add("Parking permit for zone B", user="u", valid_until="2026-01-05T00:00:00Z")
    hit = store.recall("parking permit", users=["u"]).hits[0]
    assert hit.in_force is False and hit.state == "ended 2026-01-05"
    block = store.context("parking permit", user="u")["text"]
    assert "not in force: ended 2026-01-05" in block


def test_a_newer_conflicting_memory_written_in_the_same_second_ranks_first(store):
    old = store.add("Hank lives in Beijing", user="u").memory
    new = store.add("Hank lives in Shanghai now", user="u").memory
    assert old.id in new.conflicts_with and new.created > old.created
    # the ranking: worded so the fake embedder finds the newer too (a move that shares only the
    # name with the query is lifted by meaning only: the real models' case is tests/cli/test_facts.py)
    ranked = store.recall("where does Hank live", users=["u"], min_relevance=0.0).hits
    assert [h.id for h in ranked[:2]] == [new.id, old.id]


def test_part_of_resolves_prefixes_and_refuses_loops_and_strangers(store):
    trip = store.add("Trip to Los Angeles", type="event", user="u").memory
    flight = store.add("Flight UA 1234 to LA", type="event", user="u", part_of=trip.id[:6]).memory
    assert flight.part_of == trip.id
    with pytest.raises(InvalidMemory, match="loop"):
        store.edit(trip.id, {"part_of": flight.id})
    with pytest.raises(NotFound):
        store.add("Hotel", type="event", user="u", part_of="deadbeef")
    assert [m.id for m in store.parts(trip.id)] == [flight.id]


def test_recall_brings_the_family_along_once(store):
    trip = store.add("Trip to Los Angeles in March", type="event", user="u").memory
    parts = [store.add(text, type="event", user="u", part_of=trip.id).memory
             for text in ("Outbound flight UA 1234", "Return flight UA 5678", "Hotel Ace downtown")]
    store.add("Kim likes jazz", user="u")
    hits = store.recall("Return flight UA 5678", users=["u"], k=1).hits
    assert hits[0].id == parts[1].id and hits[0].linked_to is None
    linked = list(hits[1:])
    assert {h.id for h in linked} == {trip.id, parts[0].id, parts[2].id}
    assert all(h.linked_to == parts[1].id for h in linked)
    assert len({h.id for h in hits}) == len(hits)


def test_edit_sets_the_new_fields(store):
    m = store.add("Trip to Tokyo", type="event", user="u").memory
    edited = store.edit(m.id, {"occurred": "2026-03", "state": "cancelled"})
    assert edited.occurred == "2026-03-01..2026-03-31" and edited.state == "cancelled"
    with pytest.raises(InvalidMemory, match="unknown state"):
        store.edit(m.id, {"state": "postponed"})
    cleared = store.edit(m.id, {"state": ""})
    assert cleared.state is None
