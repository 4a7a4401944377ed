"""`query`: exact answers over typed fields, checked against plain Python over the same data."""

from __future__ import annotations

import random
from collections import Counter
from datetime import date, timedelta
from decimal import Decimal

import pytest

from memctl.errors import MemctlError, UsageError
from tests.helpers import cli_json


def generated_trips(seed: int = 15, n: int = 30) -> list[dict]:
    rng = random.Random(seed)
    trips = []
    for i in range(n):
        departs = date(2023, 1, 1) + timedelta(days=rng.randrange(3 * 365))
        trips.append({"departs": departs.isoformat(), "international": rng.random() < 0.5,
                      "cost": f"{rng.randrange(50, 3000)}.{rng.randrange(100):02d} EUR",
                      "destination": rng.choice(["Tokyo", "Lisbon", "Oslo", "Lima", "Hanoi"]), "n": i})
    return trips


@pytest.fixture
def trips(store):
    schema_dir = store.root / "schemas"
    schema_dir.mkdir()
    (schema_dir / "travel.toml").write_text(
        '[journey]\ntype = "event"\nfields = { departs = { type = "date", required = true }, international = "bool", '
        'cost = "money", destination = "text" }\n')
    data = generated_trips()
    for trip in data:
        fields = {k: v for k, v in trip.items() if k != "n"}
        store.add_raw(f"Journey {trip['n']} to {trip['destination']}", user="alice", kind="journey", fields=fields)
    return data


def test_count_per_year_equals_a_plain_python_count(store, trips):
    years = Counter(t["departs"][:4] for t in trips)
    abroad = Counter(t["departs"][:4] for t in trips if t["international"])
    assert sorted(years) == ["2023", "2024", "2025"]
    for year in ("2023", "2024", "2025"):
        assert store.query("count", "journey", where=[f"departs in {year}"]).value == years[year]
        got = store.query("count", "journey", where=["international = true", f"departs in {year}"]).value
        assert got == abroad[year]
    march = sum(1 for t in trips if t["departs"].startswith("2024-03"))
    assert store.query("count", "journey", where=["departs in 2024-03"]).value == march
    assert store.query("count", "journey").value == 30


def test_sum_latest_earliest_and_list(store, trips):
    in_2024 = [t for t in trips if t["departs"].startswith("2024")]
    total = sum(Decimal(t["cost"].split()[0]) for t in in_2024)
    result = store.query("sum", "journey", where=["departs in 2024"], field="cost")
    assert result.value == f"{total} EUR" and result.count == len(in_2024)
    assert store.query("latest", "journey").value == max(t["departs"] for t in trips)
    assert store.query("earliest", "journey", field="departs").value == min(t["departs"] for t in trips)
    listed = store.query("list", "journey", where=["destination = 'tokyo'"], field="departs")
    expected = sorted(t["departs"] for t in trips if t["destination"] == "Tokyo")
    assert [m["fields"]["departs"] for m in listed.memories] == expected
    dear = [t for t in trips if Decimal(t["cost"].split()[0]) > 1000]
    assert store.query("count", "journey", where=["cost > 1000 EUR"]).value == len(dear)


def test_within_and_today(store, trips):
    at = date(2024, 6, 1)
    soon = sum(1 for t in trips if at <= date.fromisoformat(t["departs"]) <= at + timedelta(days=60))
    assert store.query("count", "journey", where=["departs within 60 days"], at="2024-06-01").value == soon
    past = sum(1 for t in trips if date.fromisoformat(t["departs"]) < at)
    assert store.query("count", "journey", where=["departs < today"], at="2024-06-01").value == past


@pytest.mark.parametrize("args,message", [
    (("median", "journey"), "unknown query 'median'"),
    (("count", "voyage"), "unknown kind 'voyage'"),
    (("sum", "journey"), "sum needs --field"),
    (("sum", "journey", [], "destination"), "cannot sum journey.destination: it is a text"),
    (("latest", "journey", [], "colour"), "journey has no field 'colour'"),
    (("count", "journey", ["departs in March"]), "expected a year (2025), a month (2025-03)"),
    (("count", "journey", ["cost > 10"]), "cannot compare a money with a number"),
    (("count", "journey", ["international = 'yes' or"]), "expected a value or a field"),
])
def test_bad_queries_are_usage_errors(store, trips, args, message):
    with pytest.raises(UsageError) as err:
        store.query(*args[:2], where=args[2] if len(args) > 2 else [], field=args[3] if len(args) > 3 else None)
    assert message in err.value.message and isinstance(err.value, MemctlError)


def test_memory_query_tool(store, trips):
    from memctl.agents.tools import call_tool

    years = Counter(t["departs"][:4] for t in trips)
    data = call_tool(store, "memory_query", {"op": "count", "kind": "journey", "where": ["departs in 2025"]})
    assert data["value"] == years["2025"] and data["count"] == years["2025"]


def test_query_cli_json(memdir):
    (memdir / "schemas").mkdir()
    (memdir / "schemas" / "a.toml").write_text('[visit]\nfields = { on = "date" }\n')
    for day in ("2025-01-02", "2025-05-06", "2026-01-01"):
        code, env = cli_json(memdir, "add", "-u", "alice", f"Visited the museum on {day}", "--kind", "visit",
                             "--field", f"on={day}")
        assert code == 0, env
    code, env = cli_json(memdir, "query", "count", "--kind", "visit", "--where", "on in 2025")
    assert code == 0 and env["data"]["value"] == 2


def test_memory_add_tool_takes_kind_and_fields(store):
    from memctl.agents.tools import InvalidArguments, call_tool

    data = call_tool(store, "memory_add", {"content": "Alice's passport expires 2 April 2026", "user": "alice",
                                           "kind": "passport", "fields": {"expires": "2026-04-02", "country": "US"}})
    assert data["memory"]["kind"] == "passport" and data["memory"]["fields"]["country"] == "US"
    with pytest.raises(InvalidArguments, match=r"fields\.dict\[str,any\]: Input should be a valid dictionary"):
        call_tool(store, "memory_add", {"content": "x y z", "user": "alice", "kind": "passport", "fields": "US"})
