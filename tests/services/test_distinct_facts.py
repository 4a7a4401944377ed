"""Consolidation never loses a distinct fact (issue 22): families of facts that look alike
(invoices, flights, lockers, meetings on other days, prices, relatives) beside true duplicates go
through `compact` and `dedupe` with default settings; every distinct fact is then still found by
recall in the top 3, and the duplicates are merged. Plus the concurrent case: writers adding
distinct facts while a compaction runs every second keep every fact."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memctl import clock
from memctl.api import MemoryStore

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October")
PEOPLE = ("Anna", "Bruno", "Chiara", "Dmitri", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kwame", "Lena")
RELATIONS = ("sister", "brother", "mother", "father", "cousin", "aunt", "uncle", "daughter", "son", "niece")
CITIES = ("Lyon", "Porto", "Osaka", "Denver", "Nairobi", "Tallinn", "Cusco", "Perth", "Bergen", "Hanoi")
ITEMS = ("blue kettle", "desk lamp", "rain jacket", "coffee grinder", "bike helmet", "yoga mat", "rice cooker")


@dataclass(frozen=True)
class Fact:
    text: str
    query: str
    must: tuple[str, ...]  # what a hit's text must hold for the fact to be answered


def _day(n: int) -> str:
    return f"{1 + n % 27} {MONTHS[n % len(MONTHS)]}"


def families() -> list[Fact]:
    """Six families of distinct facts that differ only in an identifier, a number, a date or a name."""
    facts = []
    for n in range(1, 91):
        inv = f"INV-2024-{n:03d}"
        facts.append(Fact(f"Invoice {inv} was paid on {_day(n)}.", f"was invoice {inv} paid", (inv,)))
    for n in range(90):
        code, city = f"LH{400 + n}", CITIES[n % len(CITIES)]
        facts.append(Fact(f"My flight {code} to {city} leaves at {6 + n % 12}:{15 * (n % 4):02d}.",
                          f"when does flight {code} leave", (code,)))
    for n in range(1, 81):
        item = ITEMS[n % len(ITEMS)]
        facts.append(Fact(f"Locker {n} at the gym holds my {item}.", f"what is in locker {n}", (f"Locker {n} ",)))
    for n in range(80):
        person = PEOPLE[n % len(PEOPLE)]
        day = f"{1 + n % 28} {MONTHS[(n // 28) % len(MONTHS)]}"
        facts.append(Fact(f"Meeting with {person} about the budget on {day}.",
                          f"meeting with {person} on {day}", (person, day)))
    for n in range(70):
        item = ITEMS[n % len(ITEMS)]
        price = 20 + 5 * n
        facts.append(Fact(f"The {item} in shop {n % 10 + 1} costs {price} euros.",
                          f"price of the {item} in shop {n % 10 + 1}", (f"costs {price} euros", f"shop {n % 10 + 1} ")))
    for n in range(60):
        rel, person, city = RELATIONS[n % len(RELATIONS)], PEOPLE[n % len(PEOPLE)], CITIES[(n // 10) % len(CITIES)]
        facts.append(Fact(f"My {rel} {person} lives in {city}.", f"where does my {rel} {person} live",
                          (rel, person, city)))
    # Distinct only by who: "my sister" / "my brother" in one city, no name.
    for rel in RELATIONS:
        facts.append(Fact(f"My {rel} works as a nurse in {CITIES[0]}.", f"is my {rel} working as a nurse", (f"My {rel} works",)))
    return facts


def duplicates(facts: list[Fact], rng: random.Random) -> list[tuple[str, str]]:
    """(original, repeat) pairs: the same statement in another case, spacing or with a filler word."""
    out = []
    for fact in rng.sample(facts, 40):
        variant = rng.choice([fact.text.lower(), fact.text.rstrip(".") + "!", "  " + fact.text.replace(" ", "  "),
                              fact.text.replace(" was ", " was actually ").replace(" lives ", " really lives ")])
        out.append((fact.text, variant))
    return out


def _plain(text: str) -> str:
    return " ".join(text.casefold().replace("!", ".").split()) + " "


def _answered(store: MemoryStore, fact: Fact) -> bool:
    hits = store.recall(fact.query, k=3, record_usage=False).hits
    return any(all(_plain(part).strip() + (" " if part.endswith(" ") else "") in _plain(store.get(h.id).body)
                   for part in fact.must) for h in hits)


@pytest.mark.files_only
def test_compact_and_dedupe_keep_every_distinct_fact_and_merge_true_duplicates(store: MemoryStore) -> None:
    rng = random.Random(22)
    facts = families()
    repeats = duplicates(facts, rng)
    clock.set_now(T0)
    ids: dict[str, str] = {}
    for n, fact in enumerate(facts):
        when = T0 - timedelta(minutes=n)
        ids[fact.text] = store.add_raw(fact.text, type="fact", user="alice", created=when, updated=when).id
    repeat_ids = [store.add_raw(variant, type="fact", user="alice", created=T0, updated=T0).id for _, variant in repeats]
    assert len(ids) + len(repeat_ids) >= 500
    store.compact()
    report = store.dedupe()
    merged = set(report.merged)
    for (original, _), repeat in zip(repeats, repeat_ids):
        pair = {ids[original], repeat}
        assert len(pair & merged) == 1, f"a true duplicate was not merged: {original!r}"
    active = list(store.active())
    assert len(active) == len(facts)  # every distinct fact kept apart, each duplicate folded away
    missing = [fact.text for fact in facts if not _answered(store, fact)]
    assert not missing, f"{len(missing)} facts not answered in the top 3, e.g. {missing[:5]}"


def test_invoices_of_the_issue_are_never_one_memory(store: MemoryStore) -> None:
    texts = [f"Invoice INV-2024-00{n} was paid on {d} April." for n, d in ((1, 1), (2, 3), (3, 8), (4, 12))]
    clock.set_now(T0 + timedelta(hours=1))
    for n, text in enumerate(texts):
        store.add_raw(text, type="fact", user="alice", created=T0 + timedelta(minutes=n))
    plan = store.compact(similarity={(a.id, b.id): 0.97 for a in store.active() for b in store.active()})["plan"]
    assert not plan["actions"] and len(list(store.active())) == 4
    hits = [store.get(h.id).body for h in store.recall("was invoice INV-2024-003 paid", k=3, record_usage=False, min_relevance=0).hits]
    assert "Invoice INV-2024-003 was paid on 8 April." in hits
    assert all(body.count("INV-") == 1 for body in hits)


def test_a_merge_is_dated_by_its_members_span_and_names_them_all(store: MemoryStore) -> None:
    texts = ["Alice asked about the weather in Lisbon.", "Alice asked for the Lisbon weather forecast.",
             "Alice wanted to know what the weather in Lisbon is like.", "Alice checked the weather forecast for Lisbon."]
    made = [store.add_raw(t, type="event", user="alice", source=f"chat{n}", occurred=f"2026-02-0{n + 1}",
                          created=T0, source_ids=[f"s1:{n}"]) for n, t in enumerate(texts)]
    clock.set_now(T0 + timedelta(days=300))  # a relative word in the text must not be read against today
    result = store.compact(similarity={(a.id, b.id): 0.9 for a in made for b in made if a.id != b.id})
    (summary_id,) = result["created"]
    summary = store.get(summary_id)
    assert summary.occurred == "2026-02-01..2026-02-04"
    assert sorted(summary.merged_from) == sorted(m.id for m in made)
    assert {"chat0", "chat1", "chat2", "chat3"} <= set(summary.sources)
    assert all(t in summary.body for t in texts)  # every statement kept


@pytest.mark.files_only
def test_writers_beside_a_compaction_every_second_keep_every_fact(memdir: Path) -> None:
    errors: list[BaseException] = []
    stop = threading.Event()

    def writer(w: int) -> None:
        try:
            store = MemoryStore(memdir)
            for n in range(10):
                store.add(f"Writer {w} noted that parcel {w * 100 + n} arrived at dock {n + 1}.", type="fact",
                          user="alice")
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    def compactor() -> None:
        store = MemoryStore(memdir)
        while not stop.is_set():
            try:
                store.compact()
            except BaseException as exc:
                errors.append(exc)
            stop.wait(1.0)

    background = threading.Thread(target=compactor)
    background.start()
    writers = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    time.sleep(1.2)
    stop.set()
    background.join()
    assert not errors, errors
    store = MemoryStore(memdir)
    store.compact()
    bodies = sorted(m.body for m in store.active())
    assert len(bodies) == 40 and len(set(bodies)) == 40
