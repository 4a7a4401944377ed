"""An attacker's test suite (issue 21): every CLI command, run as `mallory` (nobody's member) against
each hostile folder of tests/hostile.py, under an audit watch. No process is started, no foreign
pickle is loaded, no cache file in the folder and no file outside it is opened, nothing mallory may
not see is printed, and each command ends with a documented exit code and one-line messages (no
traceback: the CLI runs in-process with exceptions raised, so one fails the test).

`mcp` runs in a real process under tests/audited.py with an empty stdin (it starts, reads end of
input and stops); `serve` is left out here (it blocks; tests/cli/test_poisoned_caches.py serves a
poisoned clone under the same hook).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import hostile
from tests.helpers import cli

EXIT_CODES = {0, 1, 2, 3, 4}  # ok, error, usage / bad input, refused by policy, not found
# A journal, transcript folder or template that is a link is never followed: what needs it refuses
# (exit 1, or 2 for the template), and doctor names each.
REFUSED = {"links_outside": {"gate": {1}, "add": {1}, "import": {1}, "log": {1}, "extract": {1}, "index": {2},
                             "compact": {1}}}


def commands(jsonl: Path, export: Path) -> list[tuple[list[str], set[int]]]:
    """Every command, with the exit codes each may end with here (a refusal is fine, not a crash)."""
    return [
        (["list"], {0}), (["list", "--project", "board"], {0}), (["list", "--user", "carol"], {0}),
        (["show", "f6f6f6f1"], {4}), (["show", "f6f6f6f2"], {4}), (["show", "d5d5d5d1"], {4}),
        (["history", "f6f6f6f2"], {4}), (["stats"], {0}),
        (["recall", "layoffs planned January", "--mode", "keyword"], {0}),
        (["recall", "board note layoffs January", "--project", "board"], {0}),
        (["recall", "Carol's own note"], {0}),
        (["context", "layoffs in January", "-u", "mallory", "-p", "board"], {0}),
        (["gate", "Mallory likes jazz", "-u", "mallory"], {0, 3}),
        (["query", "count", "-k", "trip", "-u", "mallory"], {0, 2}), (["check"], {0, 1, 2}), (["kinds"], {0, 1, 2}),
        (["structure", "--dry-run", "--offline"], {0}),
        (["add", "Mallory likes jazz music", "-u", "mallory"], {0, 3}),
        (["add", "Board note: mallory was here", "-p", "board"], {3}),
        (["edit", "d5d5d5d1", "--set", "confidence=0.5"], {4}), (["edit", "f6f6f6f2", "--set", "visibility=public"], {4}),
        (["forget", "f6f6f6f1"], {4}), (["restore", "f6f6f6f2"], {4}),
        (["import", str(jsonl)], {0, 3}), (["export", "--to", "jsonl"], {0}), (["export", "--to", "folder", str(export)], {0}),
        (["log", "remember: Mallory likes chess", "-u", "mallory", "-s", "chat2"], {0}),
        (["extract", "-u", "mallory", "-s", "chat1"], {0, 1, 2}),
        (["dedupe", "--dry-run"], {0}), (["conflicts"], {0}), (["compact", "--dry-run"], {0}), (["compact"], {0}),
        (["index", "--all"], {0, 3}), (["reindex"], {0}), (["doctor"], {0, 1}), (["config", "get", "memory.preset"], {0}),
    ]


@pytest.mark.parametrize("kind", sorted(hostile.FOLDERS))
def test_every_command_against_a_hostile_folder(tmp_path: Path, kind: str) -> None:
    root, outside = tmp_path / "mem", tmp_path / "outside"
    outside.mkdir()
    never = hostile.build(kind, root, outside)
    jsonl = tmp_path / "import.jsonl"
    jsonl.write_text('{"content": "Mallory collects stamps", "type": "fact", "user": "mallory"}\n')
    cache = Path(os.environ["MEMCTL_CACHE_DIR"])
    watch = hostile.watch()
    failures = []
    for args, codes in commands(jsonl, tmp_path / "export"):
        codes = codes | REFUSED.get(kind, {}).get(args[0], set())
        with watch.watching(root, [cache, jsonl, tmp_path / "export"]) as events:
            result = cli(root, "--actor", "mallory", *args, input="")
        problems = [f"{kind}: {e}" for e in events]
        if result.exit_code not in codes or result.exit_code not in EXIT_CODES:
            problems.append(f"exit {result.exit_code}, expected {sorted(codes)}: {result.stderr[-300:]}")
        problems += [f"printed {text!r}" for text in never if text in result.stdout or text in result.stderr]
        errors = [line for line in result.stderr.splitlines() if line.startswith("memctl: error")]
        if len(errors) > 1 or any(not line.startswith("memctl") for line in result.stderr.splitlines()):
            problems.append(f"stderr is not one-line messages: {result.stderr[-300:]!r}")
        failures += [f"{' '.join(args)}: {p}" for p in problems]
    assert not (outside / "pwned").exists(), "the attacker's pickle ran"
    if kind == "links_outside":
        doctor = cli(root, "doctor")
        for name in ("users/eve", "MEMORY.md.template", ".memctl/journal.jsonl", "transcripts/mallory"):
            assert name in doctor.stderr, doctor.stderr
    assert failures == [], "\n".join(failures)


@pytest.mark.parametrize("kind", sorted(hostile.FOLDERS))
def test_mcp_starts_and_stops_on_a_hostile_folder(tmp_path: Path, kind: str) -> None:
    root, outside = tmp_path / "mem", tmp_path / "outside"
    outside.mkdir()
    hostile.build(kind, root, outside)
    report = tmp_path / "audit.jsonl"
    audited = Path(__file__).resolve().parent.parent / "audited.py"
    done = subprocess.run([sys.executable, str(audited), str(report), str(root), "--", "-d", str(root), "--actor",
                           "mallory", "mcp", "--user", "mallory"], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120)
    events = [json.loads(line) for line in report.read_text().splitlines()] if report.exists() else []
    assert events == [] and not (outside / "pwned").exists()
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
