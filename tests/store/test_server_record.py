"""The warm server's record: written, read, removed only by its owner, and stale when it cannot be trusted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memctl.store import server_record


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_write_read_remove(memdir: Path) -> None:
    record = server_record.write_record(memdir, "http://127.0.0.1:8765", "1.0")
    assert server_record.read_record(memdir) == record
    assert record["pid"] == os.getpid() and record["root"] == str(memdir.resolve())
    assert server_record.stale_reason(record, memdir) is None
    assert server_record.live_record(memdir) is None  # nothing of this process listens on 8765
    assert not server_record.remove_record(memdir, pid=record["pid"] + 1)  # someone else's: left alone
    assert server_record.remove_record(memdir) and server_record.read_record(memdir) is None
    assert not server_record.remove_record(memdir)


def test_a_record_is_stale_when_its_process_is_gone(memdir: Path) -> None:
    record = server_record.write_record(memdir, "http://127.0.0.1:8765", "1.0")
    path = server_record.record_path(memdir)
    path.write_text(json.dumps({**record, "pid": dead_pid()}))
    assert "is gone" in server_record.stale_reason(server_record.read_record(memdir), memdir)
    assert server_record.live_record(memdir) is None


def test_a_copied_folder_or_a_changed_config_makes_it_stale(memdir: Path, tmp_path: Path) -> None:
    import shutil

    record = server_record.write_record(memdir, "http://127.0.0.1:8765", "1.0")
    copy = tmp_path / "copy"
    shutil.copytree(memdir, copy)
    assert server_record.read_record(copy) is None  # a copy has a cache folder of its own
    server_record.write_record(copy, "http://127.0.0.1:8765", "1.0")
    server_record.record_path(copy).write_text(json.dumps(record))  # the original's record, moved over
    assert "serves" in server_record.stale_reason(server_record.read_record(copy), copy)
    config = memdir / "memctl.toml"
    config.write_text(config.read_text() + "\n# edited\n")
    assert "memctl.toml changed" in server_record.stale_reason(server_record.read_record(memdir), memdir)


def test_an_unreadable_record_is_none(memdir: Path) -> None:
    path = server_record.record_path(memdir)
    path.parent.mkdir(parents=True, exist_ok=True)
    for text in ("{not json", "[]", '{"url": 1, "pid": 2}', '{"url": "http://x:1"}'):
        path.write_text(text)
        assert server_record.read_record(memdir) is None
    path.write_bytes(b"\xff\xfe")
    assert server_record.read_record(memdir) is None


def test_a_record_in_the_shared_folder_is_never_read(memdir: Path) -> None:
    """A forged `.memctl/server.json` (committed to the folder's repository) would send queries, and
    the token, to any URL: the record is read only from this user's own cache folder."""
    forged = {"url": "http://attacker.example:80", "pid": os.getpid(), "host": os.uname().nodename,
              "root": str(memdir.resolve()), "version": "1", "config": server_record.config_stamp(memdir)}
    (memdir / ".memctl").mkdir(exist_ok=True)
    (memdir / ".memctl" / "server.json").write_text(json.dumps(forged))
    assert server_record.read_record(memdir) is None
    assert not server_record.record_path(memdir).is_relative_to(memdir)


def test_a_record_others_could_write_or_a_link_is_not_read(memdir: Path, tmp_path: Path) -> None:
    server_record.write_record(memdir, "http://127.0.0.1:8765", "1.0")
    path = server_record.record_path(memdir)
    os.chmod(path.parent, 0o777)
    assert server_record.read_record(memdir) is None  # anyone could have written it
    os.chmod(path.parent, 0o700)
    assert server_record.read_record(memdir) is not None
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(path.read_text())
    path.unlink()
    path.symlink_to(elsewhere)
    assert server_record.read_record(memdir) is None


def test_a_record_is_trusted_only_for_a_loopback_socket_its_own_process_holds(memdir: Path) -> None:
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        record = server_record.write_record(memdir, url, "1.0")
        assert server_record.examine(memdir) == (record, None)
        for fields, reason in [({"url": "http://192.0.2.1:80"}, "loopback"), ({"url": "https://127.0.0.1:1"}, "loopback"),
                               ({"pid": 1}, "its process 1 "), ({"host": "other"}, "written on 'other'")]:
            assert reason in (server_record.untrusted_reason({**record, **fields}) or "")
    gone = dead_pid()
    server_record.record_path(memdir).write_text(json.dumps({**record, "pid": gone}))
    assert server_record.examine(memdir) == (None, None) and not server_record.record_path(memdir).exists()
