"""Transcripts (log) and extraction through a fake model: watermark, rate limit, malformed output."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.errors import MemctlError
from memctl.services.transcripts import (
    ExtractionError,
    Message,
    parse_model_output,
    pending_messages,
    render_prompt,
)
from tests.helpers import FAKE_LLM, cli, cli_json, use_hashing_embedder

FACTS = ["Alice keeps bees in her garden", "Alice plays the cello", "Alice speaks Portuguese",
         "Alice drives an electric car"]
FAKE = FAKE_LLM


def calls(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def log_all(store: MemoryStore, *texts: str, session: str = "s1") -> list[Message]:
    return [store.log("alice", session, text) for text in texts]


def test_log_appends_numbered_messages(store: MemoryStore) -> None:
    first = store.log("alice", "s1", "hello there")
    second = store.log("alice", "s1", "hi!\nhow can I help?", role="assistant")
    if store.repo.kind == "files":
        assert store.repo.transcripts.path("alice", "s1") == store.root / "transcripts" / "alice" / "s1.jsonl"
    lines = [json.loads(line) for line in (store.repo.transcripts.raw("alice", "s1") or b"").decode().splitlines()]
    assert [line["id"] for line in lines] == ["s1:1", "s1:2"] == [first.id, second.id]
    assert lines[1]["role"] == "assistant" and lines[1]["content"] == "hi!\nhow can I help?"
    assert set(lines[0]) == {"id", "role", "content", "time"}


@pytest.mark.parametrize("user, session, content, code", [
    ("../x", "s1", "hello", "bad_name"),
    ("alice", "a/b", "hello", "bad_name"),
    ("alice", "s1", "   ", "empty_content"),
])
def test_log_rejects_bad_input(store: MemoryStore, user: str, session: str, content: str, code: str) -> None:
    from memctl.errors import MemctlError

    with pytest.raises(MemctlError) as info:
        store.log(user, session, content)
    assert info.value.code == code and info.value.exit_code == 2


def test_render_prompt_fills_placeholders_once() -> None:
    messages = [Message(id="s1:1", content="remember: {{ user }} stays literal\nsecond line")]
    out = render_prompt("U={{user}} T={{ types }}\n{{ messages }}", messages, "alice", ("fact", "habit"))
    assert out == "U=alice T=fact, habit\n[s1:1] user: remember: {{ user }} stays literal\n    second line"


def test_template_at_the_root_overrides_the_packaged_one(store: MemoryStore) -> None:
    assert "{{ messages }}" in store.repo.text("extract_prompt.md")
    (store.root / "extract_prompt.md").write_text("mine {{ messages }}", encoding="utf-8")
    assert store.repo.text("extract_prompt.md") == "mine {{ messages }}"


@pytest.mark.parametrize("output, contents", [
    ("", []),
    ("[]", []),
    ('{"content": "Alice likes tea", "type": "preference"}', ["Alice likes tea"]),
    ('{"content": "a b c"}\n\n{"content": "d e f", "whatever": 1}\n', ["a b c", "d e f"]),
    ('```json\n[{"content": "a b c"}, {"content": "d e f"}]\n```', ["a b c", "d e f"]),
    ('{"candidates": [{"content": "a b c"}]}', ["a b c"]),
])
def test_parse_model_output(output: str, contents: list[str]) -> None:
    assert [c.content for c in parse_model_output(output)] == contents


@pytest.mark.parametrize("output", [
    "Sure! Alice likes tea.",
    '{"content": "ok"}\nnot json',
    '{"type": "fact"}',
    '[{"content": "ok"}, 5]',
    '{"content": "x", "confidence": "very"}',
])
def test_parse_model_output_rejects_malformed(output: str) -> None:
    with pytest.raises(ExtractionError) as info:
        parse_model_output(output)
    assert info.value.exit_code == 1 and "\n" not in info.value.message


def test_parse_model_output_maps_ids_and_defaults_confidence() -> None:
    (cand,) = parse_model_output('{"content": "a b c", "source_message_ids": ["s1:2"]}')
    assert cand.source_ids == ["s1:2"] and cand.confidence == 0.8


@pytest.mark.parametrize("state, expected", [
    ({}, ["s:1", "s:2", "s:3"]),
    ({"last_id": "s:2", "count": 2}, ["s:3"]),
    ({"last_id": "s:3", "count": 3}, []),
    ({"last_id": "gone", "count": 1}, ["s:2", "s:3"]),
])
def test_pending_messages(state: dict, expected: list[str]) -> None:
    messages = [Message(id=f"s:{n}", content="x") for n in (1, 2, 3)]
    assert [m.id for m in pending_messages(messages, state)] == expected


def test_extract_writes_memories_pointing_at_their_messages(store: MemoryStore, tmp_path: Path) -> None:
    log_all(store, "hi, I'm Alice", "remember: Alice lives in Lisbon", "nice weather today",
            "remember:preference: Alice prefers window seats on flights")
    counter = tmp_path / "calls"
    result = store.extract("alice", "s1", f"{FAKE} --calls {counter} extract")
    assert result.called_model and result.candidates == 2 and result.report.counts["added"] == 2
    memories = {m.body: m for m in store.active()}
    lisbon = memories["Alice lives in Lisbon"]
    assert lisbon.source_ids == ["s1:2"] and lisbon.source == "auto" and lisbon.scope == "user"
    assert memories["Alice prefers window seats on flights"].type == "preference"
    assert store.repo.transcripts.read_state("alice", "s1")["last_id"] == "s1:4"
    again = store.extract("alice", "s1", f"{FAKE} --calls {counter} extract")
    assert not again.called_model and again.pending == 0 and calls(counter) == 1
    assert len(store.active()) == 2


def test_extract_asks_for_kinds_and_writes_typed_memories(store: MemoryStore, tmp_path: Path) -> None:
    log_all(store, "remember: Alice's US passport expires on 2 April 2026 {passport expires=2026-04-02 country=us}",
            "remember: Alice's passport is valid forever {passport expires=never country=US}")
    prompt = tmp_path / "prompt"
    result = store.extract("alice", "s1", f"{FAKE} --calls {tmp_path / 'calls'} --prompt {prompt} extract")
    assert "- passport: country (country), expires (date, required)" in prompt.read_text()
    assert '"kind": "...", "fields": {}' in prompt.read_text()
    assert [i.outcome for i in result.report.items] == ["added", "refused"]
    assert "passport.expires: not a date" in (result.report.items[1].message or "")
    (passport,) = [m for m in store.active() if m.kind]
    assert passport.kind == "passport" and passport.fields == {"country": "US", "expires": "2026-04-02"}


def test_extract_only_sends_new_messages(store: MemoryStore, tmp_path: Path) -> None:
    log_all(store, "remember: Alice lives in Lisbon")
    store.extract("alice", "s1", FAKE)
    log_all(store, "remember: Alice plays the cello on weekends")
    seen = tmp_path / "prompt.txt"
    spy = f"{sys.executable} -c \"import sys; open({str(seen)!r}, 'w').write(sys.stdin.read())\""
    store.extract("alice", "s1", spy)
    assert "[s1:2]" in seen.read_text() and "[s1:1]" not in seen.read_text()


def test_extract_every_waits_for_enough_messages(store: MemoryStore, tmp_path: Path) -> None:
    counter = tmp_path / "calls"
    log_all(store, "remember: Alice lives in Lisbon", "ok")
    result = store.extract("alice", "s1", f"{FAKE} --calls {counter}", every=3)
    assert not result.called_model and result.pending == 2 and calls(counter) == 0
    log_all(store, "thanks")
    assert store.extract("alice", "s1", f"{FAKE} --calls {counter}", every=3).called_model


@pytest.mark.parametrize("mode", ["garbage", "nocontent"])
def test_malformed_model_output_imports_nothing_and_keeps_the_watermark(store: MemoryStore, mode: str) -> None:
    log_all(store, "remember: Alice lives in Lisbon")
    with pytest.raises(ExtractionError):
        store.extract("alice", "s1", f"{FAKE} {mode}")
    assert store.active() == [] and store.repo.transcripts.read_state("alice", "s1") == {}
    assert store.extract("alice", "s1", f"{FAKE} array").report.counts["added"] == 1


def test_extraction_is_rate_limited_per_session(store: MemoryStore) -> None:
    log_all(store, *[f"remember: {fact}" for fact in FACTS])
    report = store.extract("alice", "s1", FAKE).report
    assert [i.outcome for i in report.items] == ["added", "added", "added", "refused"]
    assert report.items[3].codes == ["rate_limited"]


# -- CLI ---------------------------------------------------------------------------------------
def test_cli_log_and_extract(memdir: Path, tmp_path: Path) -> None:
    code, out = cli_json(memdir, "log", "--user", "alice", "--session", "s1", "remember: Alice lives in Lisbon")
    assert code == 0 and out["data"]["message"]["id"] == "s1:1"
    code, out = cli_json(memdir, "log", "-", "--user", "alice", "--session", "s1", "--role", "assistant",
                         input="Noted!")
    assert code == 0 and out["data"]["message"]["role"] == "assistant"
    code, out = cli_json(memdir, "extract", "--user", "alice", "--session", "s1", "--llm", FAKE)
    assert code == 0 and out["data"]["counts"]["added"] == 1 and out["data"]["watermark"] == "s1:2"
    result = cli(memdir, "extract", "--user", "alice", "--session", "s1", "--llm", FAKE)
    assert result.exit_code == 0 and "0 new message(s) pending" in result.stdout
    result = cli(memdir, "log", "--user", "alice", "--session", "s1", "remember: x")
    result = cli(memdir, "extract", "--user", "alice", "--session", "s1", "--llm", f"{FAKE} garbage")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "not JSON" in result.stderr


def test_cli_extract_from_a_file(memdir: Path, tmp_path: Path) -> None:
    source = tmp_path / "chat.jsonl"
    source.write_text(json.dumps({"role": "user", "content": "remember: Alice keeps bees"}) + "\n", encoding="utf-8")
    code, out = cli_json(memdir, "extract", "--user", "alice", "--session", "imp", "--llm", FAKE,
                         "--file", str(source))
    assert code == 0 and out["data"]["counts"]["added"] == 1
    assert cli_json(memdir, "list", "--user", "alice")[1]["data"]["memories"][0]["source_ids"] == ["imp:1"]


def test_cli_extract_refusal_exits_3(memdir: Path) -> None:
    for fact in FACTS:
        cli(memdir, "log", "--user", "alice", "--session", "s1", f"remember: {fact}")
    code, out = cli_json(memdir, "extract", "--user", "alice", "--session", "s1", "--llm", FAKE)
    assert code == 3 and out["data"]["counts"] == {"added": 3, "updated": 0, "superseded": 0, "skipped": 0,
                                                   "refused": 1}


EXTRACTOR = """
import sys
from memctl.api import MemoryStore
MemoryStore(sys.argv[1]).extract("alice", "s1", sys.argv[2])
"""


def test_concurrent_extracts_of_one_session_call_the_model_once(store: MemoryStore, tmp_path: Path) -> None:
    import os
    import subprocess

    log_all(store, "remember: Alice lives in Lisbon", "remember: Alice rides a blue bicycle")
    counter = tmp_path / "calls"
    slow = tmp_path / "slow.sh"
    slow.write_text(f"#!/bin/sh\nsleep 1\nexec {FAKE} --calls {counter} extract\n")
    slow.chmod(0o755)
    use_hashing_embedder(store.root)
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-c", EXTRACTOR, str(store.root), str(slow)], env=env)
             for _ in range(2)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    assert calls(counter) == 1
    assert sorted(m.body for m in MemoryStore(store.root).active()) == ["Alice lives in Lisbon",
                                                                      "Alice rides a blue bicycle"]


@pytest.mark.files_only
def test_a_deeply_nested_extraction_state_is_a_bad_state(store: MemoryStore) -> None:
    store.log("alice", "s1", "I moved to Lisbon last spring")
    path = store.repo.transcripts.state_path("alice", "s1")
    path.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(MemctlError) as raised:
        store.repo.transcripts.read_state("alice", "s1")
    assert raised.value.code == "bad_state"
