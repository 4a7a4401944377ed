"""Shell habits: help with every word, plain in a pipe; whole content in a pipe; "nothing" on stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.cli import output
from tests.helpers import cli

LONG = ("Alice keeps a detailed packing list for every trip: passport, two chargers, the blue notebook, "
        "a spare pair of glasses and the travel adapter for the UK")


def memctl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memctl", *args], capture_output=True, text=True, timeout=120)


def test_piped_help_is_plain_text_with_every_word() -> None:
    text = memctl("recall", "--help").stdout
    assert "╭" not in text and "│" not in text and "\x1b[" not in text
    assert "[recall] k, 5" in text and "[recall] min_relevance" in text
    assert "╭" not in memctl("--help").stdout


def test_help_on_a_terminal_keeps_bracketed_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(output, "is_terminal", lambda: True)
    text = cli(None, "recall", "--help").stdout
    assert "[recall] k, 5" in text.replace("\n", " ") or "[recall]" in text
    assert "(default:  k, 5)" not in text  # the markup no longer swallows it


def test_piped_list_and_recall_show_the_whole_content(memdir: Path) -> None:
    MemoryStore(memdir).add_raw(LONG, type="fact", user="alice")
    listed = memctl("-d", str(memdir), "list").stdout
    assert listed.rstrip("\n").split("\t")[-1] == LONG and "…" not in listed
    recalled = memctl("-d", str(memdir), "recall", "packing list passport", "--all").stdout
    assert LONG in recalled and "…" not in recalled


def test_nothing_found_is_said_on_stderr(memdir: Path) -> None:
    done = memctl("-d", str(memdir), "recall", "anything at all")
    assert done.returncode == 0 and done.stdout == "" and "no memories found" in done.stderr
