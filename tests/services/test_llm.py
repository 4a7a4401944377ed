"""run_llm: a shell-free subprocess with the prompt on stdin, errors as LLMError."""

from __future__ import annotations

import shlex
import stat
import sys
from pathlib import Path

import pytest

from memctl.errors import MemctlError
from memctl.services.llm import LLMError, run_llm

FAKE_MODEL = """\
import sys
prompt = sys.stdin.read()
mode = sys.argv[1] if len(sys.argv) > 1 else "echo"
if mode == "echo":
    sys.stdout.write('{"action": "ADD", "reason": "' + str(len(prompt)) + ' chars"}')
elif mode == "args":
    sys.stdout.write("|".join(sys.argv[2:]))
elif mode == "upper":
    sys.stdout.write(prompt.upper())
elif mode == "fail":
    sys.stderr.write("warming up\\nmodel exploded\\n")
    sys.exit(3)
elif mode == "sleep":
    import time
    time.sleep(5)
"""


@pytest.fixture()
def fake_model(tmp_path: Path) -> str:
    """A command line that runs the fake model script with this interpreter."""
    script = tmp_path / "fake model.py"  # a space in the path exercises quoting
    script.write_text(FAKE_MODEL, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def test_prompt_goes_to_stdin_and_stdout_comes_back(fake_model: str) -> None:
    assert run_llm(fake_model, "hello") == '{"action": "ADD", "reason": "5 chars"}'


def test_unicode_round_trips(fake_model: str) -> None:
    assert run_llm(f"{fake_model} upper", "alice 住在北京") == "ALICE 住在北京"


def test_arguments_are_split_like_a_shell_but_not_interpreted(fake_model: str) -> None:
    out = run_llm(f"{fake_model} args 'two words' $HOME ';' x", "")
    assert out == "two words|$HOME|;|x"


def test_non_zero_exit_raises_with_last_stderr_line(fake_model: str) -> None:
    with pytest.raises(LLMError) as info:
        run_llm(f"{fake_model} fail", "p")
    assert str(info.value) == "LLM command exited with status 3: model exploded"
    assert isinstance(info.value, MemctlError) and info.value.code == "llm"


def test_timeout_raises(fake_model: str) -> None:
    with pytest.raises(LLMError, match=r"timed out after 0\.3s"):
        run_llm(f"{fake_model} sleep", "p", timeout=0.3)


@pytest.mark.parametrize("command,message", [
    ("definitely-not-a-real-llm-binary --json", "not found: definitely-not-a-real-llm-binary"),
    ("", "no LLM command configured"),
    ("llm 'unclosed", "cannot parse LLM command"),
])
def test_unrunnable_commands_raise(command: str, message: str) -> None:
    with pytest.raises(LLMError, match=message):
        run_llm(command, "p")


def test_not_executable_raises(tmp_path: Path) -> None:
    script = tmp_path / "model"
    script.write_text("#!/bin/sh\necho hi\n", encoding="utf-8")
    script.chmod(script.stat().st_mode & ~stat.S_IXUSR & ~stat.S_IXGRP & ~stat.S_IXOTH)
    with pytest.raises(LLMError, match="not executable"):
        run_llm(str(script), "p")


def test_executable_script_runs_directly(tmp_path: Path) -> None:
    script = tmp_path / "model"
    script.write_text("#!/bin/sh\ncat\n", encoding="utf-8")
    script.chmod(0o755)
    assert run_llm(str(script), "same text back\n") == "same text back\n"
