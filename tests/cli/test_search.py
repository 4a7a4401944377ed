"""CLI wiring of recall's relevance: --json carries it, held-back hits are counted, --all shows them."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import cli, cli_json


def payments(memdir: Path) -> Path:
    for text in ("Bob's team deploys the payment service on Fridays",
                 "Payments are retried three times before an order is cancelled"):
        assert cli_json(memdir, "add", text, "--user", "bob")[0] == 0
    return memdir


def test_recall_json_hits_carry_relevance(memdir: Path) -> None:
    code, out = cli_json(payments(memdir), "recall", "when does the team deploy the payment service")
    assert code == 0
    hit = out["data"]["hits"][0]
    assert 0.55 <= hit["relevance"] <= 1.0 and "score" in hit
    assert out["data"]["min_relevance"] == 0.55


def test_unrelated_query_holds_hits_back_and_says_so(memdir: Path) -> None:
    code, out = cli_json(payments(memdir), "recall", "Kyoto hotel")
    assert code == 0 and out["data"]["hits"] == [] and out["data"]["held_back"] == 2
    result = cli(memdir, "recall", "Kyoto hotel")
    assert result.exit_code == 0
    assert "2 hits held back below relevance 0.55 (--all shows them)" in result.stderr + result.stdout


def test_all_shows_the_held_back_hits(memdir: Path) -> None:
    code, out = cli_json(payments(memdir), "recall", "Kyoto hotel", "--all")
    assert code == 0 and out["data"]["held_back"] == 0 and len(out["data"]["hits"]) == 2
    assert all(h["relevance"] < 0.55 for h in out["data"]["hits"])
    piped = cli(memdir, "recall", "Kyoto hotel", "--all")
    assert len(piped.stdout.splitlines()) == 2 and "held back" not in piped.stderr


def test_context_reports_what_it_held_back(memdir: Path) -> None:
    code, out = cli_json(payments(memdir), "context", "Kyoto hotel")
    assert code == 0 and out["data"]["items"] == [] and out["data"]["held_back"] == 2
