"""`memctl serve` as a process: it records its address, removes the record when it stops, refuses a
second server for the same directory, replaces a stale record, and needs a token off loopback."""

from __future__ import annotations

import json
import signal
import socket
from pathlib import Path

import pytest

from memctl.store import server_record
from tests.helpers import ServeProcess, http, run_memctl, use_hashing_embedder
from tests.store.test_server_record import dead_pid

TOKEN = "a-long-enough-test-token-42"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_record_lives_as_long_as_the_server(memdir: Path, sig: int) -> None:
    server = ServeProcess(memdir)
    record = server_record.read_record(memdir)
    assert record["url"] == server.url and record["pid"] == server.proc.pid and record["root"] == str(memdir.resolve())
    assert http(server.url, "GET", "/api/health")[2]["data"]["root"] == str(memdir.resolve())
    code, stderr = server.stop(sig)
    assert code == 0 and "listening on http://127.0.0.1:" in stderr
    assert "memctl serve: stopped (http://127.0.0.1:" in stderr and "warning" not in stderr
    assert server_record.read_record(memdir) is None


def test_a_second_server_for_the_same_directory_is_refused(memdir: Path) -> None:
    with ServeProcess(memdir) as first:
        second = run_memctl(memdir, "serve", "--port", "0")
        assert second.returncode == 1 and b"already answers for this directory" in second.stderr
        assert server_record.read_record(memdir)["pid"] == first.proc.pid


def test_a_stale_record_is_replaced(memdir: Path) -> None:
    path = server_record.record_path(memdir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"url": "http://127.0.0.1:9", "pid": dead_pid(), "host": socket.gethostname(),
                                "root": str(memdir.resolve())}))
    with ServeProcess(memdir) as server:
        assert server_record.read_record(memdir)["pid"] == server.proc.pid


@pytest.mark.parametrize("token, message", [(None, b"without a token"), ("short", b"too short")])
def test_a_remote_host_without_a_good_token_does_not_start(memdir: Path, token: str | None, message: bytes) -> None:
    use_hashing_embedder(memdir)
    done = run_memctl(memdir, "serve", "--host", "0.0.0.0", "--port", "0",
                      env={"MEMCTL_TOKEN": token} if token else {"MEMCTL_TOKEN": ""})
    assert done.returncode == 2 and message in done.stderr and b"MEMCTL_TOKEN" in done.stderr
    assert server_record.read_record(memdir) is None


def test_a_remote_host_with_a_token_serves_only_with_it(memdir: Path) -> None:
    with ServeProcess(memdir, "--host", "0.0.0.0", env={"MEMCTL_TOKEN": TOKEN}) as server:
        assert server.url.startswith("http://127.0.0.1:")  # the record names the address a local client uses
        assert http(server.url, "GET", "/api/health")[0] == 401
        assert http(server.url, "GET", "/api/health", headers={"Authorization": f"Bearer {TOKEN}"})[0] == 200


def test_a_taken_port_is_one_line(memdir: Path) -> None:
    with ServeProcess(memdir) as server:
        other = memdir.parent / "other"
        run_memctl(None, "init", str(other))
        use_hashing_embedder(other)
        done = run_memctl(other, "serve", "--port", server.url.rsplit(":", 1)[1])
        assert done.returncode == 1 and b"cannot listen on 127.0.0.1:" in done.stderr
        assert b"Traceback" not in done.stderr


def test_the_socket_says_tcp_so_asyncio_turns_nagle_off() -> None:
    """With proto 0, asyncio leaves Nagle on, and a kept-alive client waits ~40 ms per response."""
    from memctl.agents.serve import bind

    sock = bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()
