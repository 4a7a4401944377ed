"""A reader run on hostile text in a child process, bounded by a generous wall time: a reader that
grows faster than linearly hangs the child, never the test run. No speed is asserted here (speed
targets are in bench/hostile_text.py): the bound is far above what a linear reader takes and far
below what the quadratic ones did on the same input."""

from __future__ import annotations

import os
import subprocess
import sys

WALL_SECONDS = 60.0


def finishes(code: str, seconds: float = WALL_SECONDS) -> bool:
    """Whether `code` (Python, run from the repository's root) ends within `seconds`; an exception in
    it fails the test with its traceback."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=seconds, env=env)
    except subprocess.TimeoutExpired:
        return False
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return True
