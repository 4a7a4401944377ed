"""Usage statistics (last used, use count, sessions) kept in the cache, never in memory files."""

from __future__ import annotations

import contextlib
import fcntl
import json
from datetime import datetime
from pathlib import Path
from typing import Iterable, Iterator

from memctl.clock import format_timestamp
from memctl.storage import write_atomic


class UsageLog:
    """`.memctl/usage.json`: {id: {"count", "last_used", "sessions"}}; updated under its own lock."""

    def __init__(self, cache: Path) -> None:
        self.path = cache / "usage.json"

    def read(self) -> dict[str, dict]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "a+") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def record(self, ids: Iterable[str], at: datetime, session: str | None = None) -> None:
        """Count one use of each id (read-modify-write under a lock: concurrent recalls add up)."""
        ids = list(ids)
        if not ids:
            return
        with self._locked():
            data = self.read()
            for memory_id in ids:
                entry = data.setdefault(memory_id, {"count": 0, "last_used": None, "sessions": []})
                entry["count"] = int(entry.get("count", 0)) + 1
                entry["last_used"] = format_timestamp(at)
                if session and session not in entry.setdefault("sessions", []):
                    entry["sessions"].append(session)
            write_atomic(self.path, json.dumps(data, sort_keys=True), durable=False)
