"""Shell completion: scripts for bash, zsh and fish, and candidates from the generated table, fast."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.cli.complete import SHELLS, candidates
from tests.helpers import cli

HEAVY = ("typer", "pydantic", "rich", "click", "memctl.api", "yaml")


def tab(line: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[list[str], set[str]]:
    """Complete the last word of `line` (after a space: a new word) as bash's script asks; the
    candidates and the modules the process imported."""
    words = line.split()
    cword = len(words) if line.endswith(" ") else len(words) - 1
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "memctl"], capture_output=True, text=True,
                          env={**os.environ, **(env or {}), "COMP_WORDS": line, "COMP_CWORD": str(cword),
                               "_MEMCTL_COMPLETE": "bash"}, cwd=cwd, timeout=60)
    assert done.returncode == 0, done.stderr
    imported = {ln.split("|")[-1].strip() for ln in done.stderr.splitlines() if ln.startswith("import time:")}
    return done.stdout.split(), imported


@pytest.mark.parametrize("shell", SHELLS)
def test_show_completion_prints_a_script_for_each_shell(shell: str) -> None:
    done = subprocess.run([sys.executable, "-m", "memctl", "--show-completion", shell], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "_MEMCTL_COMPLETE" in done.stdout and shell in done.stdout
    assert "_MEMCTL_COMPLETE" in cli(None, "--show-completion", shell).stdout  # the typer app says the same


def test_an_unknown_shell_is_a_usage_error() -> None:
    done = subprocess.run([sys.executable, "-m", "memctl", "--show-completion", "tcsh"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "bash, zsh, fish" in done.stderr and not done.stdout


def test_a_tab_offers_commands_options_and_values_without_loading_typer(memdir: Path) -> None:
    memory = MemoryStore(memdir).add_raw("Alice prefers window seats on flights", type="preference", user="alice")
    modes, imported = tab("memctl recall --mode ")
    assert modes == ["hybrid", "keyword", "semantic"]
    assert not {m for m in imported if m.split(".")[0] in HEAVY or m == "memctl.api"}
    assert tab("memctl re")[0] == ["restore", "recall", "reindex"]
    assert {"--user", "--subtype", "--mode", "-k"} <= set(tab("memctl recall -")[0])
    assert tab(f"memctl -d {memdir} show ")[0] == [memory.id]
    assert tab(f"memctl -d {memdir} recall q --user ")[0] == ["alice"]
    assert tab(f"memctl -d {memdir} list --type pre")[0] == ["preference"]
    assert tab("memctl config get memory.pre")[0] == ["memory.preset"]
    assert tab("memctl list --sort imp")[0] == ["importance"]


def test_candidates_skip_option_values_and_count_positionals() -> None:
    env: dict[str, str] = {}
    assert candidates(["config"], "", env) == ["get", "set"]
    assert "memory.preset" in candidates(["config", "get"], "", env)
    assert candidates(["--now", "2026-01-01", "recall", "q", "--mode"], "", env) == ["hybrid", "keyword", "semantic"]
    assert candidates(["recall", "q", "--explain"], "", env) == []  # a flag takes no value
