"""Transcript files: `transcripts/<user>/<session>.jsonl` (append-only) and their extraction watermark.

The watermark (`<session>.state.json`) is part of the record, not a cache: it says which messages
were already turned into memories. The folder is shared like the memories: a transcript is read
bounded (never through a link, never a FIFO), and nothing is read or written through a folder
that is a symbolic link (`transcripts/alice` pointing elsewhere would put a log anywhere).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memctl.core import jsonsafe
from memctl.errors import InvalidMemory, StoreError
from memctl.store.files import append_line, read_bounded, write_atomic
from memctl.store.layout import TRANSCRIPTS_DIR

MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024


class TranscriptStore:
    """The transcripts folder of one memory directory (names are checked by the caller)."""

    def __init__(self, root: Path) -> None:
        self.folder = root / TRANSCRIPTS_DIR

    def path(self, user: str, session: str) -> Path:
        """Where a session's transcript lives (StoreError when a folder on the way is a link)."""
        for folder in (self.folder, self.folder / user):
            if folder.is_symlink():
                raise StoreError(f"{folder} is a symbolic link: memctl does not read or write transcripts through one",
                                 code="symlink")
        return self.folder / user / f"{session}.jsonl"

    def state_path(self, user: str, session: str) -> Path:
        return self.path(user, session).with_suffix(".state.json")

    def raw(self, user: str, session: str) -> bytes | None:
        """The transcript's bytes, or None when it does not exist yet."""
        path = self.path(user, session)
        if not (path.exists() or path.is_symlink()):
            return None
        try:
            return read_bounded(path, MAX_TRANSCRIPT_BYTES)
        except OSError as exc:
            raise StoreError(f"{path}: cannot read the transcript ({exc.strerror or exc})", code="bad_transcript") from None

    def count(self, user: str, session: str) -> int:
        """Messages so far, counted without parsing: one damaged line must not stop logging."""
        data = self.raw(user, session)
        return 0 if data is None else sum(1 for line in data.splitlines() if line.strip())

    def append(self, user: str, session: str, message: dict[str, Any]) -> None:
        """Append one message (fsynced; the caller holds the directory lock)."""
        append_line(self.path(user, session), json.dumps(message, ensure_ascii=False))

    def read_state(self, user: str, session: str) -> dict[str, Any]:
        """The watermark record: {"last_id": ..., "count": ...}; empty when nothing was extracted yet."""
        path = self.state_path(user, session)
        try:
            data = jsonsafe.loads(read_bounded(path, 64 * 1024).decode("utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise InvalidMemory(f"{path}: unreadable extraction state ({exc})", code="bad_state") from None
        return data if isinstance(data, dict) else {}

    def write_state(self, user: str, session: str, state: dict[str, Any]) -> None:
        """Move the watermark (atomic write: a crash leaves the old or the new one)."""
        write_atomic(self.state_path(user, session), json.dumps(state, indent=1, sort_keys=True) + "\n")
