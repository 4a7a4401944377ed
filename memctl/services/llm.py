"""Run a user-configured LLM command: the prompt goes to stdin, the answer comes from stdout.

memctl never talks to a model API itself (no network at run time); any local or
remote model the user can call from a shell (`llm -m ...`, `ollama run ...`,
a script) plugs in through this one function.
"""

from __future__ import annotations

import os
import shlex
import subprocess

from memctl.errors import MemctlError

_STDERR_CHARS = 200
LLM_ENV = "MEMCTL_LLM"


def configured_llm() -> str | None:
    """The LLM command the person configured (MEMCTL_LLM), or None. Never read from the memory
    folder: a shared folder's memctl.toml is untrusted input and must not name a command memctl runs."""
    return os.environ.get(LLM_ENV, "").strip() or None


class LLMError(MemctlError):
    """The LLM command could not be run, failed, or timed out."""

    code = "llm"


def _last_line(text: str) -> str:
    """The last non-empty line of a command's stderr, shortened: errors stay one line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:_STDERR_CHARS] if lines else ""


def run_llm(command: str, prompt: str, *, timeout: float = 120) -> str:
    """Run `command` (split like a shell, but no shell) with `prompt` on stdin; return stdout.

    Every secret in the prompt is masked first: no password, token or card number a conversation or a
    memory holds ever reaches a model, whichever caller built the prompt."""
    from memctl.policy.secrets import mask

    prompt = mask(prompt)
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise LLMError(f"cannot parse LLM command {command!r}: {exc}") from exc
    if not argv:
        raise LLMError("no LLM command configured")
    try:
        done = subprocess.run(
            argv, input=prompt, capture_output=True, text=True,
            encoding="utf-8", errors="replace", timeout=timeout, check=False,
        )
    except FileNotFoundError as exc:
        raise LLMError(f"LLM command not found: {argv[0]}") from exc
    except PermissionError as exc:
        raise LLMError(f"LLM command is not executable: {argv[0]}") from exc
    except subprocess.TimeoutExpired as exc:
        raise LLMError(f"LLM command timed out after {timeout:g}s: {argv[0]}") from exc
    if done.returncode != 0:
        detail = _last_line(done.stderr)
        raise LLMError(f"LLM command exited with status {done.returncode}"
                       + (f": {detail}" if detail else ""))
    return done.stdout
