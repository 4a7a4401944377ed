"""The append-only journal of every mutation (`.memctl/journal.jsonl`): op, id, time, hashes."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from memctl.clock import format_timestamp, now
from memctl.core.models import JournalEntry
from memctl.errors import StoreError
from memctl.store.files import append_line, own_folder, read_tail

MAX_JOURNAL_BYTES = 64 * 1024 * 1024  # read at most this much of the end: the journal is data, read bounded
MAX_LINE_BYTES = 256 * 1024  # an entry holds hashes and a few fields; a longer line is not memctl's


class Journal:
    """One JSON line per mutation, fsynced; unreadable lines are skipped on reading."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, op: str, memory_id: str, before: str | None, after: str | None, *,
               actor: str | None = None, **detail: object) -> JournalEntry:
        """Record one mutation by `actor` (path_before / path_after are top-level fields, the rest detail)."""
        paths = {k: detail.pop(k) for k in ("path_before", "path_after") if k in detail}
        detail["actor"] = actor
        entry = JournalEntry(op=op, id=memory_id, time=format_timestamp(now()), before=before, after=after,
                             detail={k: v for k, v in detail.items() if v is not None}, **paths)  # type: ignore[arg-type]
        own_folder(self.path.parent)
        append_line(self.path, json.dumps(entry.model_dump(exclude_none=True), ensure_ascii=False, sort_keys=True))
        return entry

    def read(self) -> list[JournalEntry]:
        """Every entry, oldest first (of the last MAX_JOURNAL_BYTES); unreadable lines are skipped."""
        own_folder(self.path.parent, create=False)
        try:
            data = read_tail(self.path, MAX_JOURNAL_BYTES)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(f"cannot read the journal {self.path}: {exc.strerror or exc}", code="journal") from None
        entries = []
        for line in data.decode("utf-8", errors="replace").splitlines():
            if len(line) <= MAX_LINE_BYTES:
                with contextlib.suppress(ValueError):
                    entries.append(JournalEntry.model_validate_json(line))
        return entries
