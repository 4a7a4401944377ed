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
    assert server_record.live_record(memdir) == record
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

    server_record.write_record(memdir, "http://127.0.0.1:8765", "1.0")
    copy = tmp_path / "copy"
    shutil.copytree(memdir, copy)
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
