"""Secrets are kept out on every write path: add (every text field), edit, import, log, extract,
the prompts sent to an LLM, and doctor reports any already on disk."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.errors import Refused
from tests.helpers import cli_json, tree_bytes

TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"


def spy(tmp_path: Path) -> tuple[str, Path]:
    """An LLM command that records its prompt and answers with no candidates."""
    seen = tmp_path / "prompt.txt"
    script = tmp_path / "spy.py"
    script.write_text(f"import sys\nopen({str(seen)!r}, 'a').write(sys.stdin.read())\nprint('[]')\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return f"{sys.executable} {script}", seen


@pytest.mark.parametrize(("field", "value"), [("tags", [TOKEN]), ("key", f"deploy.{TOKEN}"), ("subtype", TOKEN),
                                              ("source", "password=Hunter2024!")])
def test_add_refuses_a_secret_in_any_field(store: MemoryStore, field: str, value) -> None:
    with pytest.raises(Refused) as refused:
        store.add("Alice deploys the shop on Fridays", type="fact", user="alice", **{field: value})
    assert refused.value.code == "sensitive" and field in refused.value.message and TOKEN not in refused.value.message
    assert store.active() == []


def test_edit_passes_the_gate(memdir: Path) -> None:
    code, out = cli_json(memdir, "add", "Alice is vegetarian", "-u", "alice")
    memory_id = out["data"]["memory"]["id"]
    before = tree_bytes(memdir)
    for args in (["--body", "Alice's password is Summer2024! for the vpn"], ["--set", f"tags=[{TOKEN}]"],
                 ["--set", f"note=token {TOKEN}"], ["--body", "x" * 10_000_000]):
        code, out = cli_json(memdir, "edit", memory_id, *args)
        assert code == 3 and out["errors"][0]["code"] in ("sensitive", "too_long"), args
    assert tree_bytes(memdir) == before


def test_import_lines_with_secrets_are_refused_one_by_one(store: MemoryStore) -> None:
    text = "\n".join([json.dumps({"content": "Alice likes tea", "type": "preference"}),
                      json.dumps({"content": f"Alice's token is {TOKEN}", "type": "fact"}),
                      json.dumps({"content": "Alice likes jazz", "type": "preference", "tags": [TOKEN]})])
    report = store.import_text(text, user="alice")
    assert [(i.outcome, i.codes) for i in report.items] == [("added", []), ("refused", ["sensitive"]),
                                                             ("refused", ["sensitive"])]


def test_log_masks_secrets_unless_asked_to_keep_them(store: MemoryStore) -> None:
    masked = store.log("alice", "s1", f"my github token is {TOKEN}, card 4111 1111 1111 1111")
    assert TOKEN not in masked.content and "4111" not in masked.content and "[REDACTED:github_token]" in masked.content
    raw = store.repo.transcripts.raw("alice", "s1")
    assert raw is not None and TOKEN.encode() not in raw
    kept = store.log("alice", "s1", f"keep {TOKEN}", keep_secrets=True)
    assert TOKEN in kept.content


def test_no_secret_reaches_an_llm_prompt(store: MemoryStore, tmp_path: Path) -> None:
    command, seen = spy(tmp_path)
    store.log("alice", "s1", f"remember: the staging token is {TOKEN}", keep_secrets=True)
    store.log("alice", "s1", "remember: Alice likes green tea")
    store.extract("alice", "s1", command)
    prompt = seen.read_text()
    assert "green tea" in prompt and TOKEN not in prompt and "[REDACTED" in prompt
    store.extract("alice", "s2", command, transcript=json.dumps({"content": f"password: Hunter2024! {TOKEN}"}))
    assert TOKEN not in seen.read_text() and "Hunter2024!" not in seen.read_text()


@pytest.mark.files_only  # a file written by hand; test_doctor_reports_secrets_written_past_the_gate is the same on both
def test_doctor_reports_secrets_already_on_disk(memdir: Path) -> None:
    path = memdir / "users" / "alice" / "old.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\nid: a1a1a1a1\ntype: fact\nuser: alice\ncreated: 2025-01-01T00:00:00Z\n"
                    f"updated: 2025-01-01T00:00:00Z\n---\nThe deploy token is {TOKEN}\n")
    code, out = cli_json(memdir, "doctor")
    problems = [p for p in out["data"]["problems"] if p["kind"] == "secret"]
    assert code == 1 and problems and problems[0]["path"] == "users/alice/old.md"
    assert TOKEN not in json.dumps(out)


def test_doctor_reports_secrets_written_past_the_gate(store) -> None:
    memory = store.add_raw(f"The deploy token is {TOKEN}", type="fact", user="alice")
    report = store.doctor()
    problems = [p for p in report["problems"] if p["kind"] == "secret"]
    assert [p["path"] for p in problems] == [memory.path] and TOKEN not in json.dumps(report)
