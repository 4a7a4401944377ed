"""JSON that nests past Python's recursion limit, in any file memctl reads back from a folder or its
cache, reads as a damaged file (made again, or a one-line error), never a RecursionError traceback."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.errors import MemctlError
from memctl.store import server_record
from memctl.store.claude import INDEX_RECORD
from memctl.store.directory import init_directory
from memctl.store.hookfiles import read_settings
from memctl.store.kindwords import kept
from memctl.store.usage import UsageLog
from tests.helpers import claude_folder

DEEP = "[" * 20_000 + "]" * 20_000
DEEP_OBJECT = '{"a": ' * 20_000 + "1" + "}" * 20_000


def test_a_deep_usage_table_or_log_line_reads_as_damaged(tmp_path: Path) -> None:
    (tmp_path / "usage.json").write_text(DEEP_OBJECT)
    (tmp_path / "usage.log").write_text(DEEP + "\n" + json.dumps({"ids": ["a1b2c3d4"], "at": "2026-12-01T12:00:00Z"})
                                        + "\n")
    assert UsageLog(tmp_path).read() == {"a1b2c3d4": {"count": 1, "last_used": "2026-12-01T12:00:00Z",
                                                      "sessions": []}}
    UsageLog(tmp_path).record(["a1b2c3d4"], datetime(2026, 12, 2, tzinfo=timezone.utc))


def test_a_deep_cache_file_is_made_again(tmp_path: Path) -> None:
    (tmp_path / "kind-words.json").write_text(DEEP_OBJECT)
    assert kept(tmp_path / "kind-words.json", "key", lambda: {"made": 1}, lambda held: held) == {"made": 1}
    assert json.loads((tmp_path / "kind-words.json").read_text())["value"] == {"made": 1}


def test_a_deep_server_record_is_no_record(memdir: Path) -> None:
    server_record.write_record(memdir, "http://127.0.0.1:8765", "1.0")
    path = server_record.record_path(memdir)
    path.write_text('{"url": "http://127.0.0.1:8765", "pid": 1, "x": ' + "[" * 9_000 + "]" * 9_000 + "}")
    assert server_record.read_record(memdir) is None


def test_deep_hook_settings_are_a_one_line_usage_error(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text(DEEP_OBJECT)
    with pytest.raises(MemctlError, match="not JSON") as caught:
        read_settings(tmp_path / "settings.json")
    assert "\n" not in str(caught.value)


def test_a_deep_record_of_the_claude_index_lines_is_no_record(tmp_path: Path) -> None:
    root = claude_folder(tmp_path)
    init_directory(root, "claude")
    store = MemoryStore(root)
    (root / ".memctl" / INDEX_RECORD).write_text(DEEP_OBJECT)  # the folder's own state: shared, so hostile
    assert store.repo.index_lines() == set()  # type: ignore[attr-defined]
