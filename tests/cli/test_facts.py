"""Facts kept right, through the CLI with the real embedding model: distinct facts that look alike
stay two memories, real changes are caught, events have dates, states and links."""

from __future__ import annotations

import pytest

from tests.helpers import cli, cli_json

pytestmark = pytest.mark.model


def add(root, text, *args):
    code, env = cli_json(root, "add", "-u", "dana", text, *args)
    assert code == 0, env
    return env["data"]


def active_ids(root):
    code, env = cli_json(root, "list", "-u", "dana")
    assert code == 0
    return {m["id"] for m in env["data"]["memories"]}


def recall(root, query, *args):
    code, env = cli_json(root, "recall", "-u", "dana", query, *args)
    assert code == 0, env
    return env["data"]["hits"]


@pytest.mark.parametrize("first,second", [
    ("Dana's flight to Los Angeles is UA 1234 on March 2", "Dana's return flight is UA 5678 on March 9"),
    ("Gina asked whether it will rain tomorrow", "Gina asked about rain on Monday"),
    ("Synthetic note about the warehouse audit (item 6-0)", "Synthetic note about the warehouse audit (item 6-999)"),
    ("I drive a 2019 Toyota Camry", "I also drive a 2022 Tesla Model 3"),
    ("Loan quote from Acme Bank: 6.1% APR for 30 years", "Loan contract with First Bank: 5.2% APR for 30 years"),
    ("Order 55123 of running shoes arrived on Friday", "Order 55871 of running shoes arrived on Friday"),
], ids=["flights", "events", "item-numbers", "cars", "loans", "orders"])
def test_distinct_facts_that_look_alike_are_both_kept(memdir, first, second):
    one = add(memdir, first)
    two = add(memdir, second)
    assert two["decision"]["action"] == "add", two["decision"]
    assert {one["memory"]["id"], two["memory"]["id"]} <= active_ids(memdir)


@pytest.mark.parametrize("first,second", [
    ("Kim likes jazz", "Kim dislikes jazz"),
    ("The service runs on PostgreSQL 16", "The service runs on PostgreSQL 15"),
    ("The launch is on March 3", "The launch is on March 5"),
])
def test_real_changes_supersede(memdir, first, second):
    one = add(memdir, first)
    two = add(memdir, second)
    assert two["decision"]["action"] == "supersede", two["decision"]
    assert one["memory"]["id"] not in active_ids(memdir)


def test_a_move_is_linked_and_ranks_above_the_old_city_without_an_llm(memdir):
    old = add(memdir, "Hank lives in Beijing")["memory"]["id"]
    new = add(memdir, "Hank moved to Shanghai last month")
    assert old in new["decision"]["conflicts_with"]
    hits = recall(memdir, "where does Hank live")
    assert [h["id"] for h in hits[:2]] == [new["memory"]["id"], old]
    assert new["memory"]["occurred"]  # "last month" is dated, not left relative


def test_a_move_with_the_same_key_supersedes_but_a_history_key_never_does(memdir):
    add(memdir, "Hank lives in Beijing", "--key", "home.city")
    moved = add(memdir, "Hank moved to Shanghai", "--key", "home.city")
    assert moved["decision"]["action"] == "supersede"
    assert cli(memdir, "config", "set", "lifecycle.keys", '{"job.employer" = "history"}').exit_code == 0
    first = add(memdir, "Hank works at Acme", "--key", "job.employer")["memory"]["id"]
    second = add(memdir, "Hank now works at Globex", "--key", "job.employer")
    assert second["decision"]["action"] != "supersede"
    assert first in active_ids(memdir)


def test_the_users_scenario(memdir):
    """Two cars, a loan quote and a contract, a trip with two flights and a hotel, a passport, a Tokyo trip."""
    cars = [add(memdir, "My car is a 2019 Toyota Camry, plate 7ABC123")["memory"]["id"],
            add(memdir, "My second car is a 2022 Tesla Model 3 that my partner drives")["memory"]["id"]]
    quote = add(memdir, "Loan quote from Acme Bank: 6.1% APR for 30 years, never accepted", "--state", "inactive")
    contract = add(memdir, "Mortgage loan contract with First Bank: 5.2% APR, 30 years, signed and active")
    trip = add(memdir, "Trip to Los Angeles from March 2 to March 9", "-t", "event",
               "--occurred", "2026-03-02..2026-03-09")["memory"]["id"]
    parts = [add(memdir, text, "-t", "event", "--part-of", trip)["memory"]["id"] for text in (
        "Flight to Los Angeles: UA 1234 on March 2", "Return flight from Los Angeles: UA 5678 on March 9",
        "Hotel: Ace Hotel Downtown LA, March 2-9, confirmation 88421")]
    add(memdir, "Passport number ends in 4471, expires 2031")
    add(memdir, "Trip to Tokyo in March", "-t", "event", "--occurred", "2026-03")
    assert len(active_ids(memdir)) == 10  # nothing replaced anything

    found = {h["id"] for h in recall(memdir, "cancel my Los Angeles trip")}
    assert {trip, *parts} <= found

    loan = recall(memdir, "what is my loan status")
    assert loan[0]["id"] == contract["memory"]["id"]
    marked = next(h for h in loan if h["id"] == quote["memory"]["id"])
    assert marked["in_force"] is False and marked["state"] == "inactive"
    text = cli(memdir, "context", "-u", "dana", "what is my loan status").stdout
    assert "not in force: inactive] Loan quote" in text

    assert set(cars) <= {h["id"] for h in recall(memdir, "schedule maintenance for my car", "--all")}


def test_both_cars_come_back_for_a_task_phrased_query(memdir):
    cars = [add(memdir, "My car is a 2019 Toyota Camry, plate 7ABC123")["memory"]["id"],
            add(memdir, "My second car is a 2022 Tesla Model 3 that my partner drives")["memory"]["id"]]
    for text in ("Passport number ends in 4471, expires 2031", "Trip to Tokyo in March",
                 "Mortgage loan contract with First Bank: 5.2% APR, 30 years, signed and active"):
        add(memdir, text)
    assert set(cars) <= {h["id"] for h in recall(memdir, "schedule maintenance for my car")}


def test_trip_parts_come_along_and_forget_offers_them(memdir):
    trip = add(memdir, "Trip to Los Angeles in March", "-t", "event")["memory"]["id"]
    hotel = add(memdir, "Booked the Ace Hotel downtown, confirmation 88421", "-t", "event", "--part-of", trip[:6])
    assert hotel["memory"]["part_of"] == trip
    add(memdir, "Kim likes jazz")
    hits = recall(memdir, "Los Angeles trip", "-k", "1")
    assert [h["id"] for h in hits] == [trip, hotel["memory"]["id"]] and hits[1]["linked_to"] == trip
    offered = cli(memdir, "forget", trip)
    assert "1 part(s)" in offered.stdout and "--with-parts" in offered.stdout
    cli(memdir, "restore", trip)
    code, env = cli_json(memdir, "forget", trip, "--with-parts")
    assert code == 0 and [m["id"] for m in env["data"]["parts"]] == [hotel["memory"]["id"]]
    assert not active_ids(memdir) & {trip, hotel["memory"]["id"]}
    code, env = cli_json(memdir, "restore", trip, "--with-parts")
    assert code == 0 and {trip, hotel["memory"]["id"]} <= active_ids(memdir)
