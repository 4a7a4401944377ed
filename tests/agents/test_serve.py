"""`memctl serve` as a process: it records its address, removes the record when it stops, refuses a
second server for the same directory, replaces a stale record, and needs a token off loopback."""

from __future__ import annotations

import json
import signal
import socket
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from memctl.agents.serve import Watched, Watcher
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


# -- a server on a PostgreSQL database with no folder (serve --store URL) ----------------------------

def _ok(answer: tuple, status: int = 200) -> dict:
    assert answer[0] == status and answer[2]["ok"] is True, answer
    return dict(answer[2]["data"])


def test_serve_store_with_no_folder_answers_every_route_and_writes_nothing(tmp_path: Path, pg_url: str) -> None:
    from tests.postgres import DatabaseServe, hashing_settings

    cwd = tmp_path / "empty"
    cwd.mkdir()
    settings = hashing_settings(tmp_path / "elsewhere" / "team.toml")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with DatabaseServe(cwd, "--store", pg_url, "--config", str(settings), "--user", "alice") as server:
        url = server.url
        assert _ok(http(url, "GET", "/api/health"))["root"] is None
        added = _ok(http(url, "POST", "/api/memory/alice", {"content": "Alice prefers window seats on flights",
                                                           "type": "preference", "tags": "travel"}), 201)
        memory_id = added["memory"]["id"]
        assert http(url, "POST", "/api/memory/alice", {"content": "Alice prefers window seats on flights",
                                                      "type": "preference"})[2]["data"]["decision"]["action"] == "noop"
        _ok(http(url, "POST", "/api/project/shop/memory", {"content": "The checkout runs on Go", "type": "context"}), 201)
        assert [m["id"] for m in _ok(http(url, "GET", "/api/memory/alice"))["memories"]] == [memory_id]
        assert [h["id"] for h in _ok(http(url, "GET", "/api/memory/alice/search?q=window+seat"))["hits"]] == [memory_id]
        assert _ok(http(url, "GET", "/api/project/shop/memory/search?q=checkout"))["hits"]
        assert _ok(http(url, "GET", "/api/memory/alice/tree"))["count"] == 1
        assert _ok(http(url, "GET", f"/api/memory/alice/{memory_id}"))["memory"]["tags"] == ["travel"]
        assert "window seats" in _ok(http(url, "GET", "/api/context?q=book+me+a+flight"))["text"]
        changed = _ok(http(url, "PUT", f"/api/memory/alice/{memory_id}", {"content": "Alice prefers aisle seats"}))
        assert changed["memory"]["content"] == "Alice prefers aisle seats"
        assert _ok(http(url, "POST", "/api/memory/alice/query", {"op": "count", "kind": "trip"}))["value"] == 0
        assert _ok(http(url, "POST", "/api/cli/list", {"user": "alice"}))
        assert _ok(http(url, "DELETE", f"/api/memory/alice/{memory_id}"))["memory"]["status"] == "forgotten"
        code, stderr = server.stop()
    assert code == 0 and "listening on http://127.0.0.1:" in stderr and "Traceback" not in stderr
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # no .memctl/, no server.json
    from memctl.api import MemoryStore

    stored = MemoryStore.on_database(pg_url).list(status="all")
    assert {m.body for m in stored} == {"Alice prefers aisle seats", "The checkout runs on Go"}


def test_config_names_the_database_and_memctl_store_needs_no_memctl_toml(tmp_path: Path, pg_url: str) -> None:
    from memctl.api import MemoryStore
    from tests.postgres import DatabaseServe, hashing_settings

    settings = hashing_settings(tmp_path / "team.toml")
    settings.write_text(settings.read_text().replace('url = ""', f'url = "{pg_url}"'))  # --config's own [store] url
    with DatabaseServe(tmp_path, "--config", str(settings)) as server:
        _ok(http(server.url, "POST", "/api/memory/bob", {"content": "Bob plays the cello"}), 201)
    cwd = tmp_path / "nowhere"
    cwd.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MEMCTL_STORE", pg_url)
        mp.chdir(cwd)  # no memctl.toml here or above
        assert [m.body for m in MemoryStore.open().list()] == ["Bob plays the cello"]
    done = run_memctl(None, "list", "--json", env={"MEMCTL_STORE": pg_url}, cwd=cwd)
    assert done.returncode == 0 and b"Bob plays the cello" in done.stdout, done.stderr
    assert list(cwd.iterdir()) == []


@pytest.mark.model
def test_memctl_store_alone_serves_with_the_shipped_model(tmp_path: Path, pg_url: str) -> None:
    from tests.postgres import DatabaseServe

    with DatabaseServe(tmp_path, env={"MEMCTL_STORE": pg_url}, timeout=120) as server:
        _ok(http(server.url, "POST", "/api/memory/bob", {"content": "Bob repairs old bicycles"}), 201)
        hits = _ok(http(server.url, "GET", "/api/memory/bob/search?q=fixing+a+bike&mode=semantic"))["hits"]
        assert [h["content"] for h in hits] == ["Bob repairs old bicycles"]
    assert "loading the model" in "".join(server.lines) and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("url, message", [
    ("mysql://ann:hunter2secret@db.example/mem", b"no backend for 'mysql://ann:***@db.example/mem'"),
    ("postgresql://ann:hunter2secret@127.0.0.1:1/mem", b"cannot use the PostgreSQL store at postgresql://ann:***@127.0.0.1:1/mem"),
    ("postgresql://ann:hunter2secret@127.0.0.1:notaport/mem", b"invalid integer value"),
    ("postgresql://ann@/mem?host=/nonexistent&password=hunter2secret", b"password=***"),
])
def test_a_bad_or_unreachable_store_is_one_line_exit_2_with_the_password_masked(tmp_path: Path, url: str,
                                                                                message: bytes) -> None:
    done = run_memctl(None, "serve", "--store", url, "--port", "0", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and b"hunter2secret" not in done.stderr + done.stdout
    assert b"Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_store_with_a_folder_or_a_missing_config_is_a_usage_error(memdir: Path, tmp_path: Path) -> None:
    both = run_memctl(memdir, "serve", "--store", "postgresql://127.0.0.1:1/mem", "--port", "0")
    assert both.returncode == 2 and b"--dir names a folder" in both.stderr
    missing = run_memctl(None, "serve", "--config", str(tmp_path / "nope.toml"), "--port", "0", cwd=tmp_path)
    assert missing.returncode == 2 and b"does not exist" in missing.stderr


def test_serve_help_says_a_database_server_writes_no_record() -> None:
    done = run_memctl(None, "serve", "--help", env={"COLUMNS": "200"})
    assert b"--store" in done.stdout and b"no .memctl/server.json" in done.stdout


def test_the_idle_clock_starts_when_the_server_answers() -> None:
    """A warm-up longer than `idle_minutes` (a loaded machine) is no idleness: the server answers for
    the whole idle time after uvicorn started, and then stops."""
    watched = Watched(app=None)
    watched.last -= 60  # built a minute ago, before a long warm-up
    server = SimpleNamespace(started=False, should_exit=False)
    stop = threading.Event()
    watcher = threading.Thread(target=Watcher(server, watched, 0.05, None, stop).run, daemon=True)  # type: ignore[arg-type]
    watcher.start()
    try:
        time.sleep(0.5)
        assert not server.should_exit  # not started yet: nothing counts
        server.started, started = True, time.monotonic()
        watcher.join(60)
        assert server.should_exit and time.monotonic() - started >= 3.0  # idle 0.05 minutes once answering
    finally:
        stop.set()
