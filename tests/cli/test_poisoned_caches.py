"""A memory folder cloned from someone else's repository runs none of their code.

The attack (issue 21): whoosh's table of contents is a pickle, `.memctl/` is git-ignored but anyone
can `git add -f` it, so a TOC whose pickled schema calls `os.system` ran the attacker's command on
the victim's first recall after a `git clone`. Here a real git repository holds a malicious pickle
in every cache file memctl reads or ever read from the folder (the keyword index, the catalog, the
vectors and their metadata, the keyword state, usage, the models folder) and a forged server record
pointing at a listener of the test's own. In a fresh clone, recall, list, add and a served search
run under an audit hook (tests/audited.py): the marker file the pickles would create never
appears, no process is started, no cache file in the folder is opened, and nothing reaches the
forged server.
"""

from __future__ import annotations

import json
import os
import pickle
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from memctl.store import server_record
from memctl.store.directory import init_directory
from tests.helpers import http, use_hashing_embedder

AUDITED = Path(__file__).resolve().parent.parent / "audited.py"
MEMORY = ("---\nid: 5ea75ea7\ntype: preference\nscope: user\nuser: alice\nconfidence: 0.9\nsource: user\n"
          "status: active\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\n"
          "Alice prefers window seats on flights.\n")


class Payload:
    """Unpickling this runs a shell command (what the attacker's pickle does)."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple:
        return (os.system, (self.command,))


def poisoned_toc(folder: Path, command: str) -> None:
    """A whoosh table of contents, in whoosh's own format, whose pickled schema runs `command`."""
    from whoosh.fields import ID, Schema
    from whoosh.filedb.filestore import FileStorage
    from whoosh.index import TOC

    from memctl.search.keyword import INDEX_NAME

    class Evil(Schema):
        def __reduce__(self) -> tuple:
            return (os.system, (command,))

    folder.mkdir(parents=True, exist_ok=True)
    for generation in (1, 9):
        TOC(Evil(id=ID(stored=True)), [], generation).write(FileStorage(str(folder)), INDEX_NAME)


def plant(root: Path, command: str) -> None:
    """A malicious pickle in every cache file memctl reads or ever read from `.memctl/`."""
    cache = root / ".memctl"
    blob = pickle.dumps(Payload(command))
    poisoned_toc(cache / "keyword", command)
    for name in ("catalog.bin", "claude-catalog.bin", "usage.json", "usage.log", "keyword-state.json",
                 "keyword-state.digest", "models/model.onnx"):
        (cache / name).parent.mkdir(parents=True, exist_ok=True)
        (cache / name).write_bytes(blob)
    for vectors in ("vectors", "vectors-second"):
        (cache / vectors).mkdir(exist_ok=True)
        np.save(cache / vectors / "vectors.npy", np.array([Payload(command)], dtype=object), allow_pickle=True)
        (cache / vectors / "meta.json").write_text(json.dumps({"identity": "hashing", "dim": 384, "ids": ["5ea75ea7"],
                                                              "hashes": ["x"], "shape": [1, 384], "crc32": 0}))


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=mallory", "-c", "user.email=m@example.invalid", *args], cwd=cwd,
                   check=True, capture_output=True)


def poisoned_clone(tmp_path: Path, marker: Path) -> Path:
    """A repository with a memory and every cache poisoned (committed with `git add -f`), cloned."""
    origin = tmp_path / "origin"
    init_directory(origin)
    use_hashing_embedder(origin)
    (origin / "users" / "alice").mkdir(parents=True)
    (origin / "users" / "alice" / "prefers-window-seats-5ea75ea7.md").write_text(MEMORY)
    plant(origin, f"touch {marker}")
    git("init", "-q", cwd=origin)
    git("add", "-A", cwd=origin)
    git("add", "-f", ".memctl", cwd=origin)
    git("commit", "-q", "-m", "memories", cwd=origin)
    git("clone", "-q", str(origin), str(tmp_path / "clone"), cwd=tmp_path)
    clone = tmp_path / "clone"
    assert (clone / ".memctl" / "keyword").is_dir() and not marker.exists()
    return clone


class Listener:
    """A TCP listener standing in for the attacker's server: it records every connection."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _accept(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.running = False
        self.thread.join(timeout=5)
        self.sock.close()


def forge_server_record(clone: Path, url: str) -> None:
    """What an attacker sharing the folder would write: a live-looking record naming their URL."""
    record = {"url": url, "pid": os.getpid(), "host": os.uname().nodename, "root": str(clone.resolve()),
              "version": "0", "config": server_record.config_stamp(clone), "started": "2026-01-01T00:00:00Z"}
    (clone / ".memctl" / "server.json").write_text(json.dumps(record))


def audited(report: Path, clone: Path, *args: str) -> list[str]:
    return [sys.executable, str(AUDITED), str(report), str(clone), "--", "-d", str(clone), *args]


def events(report: Path) -> list[dict]:
    return [json.loads(line) for line in report.read_text().splitlines()] if report.exists() else []


@pytest.fixture
def attack(tmp_path: Path):
    marker = tmp_path / "pwned"
    clone = poisoned_clone(tmp_path, marker)
    listener = Listener()
    forge_server_record(clone, listener.url)
    yield clone, marker, listener
    listener.close()


@pytest.mark.parametrize("command", [["recall", "seats", "--mode", "keyword"], ["recall", "window seats"],
                                     ["list"], ["add", "Alice keeps her passport in the blue drawer", "-u", "alice"],
                                     ["stats"], ["doctor"]])
def test_a_poisoned_clone_runs_nothing(attack, tmp_path: Path, command: list[str]) -> None:
    clone, marker, listener = attack
    report = tmp_path / "audit.jsonl"
    done = subprocess.run(audited(report, clone, *command), capture_output=True, text=True, timeout=120)
    assert not marker.exists(), "the attacker's pickle ran"
    assert events(report) == []
    assert listener.connections == 0, "the CLI forwarded to the forged server record"
    assert "Traceback" not in done.stderr
    if command[0] in ("recall", "list"):
        assert done.returncode == 0 and ("5ea75ea7" in done.stdout or "window seats" in done.stdout), done.stderr


def test_a_poisoned_clone_served_runs_nothing(attack, tmp_path: Path) -> None:
    clone, marker, listener = attack
    report = tmp_path / "audit.jsonl"
    proc = subprocess.Popen(audited(report, clone, "serve", "--port", "0"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        record = None
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            record = server_record.read_record(clone)
            if record and record["pid"] == proc.pid:
                break
            time.sleep(0.05)
        assert record and record["pid"] == proc.pid, proc.stderr.read().decode() if proc.poll() is not None else ""
        status, _, body = http(record["url"], "GET", "/api/memory/alice/search?q=seats")
        assert status == 200 and [h["id"] for h in body["data"]["hits"]] == ["5ea75ea7"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert not marker.exists(), "the attacker's pickle ran"
    assert events(report) == []
    assert listener.connections == 0
