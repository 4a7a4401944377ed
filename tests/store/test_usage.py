"""The usage cache: a recall appends one line; reading folds the lines into the table; nothing is lost."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memctl.store import usage
from memctl.store.usage import UsageLog

AT = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def test_a_use_is_appended_not_rewritten(tmp_path: Path) -> None:
    log = UsageLog(tmp_path)
    (tmp_path / "usage.json").write_text(json.dumps({"a1b2c3d4": {"count": 2, "last_used": None, "sessions": []}}))
    before = (tmp_path / "usage.json").read_bytes()
    log.record(["a1b2c3d4", "0f0f0f0f"], AT, "s1")
    log.record(["a1b2c3d4"], AT, "s2")
    assert (tmp_path / "usage.json").read_bytes() == before  # the table is not rewritten per recall
    assert len((tmp_path / "usage.log").read_text().splitlines()) == 2
    data = log.read()
    assert data["a1b2c3d4"] == {"count": 4, "last_used": "2026-12-01T12:00:00Z", "sessions": ["s1", "s2"]}
    assert data["0f0f0f0f"]["count"] == 1


def test_a_long_log_is_folded_into_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(usage, "FOLD_BYTES", 200)
    log = UsageLog(tmp_path)
    for _ in range(10):
        log.record(["a1b2c3d4"], AT)
    assert (tmp_path / "usage.log").stat().st_size < 200  # folded at least once
    assert json.loads((tmp_path / "usage.json").read_text())["a1b2c3d4"]["count"] >= 1
    assert log.read()["a1b2c3d4"]["count"] == 10


def test_concurrent_recalls_all_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(usage, "FOLD_BYTES", 500)  # folds happen while others append
    log = UsageLog(tmp_path)
    threads = [threading.Thread(target=lambda: [log.record(["a1b2c3d4"], AT) for _ in range(25)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert log.read()["a1b2c3d4"]["count"] == 100


def test_damaged_lines_and_tables_are_skipped(tmp_path: Path) -> None:
    log = UsageLog(tmp_path)
    (tmp_path / "usage.json").write_text("{garbage")
    (tmp_path / "usage.log").write_text('{"ids": ["a1b2c3d4"], "at": "2026-12-01T12:00:00Z"}\nnot json\n[1]\n')
    assert log.read() == {"a1b2c3d4": {"count": 1, "last_used": "2026-12-01T12:00:00Z", "sessions": []}}


def test_reading_an_unused_directory_creates_nothing(tmp_path: Path) -> None:
    assert UsageLog(tmp_path / "cache").read() == {}
    assert not (tmp_path / "cache").exists()


def test_symlinks_in_place_of_the_usage_files_are_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    cache = tmp_path / ".memctl"
    cache.mkdir()
    (cache / "usage.log").symlink_to(outside)
    (cache / "usage.json").symlink_to(outside)
    log = UsageLog(cache)
    assert log.read() == {}  # a link is read as nothing, never through
    log.record(["m1"], datetime(2026, 5, 1, tzinfo=timezone.utc))
    assert outside.read_text() == "keep\n" and not (cache / "usage.log").is_symlink()
    assert log.read()["m1"]["count"] == 1
