"""`[server] auto = true`: the first recall/context/add starts one background server for the folder,
answers in-process, and later commands forward to it; it stops when idle or asked; a record naming a
server this user did not start is ignored with one warning; `auto = false` starts nothing.
Real processes and real HTTP throughout."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from memctl.cli import autostart
from memctl.store import server_record, serverlock
from tests.cli.test_forward import run
from tests.helpers import ServeProcess, http, run_memctl, use_hashing_embedder

NOT_CI = {"CI": ""}  # .ci/run sets CI=true, which turns the automatic server off


def configure(root: Path, auto: bool = True, idle_minutes: float = 5) -> Path:
    use_hashing_embedder(root)
    config = root / "memctl.toml"
    text = re.sub(r"(?m)^auto = .*$", f"auto = {'true' if auto else 'false'}", config.read_text())
    config.write_text(re.sub(r"(?m)^idle_minutes = .*$", f"idle_minutes = {idle_minutes}", text))
    return root


@pytest.fixture
def auto_dir(memdir: Path) -> Iterator[Path]:
    """A folder with `[server] auto = true`, a memory in it, and no server left behind after the test."""
    configure(memdir)
    assert run_memctl(memdir, "add", "Alice drinks espresso in Lisbon", "-u", "alice",
                      env={"MEMCTL_AUTO_SERVE": "0"}).returncode == 0
    yield memdir
    autostart.stop(memdir)


def wait_for(condition, what: str, seconds: float = 90.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def serve_processes(root: Path) -> list[int]:
    """The pids of `memctl ... serve` processes for `root` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in argv and str(root.resolve()).encode() in argv:
            found.append(int(entry))
    return found


def test_the_first_call_answers_in_process_and_later_calls_forward(auto_dir: Path) -> None:
    out, err, code, imported = run(auto_dir, "recall", "espresso", "-u", "alice", "--json", env=NOT_CI)
    assert code == 0 and "memctl.api" in imported and b"warning" not in err  # answered in-process
    record = wait_for(lambda: server_record.live_record(auto_dir), "the server's record")
    assert record["auto"] is True and serverlock.holder(auto_dir) == record["pid"]
    log = serverlock.log_path(auto_dir).read_text()
    assert "listening on http://127.0.0.1:" in log and os.stat(serverlock.log_path(auto_dir)).st_mode & 0o077 == 0
    again, _, code2, imported2 = run(auto_dir, "recall", "espresso", "-u", "alice", "--json", env=NOT_CI)
    assert code2 == 0 and "memctl.api" not in imported2  # forwarded
    assert json.loads(again)["data"]["hits"] == json.loads(out)["data"]["hits"]
    assert serve_processes(auto_dir) == [record["pid"]]


def test_the_server_answers_only_requests_with_its_key(auto_dir: Path) -> None:
    run(auto_dir, "recall", "espresso", env=NOT_CI, trace=False)
    record = wait_for(lambda: server_record.live_record(auto_dir), "the server's record")
    assert http(record["url"], "GET", "/api/health")[0] == 401  # another local user cannot read it
    assert http(record["url"], "GET", "/api/health", headers={"Memctl-Local-Key": record["local_key"]})[0] == 200


def test_two_racing_first_calls_start_one_server(auto_dir: Path) -> None:
    argv = [sys.executable, "-m", "memctl", "-d", str(auto_dir), "recall", "espresso", "-u", "alice"]
    calls = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **NOT_CI})
             for _ in range(4)]
    assert [call.wait(timeout=120) for call in calls] == [0, 0, 0, 0]
    record = wait_for(lambda: server_record.live_record(auto_dir), "the server's record")
    assert serve_processes(auto_dir) == [record["pid"]]
    log = serverlock.log_path(auto_dir).read_text()
    assert log.count("started by pid") == 1


def test_an_idle_server_exits_and_removes_its_record(auto_dir: Path) -> None:
    configure(auto_dir, idle_minutes=0.05)  # 3 seconds
    # The record is watched while the recall that starts the server runs: on a loaded machine that
    # recall can outlast the server's start and its 3 idle seconds (the record came and went before).
    recall = subprocess.Popen([sys.executable, "-m", "memctl", "-d", str(auto_dir), "recall", "espresso"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **NOT_CI})
    try:
        record = wait_for(lambda: server_record.live_record(auto_dir), "the server's record")
        assert recall.wait(timeout=120) == 0
    finally:
        if recall.poll() is None:
            recall.kill()
    wait_for(lambda: not server_record.process_alive(record["pid"]) or None, "the idle server to exit")
    assert server_record.read_record(auto_dir) is None and serverlock.free(auto_dir)
    assert "stopping: no request for 0.05 minutes" in serverlock.log_path(auto_dir).read_text()


def test_serve_stop_stops_it(auto_dir: Path) -> None:
    done = run_memctl(auto_dir, "serve", "--stop")
    assert done.returncode == 0 and b"no server runs for" in done.stderr
    run(auto_dir, "context", "coffee", env=NOT_CI, trace=False)
    record = wait_for(lambda: server_record.live_record(auto_dir), "the server's record")
    manual = run_memctl(auto_dir, "serve", "--port", "0")
    assert manual.returncode == 1 and b"already answers for this directory" in manual.stderr
    done = run_memctl(auto_dir, "serve", "--stop")
    assert done.returncode == 0 and f"stopped pid {record['pid']} ({record['url']})".encode() in done.stderr
    assert not server_record.process_alive(record["pid"]) and server_record.read_record(auto_dir) is None


@pytest.mark.parametrize("auto, env", [(False, NOT_CI), (True, {"MEMCTL_AUTO_SERVE": "0", **NOT_CI}),
                                       (True, {"CI": "true"})])
def test_nothing_starts_unless_asked(memdir: Path, auto: bool, env: dict) -> None:
    configure(memdir, auto=auto)
    for args in (["add", "Bob likes jazz", "-u", "bob"], ["recall", "jazz"], ["context", "music"]):
        assert run_memctl(memdir, *args, env=env).returncode == 0
    # a started server would exist by now: the command returns after starting it
    assert serverlock.free(memdir) and not serve_processes(memdir)
    assert not serverlock.log_path(memdir).exists() and server_record.read_record(memdir) is None


def test_a_dead_servers_record_is_cleaned_up(memdir: Path) -> None:
    configure(memdir, auto=False)
    server = ServeProcess(memdir)
    server.stop(signal.SIGKILL)  # no cleanup: the record stays, naming a dead process
    assert server_record.record_path(memdir).exists()
    _, err, code, imported = run(memdir, "recall", "jazz")
    assert code == 0 and "memctl.api" in imported and b"warning" not in err
    assert not server_record.record_path(memdir).exists()


def _forge(root: Path, **fields: object) -> None:
    """A record that is not stale (this machine, this folder, the current config) but names `fields`."""
    path = server_record.record_path(root)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    record = {"pid": os.getpid(), "host": os.uname().nodename, "root": str(root.resolve()), "version": "1",
              "config": server_record.config_stamp(root), "local_key": "k" * 32, **fields}
    path.write_text(json.dumps(record))
    os.chmod(path, 0o600)


def test_a_forged_record_is_ignored_with_one_warning(memdir: Path) -> None:
    """A live process of this user that does not hold the socket the record names (or a URL off this
    machine) is not a memctl server this user started: nothing is sent there, not even a connection."""
    configure(memdir, auto=False)
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        try:
            for fields, reason in [({"url": f"http://127.0.0.1:{port}", "pid": bystander.pid},
                                    f"its process {bystander.pid} does not listen on port {port}"),
                                   ({"url": "http://10.9.8.7:8765"}, "is not an http:// address on this machine"),
                                   ({"url": f"http://127.0.0.1:{port}", "host": "elsewhere"}, "written on 'elsewhere'")]:
                _forge(memdir, **fields)
                out, err, code, imported = run(memdir, "recall", "jazz", "--json")
                assert code == 0 and "memctl.api" in imported and b'"hits"' in out
                warnings = [line for line in err.decode().splitlines() if "warning" in line]
                assert len(warnings) == 1 and "ignored the server record" in warnings[0] and reason in warnings[0]
                with pytest.raises(BlockingIOError):
                    listener.accept()  # no one connected
        finally:
            bystander.kill()
            bystander.wait()


def test_a_record_others_can_read_is_ignored_with_a_warning(memdir: Path) -> None:
    configure(memdir, auto=False)
    with ServeProcess(memdir):
        os.chmod(server_record.record_path(memdir), 0o644)
        _, err, code, imported = run(memdir, "recall", "jazz")
        assert code == 0 and "memctl.api" in imported
        assert b"other users can read or write it" in err and err.count(b"warning") == 1
