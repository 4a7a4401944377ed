"""Usage statistics (last used, use count, sessions) kept in the cache, never in memory files.

`usage.json` in this user's cache folder holds the counts; every recall appends one line to `usage.log`
instead of rewriting that file (a server recalling many times a second would otherwise read and
write the whole table each time). Reading folds the log into the table; once the log passes
FOLD_BYTES the next record folds it into usage.json and empties it. Both happen under the usage
lock, so concurrent recalls all count.
"""

from __future__ import annotations

import contextlib
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from memctl.clock import format_timestamp
from memctl.core import jsonsafe
from memctl.store.files import append_line, file_lock, read_text_nofollow, write_atomic

FOLD_BYTES = 256 * 1024  # the log is folded into usage.json once it is this long


class UsageLog:
    """`usage.json` ({id: {"count", "last_used", "sessions"}}) plus the appended `usage.log`."""

    def __init__(self, cache: Path) -> None:
        self.path = cache / "usage.json"
        self.log = cache / "usage.log"

    def read(self) -> dict[str, dict[str, Any]]:
        """Every memory's usage record, by id (empty when the cache is missing or damaged)."""
        if not (self.path.exists() or self.log.exists()):
            return {}  # nothing recorded: do not create .memctl/ just to read
        with file_lock(self.path.with_suffix(".lock")):
            return self._folded()

    def record(self, ids: Iterable[str], at: datetime, session: str | None = None) -> None:
        """Count one use of each id: one appended line (under the lock, so a fold never loses it)."""
        ids = list(ids)
        if not ids:
            return
        line = json.dumps({"ids": ids, "at": format_timestamp(at), "session": session})
        with file_lock(self.path.with_suffix(".lock")):
            if self.log.is_symlink():  # the cache is memctl's own: a link there is replaced, never followed
                self.log.unlink()
            if append_line(self.log, line, durable=False) >= FOLD_BYTES:
                self._fold()

    def _base(self) -> dict[str, dict[str, Any]]:
        try:
            data = jsonsafe.loads(read_text_nofollow(self.path))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _folded(self) -> dict[str, dict[str, Any]]:
        """The table with every logged use applied (caller holds the lock)."""
        data = self._base()
        try:
            lines = read_text_nofollow(self.log).splitlines()
        except (OSError, UnicodeDecodeError):
            lines = []
        for line in lines:
            with contextlib.suppress(ValueError, TypeError, AttributeError):
                use = jsonsafe.loads(line)
                _apply(data, [str(i) for i in use["ids"]], str(use["at"]), use.get("session"))
        return data

    def _fold(self) -> None:
        """Write the folded table, then empty the log (caller holds the lock)."""
        write_atomic(self.path, json.dumps(self._folded(), sort_keys=True), durable=False)
        with contextlib.suppress(OSError):
            os.truncate(self.log, 0)


def _apply(data: dict[str, dict[str, Any]], ids: list[str], at: str, session: str | None) -> None:
    """One use of each id at `at` (a formatted timestamp), in `session` if given."""
    for memory_id in ids:
        entry = data.setdefault(memory_id, {"count": 0, "last_used": None, "sessions": []})
        entry["count"] = int(entry.get("count", 0)) + 1
        entry["last_used"] = at
        if session and session not in entry.setdefault("sessions", []):
            entry["sessions"].append(session)
