"""The lock every writer takes: exclusive across processes and threads, bounded waits, no symlinks."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memctl.errors import LockTimeout, StoreError
from memctl.store.files import _portable_lock, file_lock

HOLD = """
import sys, time
from pathlib import Path
from memctl.store.files import file_lock
with file_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_lock_held_by_another_process_times_out_then_frees(tmp_path: Path) -> None:
    lock = tmp_path / ".memctl" / "lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(LockTimeout, match="another memctl process holds"), file_lock(lock, timeout=0.2):
            pass
    finally:
        holder.communicate("\n", timeout=30)
    with file_lock(lock, timeout=5):  # released when the holder exits
        pass


def test_threads_of_one_process_exclude_each_other(tmp_path: Path) -> None:
    lock, inside, overlaps = tmp_path / "lock", [], []

    def work() -> None:
        for _ in range(20):
            with file_lock(lock):
                inside.append(1)
                overlaps.append(len(inside))
                time.sleep(0.001)
                inside.pop()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(overlaps) == 80 and max(overlaps) == 1


def test_a_symlink_in_place_of_the_lock_file_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_text("keep")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "lock").symlink_to(outside)
    with pytest.raises(StoreError, match="cannot open the lock file"), file_lock(tmp_path / "d" / "lock"):
        pass
    assert outside.read_text() == "keep"


def test_the_portable_lock_excludes_and_times_out(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    with _portable_lock(lock, timeout=1), pytest.raises(LockTimeout), _portable_lock(lock, timeout=0.1):
        pass
    with _portable_lock(lock, timeout=1):
        pass


def test_append_line_refuses_a_symlink_and_never_writes_through_it(tmp_path: Path) -> None:
    from memctl.store.files import append_line

    outside = tmp_path / "outside"
    outside.write_text("keep\n")
    (tmp_path / "journal.jsonl").symlink_to(outside)
    with pytest.raises(StoreError, match="symbolic link"):
        append_line(tmp_path / "journal.jsonl", "{}")
    assert outside.read_text() == "keep\n"
    assert append_line(tmp_path / "real.jsonl", "{}") == 3
