"""Usage statistics (last used, use count, sessions) kept in the cache, never in memory files."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from memctl.clock import format_timestamp
from memctl.store.files import file_lock, write_atomic


class UsageLog:
    """`.memctl/usage.json`: {id: {"count", "last_used", "sessions"}}; updated under its own lock."""

    def __init__(self, cache: Path) -> None:
        self.path = cache / "usage.json"

    def read(self) -> dict[str, dict[str, Any]]:
        """Every memory's usage record, by id (empty when the cache is missing or damaged)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def record(self, ids: Iterable[str], at: datetime, session: str | None = None) -> None:
        """Count one use of each id (read-modify-write under a lock: concurrent recalls add up)."""
        ids = list(ids)
        if not ids:
            return
        with file_lock(self.path.with_suffix(".lock")):
            data = self.read()
            for memory_id in ids:
                entry = data.setdefault(memory_id, {"count": 0, "last_used": None, "sessions": []})
                entry["count"] = int(entry.get("count", 0)) + 1
                entry["last_used"] = format_timestamp(at)
                if session and session not in entry.setdefault("sessions", []):
                    entry["sessions"].append(session)
            write_atomic(self.path, json.dumps(data, sort_keys=True), durable=False)
