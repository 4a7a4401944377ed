"""Typed facts through the CLI: add --kind/--field, query, check, and the warnings context and recall
carry (the passport scenario end to end)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import cli, cli_json

FLIGHT_QUERY = "book an international flight for March"
JAN_20 = ("--now", "2026-01-20T09:00:00Z")


def add(root, text, *args, user="alice"):
    code, env = cli_json(root, "add", "-u", user, text, *args)
    assert code == 0, env
    return env["data"]["memory"]


def passport_and_trip(root):
    passport = add(root, "My US passport expires on 2 April 2026", "--kind", "passport",
                   "--field", "expires=2026-04-02", "--field", "country=US")
    trip = add(root, "Trip to Tokyo in March 2026: international flight out on 10 March, back on 20 March",
               "--kind", "trip", "--field", "departs=2026-03-10", "--field", "returns=2026-03-20",
               "--field", "destination=Tokyo", "--field", "country=JP", "--field", "international=true",
               "--state", "planned")
    return passport, trip


def distractors(root, n=12):
    for i in range(n):
        add(root, f"Alice noted item {i}: the garden shed needs {i + 2} new planks of pine")


def test_passport_scenario_end_to_end(memdir):
    passport, trip = passport_and_trip(memdir)
    distractors(memdir)
    assert passport["kind"] == "passport" and passport["fields"] == {"country": "US", "expires": "2026-04-02"}

    code, env = cli_json(memdir, "check", "--at", "2026-01-20")
    assert code == 1, env
    (finding,) = env["data"]["findings"]
    assert finding["rule"] == "passport_before_trip" and finding["severity"] == "warning"
    assert set(finding["memories"]) == {passport["id"], trip["id"]}
    assert "2026-04-02" in finding["message"] and finding["due"] == "2026-03-10" and finding["days"] == 49
    human = cli(memdir, "check", "--at", "2026-01-20")
    assert human.exit_code == 1 and "expires 2026-04-02" in human.stdout

    block = cli(memdir, *JAN_20, "context", FLIGHT_QUERY, "-u", "alice")
    assert block.exit_code == 0
    body = block.stdout.split("<memories>", 1)[1].strip().splitlines()
    assert body[0].startswith("## Warnings") and "[warning] Passport (US) expires 2026-04-02" in body[1]
    for fmt, marker in (("xml", '<warning severity="warning">Passport (US)'), ("json", '"severity": "warning"')):
        code, env = cli_json(memdir, *JAN_20, "context", FLIGHT_QUERY, "-u", "alice", "-f", fmt)
        assert code == 0 and marker in env["data"]["text"].replace('":"', '": "').replace('","', '", "')

    other = cli(memdir, *JAN_20, "context", FLIGHT_QUERY, "-u", "bob")
    assert other.exit_code == 0 and "Warnings" not in other.stdout  # only one's own findings

    code, env = cli_json(memdir, *JAN_20, "recall", FLIGHT_QUERY, "-u", "alice", "-k", "1")
    assert code == 0
    hits = env["data"]["hits"]
    assert hits[0]["id"] == trip["id"]
    assert any(h["id"] == passport["id"] and h["linked_to"] == trip["id"] for h in hits)
    assert env["data"]["findings"][0]["rule"] == "passport_before_trip"


def test_passport_comes_along_even_below_min_relevance(memdir):
    passport, trip = passport_and_trip(memdir)
    cli(memdir, "config", "set", "recall.min_relevance", "0.99")
    code, env = cli_json(memdir, *JAN_20, "recall", FLIGHT_QUERY, "-u", "alice")
    assert code == 0
    ids = [h["id"] for h in env["data"]["hits"]]
    assert passport["id"] in ids and trip["id"] in ids  # a finding's memories are never held back


def test_after_the_trip_or_with_a_new_passport_nothing_is_found(memdir):
    passport_and_trip(memdir)
    code, env = cli_json(memdir, "check", "--at", "2026-03-21")  # the trip is over; the passport is valid
    assert code == 0 and env["data"]["findings"] == []
    block = cli(memdir, "--now", "2026-03-21T09:00:00Z", "context", FLIGHT_QUERY, "-u", "alice")
    assert "Warnings" not in block.stdout


def test_medication_against_allergy_of_the_same_class(memdir):
    med = add(memdir, "Alice takes amoxicillin 500 mg three times a day", "--kind", "medication",
              "--field", "name=amoxicillin", "--field", "drug_class=penicillin", "--field", "dose=500 mg")
    allergy = add(memdir, "Alice is allergic to penicillin", "--kind", "allergy",
                  "--field", "substance=penicillin G", "--field", "drug_class=Penicillin")
    code, env = cli_json(memdir, "check")
    assert code == 1
    (finding,) = env["data"]["findings"]
    assert finding["rule"] == "medication_allergy" and finding["severity"] == "critical"
    assert finding["memories"] == [med["id"], allergy["id"]] and "amoxicillin (penicillin)" in finding["message"]


def test_upcoming_birthday_recurs_every_year(memdir):
    add(memdir, "Bob's birthday is 28 January (born 1990)", "--kind", "birthday",
        "--field", "person=Bob", "--field", "date=1990-01-28")
    code, env = cli_json(memdir, "check", "--at", "2026-01-20")
    assert code == 1
    (finding,) = env["data"]["findings"]
    assert finding["rule"] == "birthday_upcoming" and finding["due"] == "2026-01-28" and finding["days"] == 8
    assert finding["message"] == "Bob's birthday is in 8 days (2026-01-28)."
    assert cli_json(memdir, "check", "--at", "2026-03-01")[0] == 0  # not within 14 days
    add(memdir, "Carol was born on 3 January 1985", "--kind", "birthday", "--field", "person=Carol",
        "--field", "date=1985-01-03", user="carol")
    code, env = cli_json(memdir, "check", "--at", "2026-12-25")  # next year's, across the new year
    assert [(f["owner"], f["due"], f["days"]) for f in env["data"]["findings"]] == [("users/carol", "2027-01-03", 9)]


def test_a_clean_profile_has_no_findings(memdir):
    add(memdir, "Alice's passport is valid until 2031", "--kind", "passport", "--field", "expires=2031-05-01",
        "--field", "country=US")
    add(memdir, "Trip to Lisbon in May 2026", "--kind", "trip", "--field", "departs=2026-05-03",
        "--field", "international=true", "--state", "planned")
    add(memdir, "Alice takes ibuprofen for her knee", "--kind", "medication", "--field", "name=ibuprofen",
        "--field", "drug_class=NSAID")
    add(memdir, "Alice is allergic to penicillin", "--kind", "allergy", "--field", "substance=penicillin",
        "--field", "drug_class=penicillin")
    add(memdir, "Bob's birthday is in August", "--kind", "birthday", "--field", "person=Bob", "--field", "date=1990-08-12")
    add(memdir, "Alice likes green tea")
    code, env = cli_json(memdir, "check", "--at", "2026-01-20")
    assert code == 0 and env["data"]["findings"] == [] and env["data"]["rules"] >= 10
    result = cli(memdir, "check", "--at", "2026-01-20")
    assert result.exit_code == 0 and result.stdout == ""


def test_findings_are_per_owner(memdir):
    add(memdir, "Alice's passport expires in April 2026", "--kind", "passport", "--field", "expires=2026-04-02",
        "--field", "country=US")
    add(memdir, "Carl flies to Tokyo in March 2026", "--kind", "trip", "--field", "departs=2026-03-10",
        "--field", "international=true", user="carl")
    assert cli_json(memdir, "check", "--at", "2026-01-20")[0] == 0  # Carl's trip, Alice's passport


def test_bad_typed_input_is_a_one_line_usage_error(memdir):
    cases = [
        (["--kind", "passport", "--field", "expires=2026-02-30", "--field", "country=US"], "passport.expires: not a date"),
        (["--kind", "passport", "--field", "expires=2026-04-02", "--field", "country=Atlantis"], "not a country code"),
        (["--kind", "passport", "--field", "country=US"], "passport needs the field 'expires'"),
        (["--kind", "passport", "--field", "expires=2026-04-02", "--field", "country=US", "--field", "colour=red"],
         "passport has no field 'colour'"),
        (["--kind", "spaceship", "--field", "warp=9"], "unknown kind 'spaceship'"),
        (["--field", "expires=2026-04-02"], "fields need a kind"),
        (["--kind", "passport", "--field", "expires"], "write it as name=value"),
    ]
    for args, message in cases:
        result = cli(memdir, "add", "-u", "alice", "a passport", *args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1, result.output
    assert cli_json(memdir, "list")[1]["data"]["count"] == 0


def test_edit_sets_one_typed_field_validated(memdir):
    passport, _ = passport_and_trip(memdir)
    code, env = cli_json(memdir, "edit", passport["id"], "--set", "fields.expires=2036-04-01")
    assert code == 0 and env["data"]["memory"]["fields"] == {"country": "US", "expires": "2036-04-01"}
    assert cli_json(memdir, "check", "--at", "2026-01-20")[0] == 0  # renewed: no more warning
    result = cli(memdir, "edit", passport["id"], "--set", "fields.expires=soon")
    assert result.exit_code == 2 and "passport.expires: not a date" in result.output


def test_import_jsonl_with_kind_and_fields_and_round_trip(memdir, tmp_path):
    lines = [
        {"content": "Alice's passport expires 2 April 2026", "user": "alice", "kind": "passport",
         "fields": {"expires": "2026-04-02", "country": "us"}},
        {"content": "Flight to Osaka on 12 March 2026", "user": "alice", "kind": "flight",
         "fields": {"departs": "2026-03-12", "destination": "Osaka", "international": True}},
        {"content": "A passport with a bad date", "user": "alice", "kind": "passport",
         "fields": {"expires": "someday", "country": "US"}},
    ]
    code, env = cli_json(memdir, "import", "-", input="\n".join(json.dumps(x) for x in lines))
    outcomes = [item["outcome"] for item in env["data"]["items"]]
    assert outcomes[:2] == ["added", "added"] and outcomes[2] == "refused", env
    assert "passport.expires" in env["data"]["items"][2]["message"]
    code, env = cli_json(memdir, "check", "--at", "2026-01-20")
    assert [f["rule"] for f in env["data"]["findings"]] == ["passport_before_flight"]

    exported = cli(memdir, "export", "--to", "jsonl").stdout
    other = tmp_path / "other"
    assert cli(None, "init", str(other)).exit_code == 0
    code, env = cli_json(other, "import", "--from", "jsonl", "-", input=exported)
    assert code == 0, env
    code, env = cli_json(other, "query", "list", "--kind", "passport")
    assert env["data"]["memories"][0]["fields"] == {"expires": "2026-04-02", "country": "US"}


def test_query_through_the_cli(memdir):
    for year, month, abroad in ((2024, 5, True), (2025, 2, True), (2025, 7, False), (2025, 11, True)):
        add(memdir, f"Trip in {year}-{month:02d}", "--kind", "trip", "--field", f"departs={year}-{month:02d}-10",
            "--field", f"international={str(abroad).lower()}")
    code, env = cli_json(memdir, "query", "count", "--kind", "trip", "--where", "international = true",
                         "--where", "departs in 2025")
    assert code == 0 and env["data"]["value"] == 2
    code, env = cli_json(memdir, "query", "latest", "--kind", "trip")
    assert env["data"]["value"] == "2025-11-10"
    result = cli(memdir, "query", "count", "--kind", "trip", "--where", "departs <")
    assert result.exit_code == 2 and "--where 'departs <': expected a value or a field" in result.output
    result = cli(memdir, "query", "count", "--kind", "trip", "--where", "__import__('os')")
    assert result.exit_code == 2 and "names never start with _" in result.output


def test_rule_file_errors_are_reported_with_file_and_line(memdir):
    checks = memdir / "checks"
    checks.mkdir()
    (checks / "broken.toml").write_text('[a]\nkinds = ["trip"]\nwhen = "trip.departs within 14 days\n')
    (checks / "typos.toml").write_text(
        '# my rules\n\n[soon]\nkinds = ["trip"]\nwhen = "trip.departs within 14 days"\nmessage = "Trip soon"\n\n'
        '[wrong]\nkinds = ["trip"]\nwhen = "trip.departs < 180 days"\nmessage = "x"\n\n'
        '[unknown]\nkinds = ["trip"]\nwhen = "trip.leaves within 3 days"\nmessage = "x"\n')
    result = cli(memdir, "check", "--at", "2026-01-20")
    assert result.exit_code == 2
    errors = result.stderr
    assert "checks/broken.toml:3: not valid TOML" in errors
    assert "checks/typos.toml:10: rule 'wrong': when: cannot compare a date with a duration" in errors
    assert "checks/typos.toml:15: rule 'unknown': when: trip has no field 'leaves'" in errors
    code, env = cli_json(memdir, "check", "--at", "2026-01-20")
    assert code == 2 and len(env["data"]["problems"]) == 3


def test_memctl_toml_checks_and_schemas(memdir):
    config = memdir / "memctl.toml"
    config.write_text(config.read_text() + '\n[schemas.gym]\nfields = { renews = "date", fee = "money" }\n\n'
                      '[checks.gym_renewal]\nkinds = ["gym"]\nwhen = "gym.renews within 14 days"\n'
                      'message = "Gym membership renews {gym.renews} ({gym.fee}), {when}"\n')
    add(memdir, "Alice's gym membership renews on 1 February", "--kind", "gym", "--field", "renews=2026-02-01",
        "--field", "fee=39.90 EUR")
    code, env = cli_json(memdir, "check", "--at", "2026-01-20")
    assert code == 1
    assert env["data"]["findings"][0]["message"] == "Gym membership renews 2026-02-01 (39.90 EUR), in 12 days"
    code, env = cli_json(memdir, "kinds")
    assert env["data"]["kinds"]["gym"]["fields"]["fee"]["type"] == "money"


@pytest.mark.model
def test_passport_scenario_with_the_real_model(memdir):
    """The issue's report: with the shipped model, recall for the flight query returns the passport."""
    passport, _ = passport_and_trip(memdir)
    add(memdir, "Alice prefers aisle seats on long flights")
    add(memdir, "Alice's favourite restaurant in Berlin is a Vietnamese place")
    add(memdir, "Alice runs 10 km every Sunday morning")
    code, env = cli_json(memdir, *JAN_20, "recall", FLIGHT_QUERY, "-u", "alice")
    assert code == 0
    ids = [h["id"] for h in env["data"]["hits"]]
    assert passport["id"] in ids and env["data"]["findings"][0]["rule"] == "passport_before_trip"
    block = cli(memdir, *JAN_20, "context", FLIGHT_QUERY, "-u", "alice")
    assert block.stdout.split("<memories>", 1)[1].lstrip().startswith("## Warnings")


def test_a_renewed_passport_supersedes_the_old_one(memdir):
    old, _ = passport_and_trip(memdir)
    new = cli_json(memdir, "add", "-u", "alice", "My US passport expires on 1 April 2036", "--kind", "passport",
                   "--field", "expires=2036-04-01", "--field", "country=US")[1]["data"]
    assert new["decision"]["action"] == "supersede" and new["decision"]["target"] == old["id"], new["decision"]
    assert cli_json(memdir, "check", "--at", "2026-01-20")[0] == 0  # the old passport no longer warns
    other = add(memdir, "My Japanese residence card", "--kind", "passport", "--field", "expires=2027-01-01",
                "--field", "country=JP")
    assert cli_json(memdir, "query", "count", "--kind", "passport")[1]["data"]["value"] == 2 and other["id"]


def test_trips_with_the_same_words_but_other_dates_are_all_kept(memdir):
    ids = set()
    for year in (2023, 2024, 2025):
        code, env = cli_json(memdir, "add", "-u", "alice", "Trip to Tokyo in March", "--kind", "trip",
                             "--field", f"departs={year}-03-10")
        assert code == 0 and env["data"]["decision"]["action"] == "add", env
        ids.add(env["data"]["memory"]["id"])
    code, env = cli_json(memdir, "add", "-u", "alice", "Trip to Tokyo in March", "--kind", "trip",
                         "--field", "departs=2025-03-10")
    assert code == 3 and env["errors"][0]["code"] == "duplicate"  # the very same trip is a repeat
    assert cli_json(memdir, "query", "count", "--kind", "trip", "--where", "departs in 2024")[1]["data"]["value"] == 1
    assert len(ids) == 3


def test_hostile_rule_files_run_nothing_end_to_end(memdir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "PWNED"
    (memdir / "checks").mkdir()
    (memdir / "checks" / "evil.toml").write_text("\n".join([
        '[imp]', 'kinds = ["trip"]', f'when = "__import__(\'os\').system(\'touch {marker}\')"', 'message = "x"', '',
        '[opener]', 'kinds = ["trip"]', 'when = "open(\'/etc/passwd\')"', 'message = "x"', '',
        '[shell]', 'kinds = ["trip"]', f'when = "os.system(\'touch {marker}\')"', 'message = "x"', '',
        '[fmt]', 'kinds = ["trip"]', 'when = "trip.departs within 30 days"', 'message = "{0.__class__.__init__.__globals__}"',
        '', '[dunder]', 'kinds = ["trip"]', 'when = "trip.departs within 30 days"', 'message = "{trip.__class__}"', '']))
    add(memdir, "Trip to Oslo soon", "--kind", "trip", "--field", "departs=2026-01-25")
    code, env = cli_json(memdir, "check", "--at", "2026-01-20")
    assert code == 2 and not marker.exists()
    refused = {p.split("rule '")[1].split("'")[0] for p in env["data"]["problems"]}
    assert refused == {"imp", "opener", "shell"}  # the template rules compile: their braces are inert text
    messages = {f["rule"]: f["message"] for f in env["data"]["findings"]}
    assert messages["fmt"] == "{0.__class__.__init__.__globals__}" and messages["dunder"] == "{trip.__class__}"


@pytest.mark.parametrize("passport, trip", [
    ("My US passport expires on 2 April 2026", "I'm flying to Tokyo on 10 March 2026 for an international trip"),
    ("我的美国护照2026年4月2日到期", "我3月10日飞东京，这是一次国际旅行"),
])
def test_seed_level_3_added_in_plain_language(memdir, passport, trip):
    """Seed 003, Level 3: the facts in plain words, no --kind: check exits 1 with the passport warning
    and context puts it first."""
    jan = ("--now", "2026-01-10T09:00:00Z")
    code, env = cli_json(memdir, *jan, "add", "-u", "alice", passport)
    assert code == 0 and env["data"]["inferred"]["kind"] == "passport"
    typed = cli(memdir, *jan, "add", "-u", "alice", trip)
    assert typed.exit_code == 0 and "typed as trip" in typed.stdout and "memctl edit" in typed.stdout
    distractors(memdir, 4)
    checked = cli(memdir, *jan, "check", "-u", "alice")
    assert checked.exit_code == 1 and "warning: Passport (US) expires 2026-04-02" in checked.stdout
    block = cli(memdir, *jan, "context", "book the flight", "-u", "alice").stdout.split("<memories>", 1)[1]
    lines = block.strip().splitlines()
    assert lines[0].startswith("## Warnings") and "[warning] Passport (US) expires 2026-04-02" in lines[1]


def test_structure_on_the_sample_directory(samples):
    """`structure --dry-run` lists what it would type and writes nothing; without it the kinds are
    written, `check` uses them, and a second run has nothing left to type."""
    from tests.helpers import memory_texts

    before = memory_texts(samples)
    code, env = cli_json(samples, "--now", "2026-12-02T09:00:00Z", "structure", "--dry-run")
    assert code == 0 and env["data"]["dry_run"] is True
    planned = {i["id"]: i["proposal"]["kind"] for i in env["data"]["typed"]}
    assert planned["f2e6f177"] == "passport" and planned["540592af"] == "trip" and planned["5825c661"] == "allergy"
    assert memory_texts(samples) == before
    shown = cli(samples, "structure", "--dry-run")
    assert shown.exit_code == 0 and "f2e6f177\tpassport\texpires=2027-03-10" in shown.stdout

    assert cli(samples, "--now", "2026-12-02T09:00:00Z", "check").exit_code == 0
    code, env = cli_json(samples, "--now", "2026-12-02T09:00:00Z", "structure")
    assert code == 0 and {i["id"] for i in env["data"]["typed"]} == set(planned)
    code, env = cli_json(samples, "--now", "2026-12-02T09:00:00Z", "check", "-u", "alice")
    assert code == 1 and {"f2e6f177", "540592af"} <= set(env["data"]["findings"][0]["memories"])
    assert cli_json(samples, "structure", "--dry-run")[1]["data"]["typed"] == []
