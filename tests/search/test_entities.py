"""Entity extraction: a table of memory sentences and the entities they name."""

import time

import pytest

from memctl.search.entities import MAX_ENTITIES, extract_entities, query_entities


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Alice prefers window seats on flights.", ["Alice"]),
        ("Bob is the tech lead on Project Phoenix.", ["Bob", "Project Phoenix"]),
        ("Meeting with Alice in New York on Monday.", ["Alice", "New York", "Monday"]),
        ("We moved from MySQL to PostgreSQL in 2024.", ["MySQL", "PostgreSQL"]),
        ("createOrder throws ERR_42 when user_id is missing", ["createOrder", "ERR_42", "user_id"]),
        ("See PAY-1234 and #123.", ["PAY-1234", "#123"]),
        ("Upgrade to v2.3.1 of the SDK", ["v2.3.1", "SDK"]),
        ("Error E1234 in config.yaml", ["E1234", "config.yaml"]),
        ("The script is deploy.sh. Then run it.", ["deploy.sh"]),
        ("see src/app/main.py and archive.tar.gz", ["src/app/main.py", "archive.tar.gz"]),
        ("He said: Alice will come.", ["Alice"]),
        ("Alice's cat is called Tom.", ["Alice", "Tom"]),
        ("When Alice travels she books early.", ["Alice"]),
        ("Bank of America and the University of Tokyo", ["Bank of America", "University of Tokyo"]),
        ("AWS Lambda and HTTP2 on iOS", ["AWS Lambda", "HTTP2", "iOS"]),
        ("The user-service-api calls `auth-db` end-to-end", ["user-service-api", "auth-db"]),
        ("use gpt-4 for state-of-the-art models", ["gpt-4"]),
        ("1. Carol owns billing\n- Dave owns auth", ["Carol", "Dave"]),
        ("Alice prefers tea. Alice also likes Bob.", ["Alice", "Bob"]),
        ("我最喜欢的书是《三体》", ["三体"]),
        ("打开config.yaml文件", ["config.yaml"]),
        ("「東京タワー」に行きたい", ["東京タワー"]),
        ("“I love it” he said about “绿茶”", ["绿茶"]),
        # Grammatical capitals and plain prose are not entities.
        ("Use pnpm, not npm.", []),
        ("The deploy went fine and we never looked back.", []),
        ("i.e. e.g. 3.14 and 2026-11-30", []),
        # Emails and URLs are masked: no parts leak out as entities.
        ("Email alice@example.com or see https://docs.example.com/x.html", []),
    ],
)
def test_extract_entities(text: str, expected: list[str]) -> None:
    assert extract_entities(text) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("err_42", ["err_42"]),
        ("pay-1234 refund", ["pay-1234"]),
        ("e1234 in config.yaml", ["e1234", "config.yaml"]),
        ("Alice flights", ["Alice"]),
        ("What does Alice like", ["Alice"]),
        ("window seats", []),
    ],
)
def test_query_entities_tolerates_lower_case(query: str, expected: list[str]) -> None:
    assert query_entities(query) == expected


def test_dedupes_case_insensitively_in_first_occurrence_order() -> None:
    text = "Talked to bob_smith about Redis. Then BOB_SMITH fixed Redis again, with Carol."
    assert extract_entities(text) == ["bob_smith", "Redis", "Carol"]


def test_caps_the_number_of_entities() -> None:
    text = " ".join(f"TICKET-{n}" for n in range(50))
    found = extract_entities(text)
    assert len(found) == MAX_ENTITIES
    assert found[:2] == ["TICKET-0", "TICKET-1"]


def test_empty_text() -> None:
    assert extract_entities("") == []
    assert query_entities("   ") == []


@pytest.mark.parametrize("unit", ["Ann. ", "7", "A of ", "v1.", "Ann. Ann x "])
def test_a_long_hostile_text_is_read_in_time(unit):
    # A memory file may hold 256 KB: a run of digits, or many sentences opening on one word, took a
    # pass over the rest of the text per character or per sentence (minutes for 40 KB).
    text = unit * (40_000 // len(unit))
    began = time.perf_counter()
    extract_entities(text)
    query_entities(text)
    assert time.perf_counter() - began < 10
