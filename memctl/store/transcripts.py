"""Transcript files: `transcripts/<user>/<session>.jsonl` (append-only) and their extraction watermark.

The watermark (`<session>.state.json`) is part of the record, not a cache: it says which messages
were already turned into memories.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memctl.errors import InvalidMemory
from memctl.store.files import append_line, write_atomic
from memctl.store.layout import TRANSCRIPTS_DIR


class TranscriptStore:
    """The transcripts folder of one memory directory (names are checked by the caller)."""

    def __init__(self, root: Path) -> None:
        self.folder = root / TRANSCRIPTS_DIR

    def path(self, user: str, session: str) -> Path:
        """Where a session's transcript lives."""
        return self.folder / user / f"{session}.jsonl"

    def state_path(self, user: str, session: str) -> Path:
        return self.path(user, session).with_suffix(".state.json")

    def raw(self, user: str, session: str) -> bytes | None:
        """The transcript's bytes, or None when it does not exist yet."""
        path = self.path(user, session)
        return path.read_bytes() if path.exists() else None

    def count(self, user: str, session: str) -> int:
        """Messages so far, counted without parsing: one damaged line must not stop logging."""
        path = self.path(user, session)
        if not path.exists():
            return 0
        with open(path, "rb") as handle:
            return sum(1 for line in handle if line.strip())

    def append(self, user: str, session: str, message: dict[str, Any]) -> None:
        """Append one message (fsynced; the caller holds the directory lock)."""
        append_line(self.path(user, session), json.dumps(message, ensure_ascii=False))

    def read_state(self, user: str, session: str) -> dict[str, Any]:
        """The watermark record: {"last_id": ..., "count": ...}; empty when nothing was extracted yet."""
        path = self.state_path(user, session)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise InvalidMemory(f"{path}: unreadable extraction state ({exc})", code="bad_state") from None
        return data if isinstance(data, dict) else {}

    def write_state(self, user: str, session: str, state: dict[str, Any]) -> None:
        """Move the watermark (atomic write: a crash leaves the old or the new one)."""
        write_atomic(self.state_path(user, session), json.dumps(state, indent=1, sort_keys=True) + "\n")
