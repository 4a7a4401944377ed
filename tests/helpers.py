"""Test helpers: run the CLI in-process and read its JSON envelope."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from http.client import HTTPConnection
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit

from typer.testing import CliRunner

from memctl.cli.main import full_app

app = full_app()

ROOT = Path(__file__).resolve().parent.parent  # the repository
TESTS = ROOT / "tests"
FAKE_LLM = f"{sys.executable} {TESTS / 'fake_llm.py'}"  # a stand-in LLM command (see fake_llm.py)


def cli(root: Path | None, *args: str, input: str | bytes | None = None, env: dict | None = None):
    """Invoke memctl in-process (CliRunner); returns the click Result."""
    argv = (["-d", str(root)] if root is not None else []) + list(args)
    return CliRunner().invoke(app, argv, input=input, env=env, catch_exceptions=False)


def cli_json(root: Path | None, *args: str, **kwargs: Any) -> tuple[int, dict]:
    """Invoke with --json; returns (exit code, parsed envelope)."""
    result = cli(root, *args, "--json", **kwargs)
    return result.exit_code, json.loads(result.stdout)


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every memory-directory file except caches, for 'nothing changed on disk' checks."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".memctl" not in p.parts}


def memory_texts(root: Path) -> dict[str, bytes]:
    """Every memory of a store as its file: a folder's files (by relative path, MEMORY.md left out), or
    for a database the path and exact text each memory's file has (what `export --to folder` writes)."""
    from memctl.api import MemoryStore

    repo = MemoryStore(root).repo
    if repo.kind == "files":
        return {k: v for k, v in tree_bytes(root).items()
                if k.startswith(("users/", "projects/", "archive/")) and not k.endswith("/MEMORY.md")}
    return {str(m.path): repo.original(m)["text"].encode("utf-8") for m in repo.all_memories()}


def use_hashing_embedder(root: Path) -> Path:
    """For tests that run memctl in another process: configure the directory's model as `hashing`."""
    config = root / "memctl.toml"
    text = re.sub(r'(?m)^second_model = .*\n', "", config.read_text())
    text = re.sub(r'(?m)^model = "(memctl/all-MiniLM-L6-v2-int8|hashing)"\n', 'model = "hashing"\nsecond_model = "none"\n', text)
    config.write_text(text)
    return root


@contextmanager
def http_server(app: Any) -> Iterator[str]:
    """Serve a FastAPI app (memctl.agents.http) with real uvicorn on a free loopback port, in a thread;
    yields its URL."""
    from memctl.agents.serve import bind, make_server, url_of

    sock = bind("127.0.0.1", 0)
    server = make_server(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield url_of(sock)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def http(url: str, method: str, path: str, body: Any = None, headers: dict | None = None,
         chunked: bool = False) -> tuple[int, dict, Any]:
    """One request with http.client: (status, lower-cased headers, parsed JSON body or None if empty)."""
    parts = urlsplit(url)
    conn = HTTPConnection(parts.hostname, parts.port, timeout=30)
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", **(headers or {})}
    try:
        if chunked:  # small bodies in 7-byte chunks, so they really arrive in pieces
            step = 7 if len(data or b"") < 4096 else 65536
            conn.request(method, path, body=iter([data[i:i + step] for i in range(0, len(data or b""), step)]),
                         headers=sent, encode_chunked=True)
        else:
            conn.request(method, path, body=data, headers=sent)
        resp = conn.getresponse()
        raw = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, json.loads(raw) if raw else None
    finally:
        conn.close()


class ServeProcess:
    """`python -m memctl -d ROOT serve --port 0` in a subprocess, ready once .memctl/server.json names it."""

    def __init__(self, root: Path, *extra: str, env: dict | None = None) -> None:
        from memctl.store.server_record import read_record

        use_hashing_embedder(root)
        self.root = root
        self.proc = subprocess.Popen([sys.executable, "-m", "memctl", "-d", str(root), "serve", "--port", "0", *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env={**os.environ, **(env or {})})
        deadline = time.monotonic() + 60
        record = None
        while time.monotonic() < deadline and self.proc.poll() is None:
            record = read_record(root)
            if record and record["pid"] == self.proc.pid:
                break
            time.sleep(0.05)
        if not record or record["pid"] != self.proc.pid:
            self.stop()
            raise RuntimeError(f"memctl serve did not start: {self.proc.stderr.read().decode(errors='replace')}")
        self.url = str(record["url"])

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str]:
        """Stop it (Ctrl-C by default); its exit code and stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(timeout=10)
        return code, self.proc.stderr.read().decode(errors="replace")

    def __enter__(self) -> "ServeProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def run_memctl(root: Path | None, *args: str, input: bytes | None = None, env: dict | None = None,
               cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`python -m memctl [-d ROOT] ARGS` in a subprocess (stdout and stderr as bytes)."""
    argv = [sys.executable, "-m", "memctl", *(["-d", str(root)] if root is not None else []), *args]
    return subprocess.run(argv, input=input if input is not None else b"", capture_output=True, timeout=120,
                          env={**os.environ, **(env or {})}, cwd=cwd)


CLAUDE_FIXTURE = TESTS / "fixtures" / "claude"  # a hand-written Claude Code memory folder


def claude_folder(tmp_path: Path, name: str = "memory") -> Path:
    """A private copy of the fixture Claude Code folder (not yet adopted), safe to change."""
    import shutil

    target = tmp_path / "projects" / "-home-dana-code-ingest" / name
    shutil.copytree(CLAUDE_FIXTURE, target)
    return target
