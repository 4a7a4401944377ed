"""CLI wiring of gate (and the gate inside add) and of context."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import cli, cli_json, tree_bytes

CARD = "4111 1111 1111 1111"


@pytest.mark.parametrize(("args", "env", "exit_code", "codes"), [
    (["Alice prefers window seats on flights", "--user", "alice"], {}, 0, []),
    ([f"Alice's card is {CARD}", "--user", "alice"], {}, 3, ["sensitive"]),
    (["Alice might like tea", "--user", "alice", "--confidence", "0.5"], {}, 3, ["low_confidence"]),
    (["Alice might like tea", "--user", "alice", "--confidence", "0.5"], {"MEMORY_MIN_CONFIDENCE": "0.4"}, 0, []),
    (["Alice might like tea", "--user", "alice", "--confidence", "0.5", "--min-confidence", "0.6"],
     {"MEMORY_MIN_CONFIDENCE": "0.4"}, 3, ["low_confidence"]),
    (["hi", "--user", "alice"], {}, 3, ["too_short"]),
    (["hi", "--user", "alice", "--min-length", "2"], {}, 0, []),
    ([f"pw {CARD}", "--user", "alice", "--confidence", "0.1"], {}, 3, ["low_confidence", "sensitive"]),
    ([f"Alice's card is {CARD}", "--user", "alice", "--redact"], {}, 0, []),
])
def test_gate_dry_run(memdir: Path, args: list[str], env: dict, exit_code: int, codes: list[str]) -> None:
    before = tree_bytes(memdir)
    code, out = cli_json(memdir, "gate", *args, env=env)
    assert code == exit_code, out
    assert [f["code"] for f in out["data"]["verdict"]["failures"]] == codes
    assert out["ok"] is (exit_code == 0)
    assert tree_bytes(memdir) == before  # a dry run writes nothing


def test_bad_environment_threshold_is_a_clear_error(memdir: Path) -> None:
    code, out = cli_json(memdir, "gate", "Alice likes tea", "--user", "alice", env={"MEMORY_MIN_LENGTH": "many"})
    assert code == 1 and "MEMORY_MIN_LENGTH" in out["errors"][0]["message"]


def test_add_refuses_secrets_and_redacts_on_request(memdir: Path) -> None:
    before = tree_bytes(memdir)
    code, out = cli_json(memdir, "add", f"Alice's card is {CARD}", "--user", "alice")
    assert code == 3 and out["errors"][0]["code"] == "sensitive" and CARD not in json.dumps(out["errors"])
    assert tree_bytes(memdir) == before
    code, out = cli_json(memdir, "add", f"Alice's card is {CARD}", "--user", "alice", "--redact")
    assert code == 0
    text = (memdir / out["data"]["memory"]["path"]).read_text()
    assert CARD not in text and "[REDACTED:card_number]" in text


def test_add_duplicate_is_refused_and_reinforces(memdir: Path) -> None:
    code, first = cli_json(memdir, "add", "Alice is vegetarian", "--user", "alice", "--confidence", "0.8")
    code, out = cli_json(memdir, "add", "alice is vegetarian!", "--user", "alice", "--source", "ai")
    assert code == 3 and out["errors"][0]["code"] == "duplicate"
    assert out["data"]["decision"]["action"] == "noop"
    stored = cli_json(memdir, "show", first["data"]["memory"]["id"])[1]["data"]["memory"]
    assert stored["confidence"] == 1.0 and stored["sources"] == ["ai"]
    result = cli(memdir, "add", "Alice is vegetarian", "--user", "alice")
    assert result.exit_code == 3 and "already stored as" in result.stderr


@pytest.mark.parametrize("fmt", ["markdown", "xml", "json"])
def test_context_formats_and_budget(samples: Path, fmt: str) -> None:
    code, out = cli_json(samples, "context", "which seat do I like on planes?", "--user", "alice",
                         "--format", fmt, "--budget", "400")
    assert code == 0
    data = out["data"]
    assert data["tokens"] <= 400 and data["items"] and data["profile_lines"] > 0
    assert "profile_first" in data["rules"]
    if fmt == "json":
        json.loads(data["text"])
    else:
        assert "<memories>" in data["text"] and "</memories>" in data["text"]


def test_context_rules_and_explain(samples: Path) -> None:
    result = cli(samples, "context", "continue with that error from before", "--user", "bob", "--explain")
    assert result.exit_code == 0 and "<memories>" in result.stdout
    assert "session_first" in result.stderr and "widen_history" in result.stderr
    code, out = cli_json(samples, "context", "the checkout latency budget", "--project", "checkout-service")
    assert code == 0 and out["data"]["rules"] == [] and out["data"]["items"]
    code, out = cli_json(samples, "context", "x", "--user", "alice", "--format", "yaml")
    assert code == 2 and out["errors"][0]["code"] == "bad_format"
    code, out = cli_json(samples, "context", "x", "--user", "alice", "--budget", "0")
    assert code == 2 and out["errors"][0]["code"] == "usage" and "--budget" in out["errors"][0]["message"]


def test_index_cli_and_auto_refresh(samples: Path) -> None:
    code, out = cli_json(samples, "index", "--user", "bob")
    assert code == 0 and out["data"]["indexes"][0]["path"] == "users/bob/MEMORY.md"
    code, out = cli_json(samples, "index")
    assert code == 2 and out["errors"][0]["code"] == "no_scope"
    before = (samples / "users/bob/MEMORY.md").read_text()
    code, out = cli_json(samples, "add", "Bob started learning the cello in November", "--user", "bob", "--type", "event")
    after = (samples / "users/bob/MEMORY.md").read_text()
    assert after != before and "cello" in after
    cli_json(samples, "forget", out["data"]["memory"]["id"])
    assert (samples / "users/bob/MEMORY.md").read_text() == before


def test_context_with_user_and_project_shows_both_profiles(samples: Path) -> None:
    code, out = cli_json(samples, "context", "what do I prefer", "--user", "bob", "--project", "checkout-service",
                         "--budget", "4000")
    assert code == 0
    text = out["data"]["text"]
    assert "Bob" in text and "### checkout-service: " in text and out["data"]["tokens"] <= 4000
