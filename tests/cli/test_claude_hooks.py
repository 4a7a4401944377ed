"""`memctl hooks install claude`, driven the way Claude Code drives it: the settings file's command
line run by a shell with the hook's JSON on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memctl.api import MemoryStore
from memctl.cli.claude_hooks import claude_messages, with_hooks, without_hooks
from memctl.store.directory import init_directory
from tests.helpers import use_hashing_embedder

FAKE_LLM = f"{sys.executable} {Path(__file__).parent.parent / 'fake_llm.py'} extract"
THEIRS = {"model": "opus", "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done"}]}],
                                     "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command",
                                                                                         "command": "echo hi"}]}]}}


def memctl(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memctl", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


@pytest.fixture
def installed(tmp_path: Path, request: pytest.FixtureRequest) -> tuple[Path, Path]:
    """A memory folder with two memories, and a project whose settings file has memctl's hooks
    beside settings of its own (the test embedder, unless the test is about relevance: `model`)."""
    init_directory(tmp_path / "mem")
    root = tmp_path / "mem"
    if request.node.get_closest_marker("model") is None:
        use_hashing_embedder(root)
    store = MemoryStore(root)
    store.add_raw("Alice prefers window seats on flights", type="preference", user="alice")
    store.add_raw("The shop checkout service is written in Go", type="context", project="shop")
    project = tmp_path / "shop"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(THEIRS))
    done = memctl("-d", str(root), "hooks", "install", "claude", "--project", str(project), "--memory-user", "alice",
                  "--llm", FAKE_LLM)
    assert done.returncode == 0, done.stderr
    return root, project


def hook(project: Path, event: str, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """Run the event's memctl command from the settings file as Claude Code does: `sh -c`, JSON on stdin."""
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    commands = [h["command"] for group in settings["hooks"][event] for h in group["hooks"] if "memctl" in h["command"]]
    assert len(commands) == 1
    payload = {"session_id": "s-1", "transcript_path": str(project / "t.jsonl"), "cwd": str(project),
               "hook_event_name": event, **payload}
    return subprocess.run(["sh", "-c", commands[0]], input=json.dumps(payload), capture_output=True, text=True,
                          timeout=120, cwd=project)


def test_install_keeps_the_settings_file_and_uninstall_removes_only_memctls(installed: tuple[Path, Path]) -> None:
    root, project = installed
    path = project / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    assert settings["model"] == "opus" and settings["hooks"]["Stop"] == THEIRS["hooks"]["Stop"]
    assert settings["hooks"]["SessionStart"][0] == THEIRS["hooks"]["SessionStart"][0]
    assert set(settings["hooks"]) == {"Stop", "SessionStart", "UserPromptSubmit", "SessionEnd", "PreCompact"}
    again = memctl("-d", str(root), "hooks", "install", "claude", "--project", str(project), "--memory-user", "alice")
    assert again.returncode == 0 and len(json.loads(path.read_text())["hooks"]["UserPromptSubmit"]) == 1  # replaced
    gone = memctl("hooks", "uninstall", "claude", "--project", str(project))
    assert gone.returncode == 0, gone.stderr
    assert json.loads(path.read_text()) == THEIRS


@pytest.mark.model  # what is relevant to a prompt is the real model's judgement (recall's min_relevance)
def test_the_hooks_as_claude_code_runs_them(installed: tuple[Path, Path]) -> None:
    root, project = installed
    start = hook(project, "SessionStart", {"source": "startup"})
    assert start.returncode == 0 and "window seats" in start.stdout and "written in Go" in start.stdout
    related = hook(project, "UserPromptSubmit", {"prompt": "Book my flights, and remember the seats I like"})
    assert related.returncode == 0 and "Alice prefers window seats on flights" in related.stdout
    unrelated = hook(project, "UserPromptSubmit", {"prompt": "How many moons does Jupiter have?"})
    assert unrelated.returncode == 0 and unrelated.stdout == ""

    lines = [{"type": "summary", "summary": "x"},
             {"type": "user", "message": {"role": "user", "content": "remember: Alice is allergic to peanuts"}},
             {"type": "assistant", "message": {"role": "assistant", "content": [
                 {"type": "text", "text": "Noted."}, {"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]}},
             {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "content": "ok"}]}}]
    (project / "t.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines) + "{broken\n")
    for event in ("PreCompact", "SessionEnd"):  # both fire: each message is logged and extracted once
        ended = hook(project, event, {"reason": "other"})
        assert ended.returncode == 0 and ended.stdout == "", ended.stderr
    store = MemoryStore(root)
    assert [m.content for m in store.transcript("alice", "s-1")] == ["remember: Alice is allergic to peanuts", "Noted."]
    stored = [m for m in store.list(user="alice") if "peanuts" in m.content]
    assert len(stored) == 1 and stored[0].source == "auto"


def test_a_broken_directory_prints_nothing_exits_0_and_logs_why(installed: tuple[Path, Path], tmp_path: Path) -> None:
    root, project = installed
    (root / "memctl.toml").write_text("this is [not toml")
    (project / "t.jsonl").write_text(json.dumps({"type": "user", "message": {"content": "remember: Alice likes tea"}}))
    for event in ("SessionStart", "UserPromptSubmit", "SessionEnd"):
        done = hook(project, event, {"prompt": "window seats"})
        assert (done.returncode, done.stdout) == (0, "")
    log = Path(os.environ["MEMCTL_CACHE_DIR"]) / "hooks.log"
    lines = log.read_text().splitlines()
    assert len(lines) == 3 and all("claude" in line and "memctl.toml" in line for line in lines)


def test_settings_entries_and_transcript_messages() -> None:
    settings = with_hooks({"env": {"A": "1"}}, "memctl hooks run claude --memory-user a")
    assert settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"].endswith(" UserPromptSubmit")
    assert without_hooks(settings) == {"env": {"A": "1"}}
    assert claude_messages('{"type": "user", "isMeta": true, "message": {"content": "x"}}\n[1]\n') == []
