"""The CLI uses a warm server: the same output either way, a lean forwarding path, and fallbacks."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import typer

from memctl.agents.commands import PARAMS, normalise
from memctl.cli.forward import OPTIONS, POSITIONAL, QUIET, parse
from memctl.cli.main import full_app
from memctl.store.server_record import record_path
from tests.helpers import ServeProcess, run_memctl, use_hashing_embedder

app = full_app()

HEAVY = ("pydantic", "typer", "whoosh", "fastembed", "numpy", "rich", "yaml", "onnxruntime", "memctl.api")


# -- the fast path's parser -----------------------------------------------------------------------

@pytest.mark.parametrize("argv, command, args, flags", [
    (["recall", "seat"], "recall", {"query": "seat"}, {}),
    (["-d", "m", "recall", "seat", "-u", "alice", "--user=bob", "-k", "3", "--json"], "recall",
     {"query": "seat", "users": ["alice", "bob"], "k": 3}, {"directory": "m", "as_json": True}),
    (["--json", "list", "--dir=m", "-n", "5", "-q", "--sort", "importance"], "list",
     {"limit": 5, "sort": "importance"}, {"directory": "m", "as_json": True, "quiet": True}),
    (["add", "-", "--confidence", "0.9", "--no-redact", "--tag", "a", "--tag", "b"], "add",
     {"text": "-", "confidence": 0.9, "redact": False, "tags": ["a", "b"]}, {}),
    (["context", "--explain", "-f", "xml", "q"], "context", {"query": "q", "explain": True, "format": "xml"}, {}),
    (["show", "abcd1234"], "show", {"memory_id": "abcd1234"}, {}),
    (["recall"], "recall", {}, {}),
])
def test_plain_command_lines_are_understood(argv: list[str], command: str, args: dict, flags: dict) -> None:
    inv = parse(argv)
    assert inv is not None and inv.command == command and inv.args == args
    for name, value in flags.items():
        assert getattr(inv, name) == value


@pytest.mark.parametrize("argv", [
    [], ["--version"], ["--help"], ["recall", "--help"], ["compact"], ["--now", "2027-01-01", "recall", "q"],
    ["recall", "q", "-k5"], ["recall", "q", "-k", "0"], ["recall", "q", "-k", "x"], ["recall", "q", "-k"],
    ["add", "t", "--confidence", "1e-1"], ["add", "t", "--confidence", "1.5"], ["recall", "a", "b"],
    ["recall", "--", "-q"], ["recall", "q", "--user", "--json"], ["list", "stray"], ["show", "-q", "abcd"],
    ["recall", "q", "--explain=yes"], ["-q", "list"], ["recall", "q", "-d"], ["recall", "q", "--colour", "red"],
])
def test_anything_else_is_left_to_typer(argv: list[str]) -> None:
    assert parse(argv) is None


def _click_command(name: str) -> Any:
    return typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_the_fast_path_knows_every_option_of_the_command(name: str) -> None:
    """Its option table, argument kinds and defaults are the typer command's: one may not drift."""
    spelled: dict[str, str] = {}
    base = {POSITIONAL[name]: "x"} if name in POSITIONAL else {}
    for param in _click_command(name).params:
        if param.param_type_name == "argument":
            assert POSITIONAL[name] == param.name
            continue
        for opt in [*param.opts, *param.secondary_opts]:
            spelled[opt] = param.name
        if param.name in ("json_", "quiet"):
            continue
        spec = PARAMS[name][param.name]
        assert (spec.kind == "texts") == bool(param.multiple), param.name
        assert (spec.kind in ("flag", "switch")) == bool(param.is_flag), param.name
        assert normalise(name, {**base, param.name: param.default}) == normalise(name, base), param.name
    expected = {opt: target for opt, target in spelled.items() if target not in ("json_", "quiet", "help")}
    assert {opt: target for opt, (target, _) in OPTIONS[name].items()} == expected
    assert (name in QUIET) == ("-q" in spelled)


# -- the same output either way -------------------------------------------------------------------------

def _copy(samples: Path, name: str) -> Path:
    """A copy of the samples with its caches built, as a server would leave them: importance shown by
    `show` and `list --sort importance` uses cached vectors when there are some."""
    target = samples.parent / name
    shutil.copytree(samples, target)
    use_hashing_embedder(target)
    assert run_memctl(target, "reindex").returncode == 0
    return target


def run(root: Path, *args: str, stdin: bytes = b"", env: dict | None = None, cwd: Path | None = None,
        trace: bool = True) -> tuple[bytes, bytes, int, set[str]]:
    """memctl in a fresh process: stdout, stderr (without import traces), exit code, modules imported."""
    argv = [sys.executable, *(["-X", "importtime"] if trace else []), "-m", "memctl",
            *(["-d", str(root)] if root else []), *args]
    done = subprocess.run(argv, input=stdin, capture_output=True, timeout=120, env={**os.environ, **(env or {})},
                          cwd=cwd)
    lines = done.stderr.split(b"\n")
    imported = {line.split(b"|")[-1].strip().decode() for line in lines if line.startswith(b"import time:")}
    stderr = b"\n".join(line for line in lines if not line.startswith(b"import time:"))
    return done.stdout, stderr, done.returncode, imported


INVOCATIONS: list[tuple[list[str], bytes]] = [
    (["show", "d697f1a3"], b""), (["show", "d697f1a3", "--json"], b""), (["show", "abcdef12"], b""),
    (["show", "nothex"], b""), (["list", "--user", "bob"], b""), (["list", "--json", "-u", "alice", "-n", "3"], b""),
    (["list", "-q", "--type", "preference"], b""), (["list", "--sort", "importance", "-p", "checkout-service"], b""),
    (["list", "--sort", "nope"], b""), (["list", "--status", "all", "--tag", "music"], b""),
    (["add", "Bob is a big jazz fan; his favourite album is Kind of Blue by Miles Davis.", "--user", "bob",
      "--type", "preference"], b""),
    (["add", "My card number is 4111 1111 1111 1111", "-u", "bob"], b""),
    (["add", "Bob likes jazz", "--type", "gossip", "-u", "bob"], b""), (["add", "Bob likes jazz"], b""),
    (["recall", "which music does bob like", "-u", "bob"], b""), (["recall", "coffee", "--json", "-k", "2"], b""),
    (["recall", "-q", "--type", "preference", "seat"], b""), (["recall", "jazz", "--explain", "--mode", "keyword"], b""),
    (["recall", "--status", "bogus", "x"], b""), (["recall", "-"], b"where does Alice live"),
    (["recall", "x", "-k5"], b""),  # typer's spelling only: the typer path forwards it
    (["context", "book me a flight", "--user", "alice", "--explain"], b""),
    (["context", "payment errors", "-p", "checkout-service", "--format", "xml", "--json"], b""),
    # main's options since: relevance (--all), facts on add, and an actor (sent along, never dropped)
    (["recall", "coffee", "--all", "-k", "3"], b""), (["recall", "where does Alice live", "--all", "--json"], b""),
    (["--actor", "alice", "recall", "where does Alice live"], b""), (["list", "--actor", "bob", "-u", "alice"], b""),
    (["--actor", "../x", "list"], b""),
]


def test_forwarded_output_is_byte_identical_to_in_process(samples: Path) -> None:
    local, served = _copy(samples, "local"), _copy(samples, "served")
    # Importance decays with time (4 decimals printed): both sides read one pinned instant, the
    # in-process runs through MEMCTL_NOW, the server through its own environment (a forwarded CLI
    # names no time, or it would not forward).
    pinned = {"MEMCTL_NOW": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    expected = [run(local, *args, stdin=stdin, env=pinned)[:3] for args, stdin in INVOCATIONS]
    with ServeProcess(served, env=pinned):
        for (args, stdin), want in zip(INVOCATIONS, expected):
            out, err, code, imported = run(served, *args, stdin=stdin)
            assert (out, err.replace(str(served).encode(), str(local).encode()), code) == want, args
            assert "memctl.api" not in imported, f"{args} ran in-process"
    assert {w[2] for w in expected} == {0, 1, 2, 3, 4} - {1}  # successes, usage errors, refusals, not found


def _masked(text: bytes) -> bytes:
    text = re.sub(rb"\b[0-9a-f]{8}\b", b"ID", text)
    return re.sub(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", b"TIME", text)


def test_a_forwarded_add_writes_what_an_in_process_add_writes(samples: Path) -> None:
    """A new memory gets a fresh id and time on every run: the rest of the output is the same."""
    local, served = _copy(samples, "local"), _copy(samples, "served")
    added = ["add", "Bob started learning the trumpet", "-u", "bob", "--type", "skill", "--tag", "music", "--json"]
    refused = ["add", "My card number is 4111 1111 1111 1111", "-u", "bob", "--json"]
    fact = ["add", "Bob flies to Oslo on the fifth of January", "-u", "bob", "--type", "event", "--occurred",
            "2027-01-05", "--state", "planned", "--name", "Oslo flight", "--during", "s1", "--json"]
    want = [run(local, *args, trace=False) for args in (added, refused, fact)]
    with ServeProcess(served):
        got = [run(served, *args) for args in (added, refused, fact)]
    for g, w in zip(got, want):
        assert "memctl.api" not in g[3] and g[2] == w[2]
        assert _masked(g[0]) == _masked(w[0])
    assert [g[2] for g in got] == [0, 3, 0]
    flight = json.loads(got[2][0])["data"]["memory"]
    assert (flight["occurred"], flight["state"], flight["name"]) == ("2027-01-05", "planned", "Oslo flight")
    written = sorted((served / "users" / "bob").glob("bob-started-learning-the-trumpet-*.md"))
    assert len(written) == 1 and "trumpet" in written[0].read_text()


def test_only_the_cli_of_the_folder_is_believed_when_it_claims_a_source(samples: Path) -> None:
    """A forwarded add sends the key of the folder's server.json, so the server believes its source as
    in-process; any other client of the same endpoint claiming `user` is recorded as `ai`."""
    from memctl.store.server_record import read_record, record_path
    from tests.helpers import http

    served = _copy(samples, "served")
    with ServeProcess(served) as server:
        key = (read_record(served) or {}).get("local_key")
        assert isinstance(key, str) and len(key) >= 24
        assert record_path(served).stat().st_mode & 0o077 == 0  # its owner's only
        body = {"text": "Bob started learning the banjo", "user": "bob", "source": "user"}
        _, _, stranger = http(server.url, "POST", "/api/cli/add", body)
        _, _, cli = http(server.url, "POST", "/api/cli/add", {**body, "text": "Bob started learning the oboe"},
                         headers={"Memctl-Local-Key": key})
        _, _, forged = http(server.url, "POST", "/api/cli/add", {**body, "text": "Bob started learning the harp"},
                            headers={"Memctl-Local-Key": "x" * len(key)})
    assert stranger["data"]["memory"]["source"] == "ai" and forged["data"]["memory"]["source"] == "ai"
    assert cli["data"]["memory"]["source"] == "user"


def test_the_forwarding_path_stays_lean(samples: Path) -> None:
    root = _copy(samples, "lean")
    with ServeProcess(root):
        for args in (["recall", "where does alice live", "--json"], ["recall", "jazz"], ["list", "-q"],
                     ["show", "d697f1a3"], ["context", "flights", "-u", "alice"]):
            _, _, code, imported = run(root, *args)
            heavy = sorted(m for m in imported if m.split(".")[0] in HEAVY or m == "memctl.api")
            assert code == 0 and not heavy, f"{args} imported {heavy}"


# -- when the server is not the one to ask -------------------------------------------------------------

def test_a_stale_record_falls_back_in_process(samples: Path) -> None:
    root = _copy(samples, "stale")
    server = ServeProcess(root)
    server.stop(signal.SIGKILL)  # no cleanup: the record stays, naming a dead process
    assert record_path(root).exists()
    out, _, code, imported = run(root, "recall", "jazz", "-u", "bob", "--json")
    assert code == 0 and b'"hits"' in out and "memctl.api" in imported


def test_pinned_time_a_changed_config_and_an_llm_run_in_process(samples: Path) -> None:
    root = _copy(samples, "pinned")
    with ServeProcess(root):
        assert "memctl.api" in run(root, "--now", "2027-01-01", "recall", "jazz")[3]
        assert "memctl.api" in run(root, "recall", "jazz", env={"MEMCTL_NOW": "2027-01-01"})[3]
        assert "memctl.api" in run(root, "recall", "jazz", env={"MEMCTL_STORE": "postgresql://127.0.0.1:1/none"})[3]
        assert "memctl.api" in run(root, "add", "Bob likes jazz a lot", "-u", "bob", "--llm", "false")[3]
        assert "memctl.api" not in run(root, "recall", "jazz")[3]
        config = root / "memctl.toml"
        config.write_text(config.read_text() + "\n# edited while the server runs\n")
        assert "memctl.api" in run(root, "recall", "jazz")[3]  # the server has the old settings


def test_memctl_server_names_a_server(samples: Path, tmp_path: Path) -> None:
    root = _copy(samples, "named")
    elsewhere = tmp_path / "no-memory-here"
    elsewhere.mkdir()
    with ServeProcess(root) as server:
        out, _, code, _ = run(None, "recall", "jazz", "-u", "bob", "--json", env={"MEMCTL_SERVER": server.url},
                              cwd=elsewhere)
        assert code == 0 and b'"hits"' in out  # in-process there would be no memory directory
    out, err, code, _ = run(None, "list", env={"MEMCTL_SERVER": server.url}, cwd=elsewhere, trace=False)
    assert code == 1 and b"running in-process" in err and b"no memory directory found" in err


def test_a_token_is_sent_when_set(samples: Path) -> None:
    root = _copy(samples, "token")
    token = {"MEMCTL_TOKEN": "tok-tok-tok-tok-tok-tok"}
    with ServeProcess(root, env=token):
        assert "memctl.api" not in run(root, "list", env=token)[3]
        assert "memctl.api" in run(root, "list", env={"MEMCTL_TOKEN": ""})[3]  # refused: in-process instead


def test_stdin_read_once_survives_a_fall_back(samples: Path) -> None:
    done = run_memctl(_copy(samples, "stdin"), "recall", "-", "-u", "alice", "--json", input=b"where does alice live")
    assert done.returncode == 0 and b'"query": "where does alice live"' in done.stdout


def test_the_hashing_helper_keeps_a_single_model_however_often_it_runs(samples: Path) -> None:
    """`_copy` and `ServeProcess` both configure the folder: the second pass once dropped
    `second_model = "none"`, so the server fused the multilingual model and in-process did not
    (recall scores 0.865 forwarded against 0.837 in-process)."""
    from memctl.store.directory import read_config

    root = samples.parent / "twice"
    shutil.copytree(samples, root)
    for _ in range(3):
        use_hashing_embedder(root)
    text = (root / "memctl.toml").read_text()
    assert text.count("second_model") == 1
    embedding = read_config(root).embedding
    assert (embedding.model, embedding.second_model) == ("hashing", "none")
