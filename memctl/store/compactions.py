"""Compaction records (`.memctl/compactions/<plan id>.json`): a plan, what is done, original bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memctl.core import jsonsafe
from memctl.errors import StoreError
from memctl.store.files import read_text_nofollow, write_atomic


class CompactionRecords:
    """The record of each compaction, written before it is applied and after each action."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def save(self, record: dict[str, Any]) -> None:
        """Write a record atomically (a crash leaves the previous or the new version); never through
        a link, which would put every touched memory's bytes outside the folder."""
        if self.folder.is_symlink():
            raise StoreError(f"{self.folder} is a link: memctl writes no compaction record through one "
                             "(remove it)", code="linked_state")
        write_atomic(self.folder / f"{record['plan_id']}.json", json.dumps(record, ensure_ascii=False, indent=1))

    def last(self) -> dict[str, Any] | None:
        """The newest readable record, or None."""
        shared = self.folder.is_dir() and not self.folder.is_symlink()  # a link would lead out of the folder
        records = sorted(self.folder.glob("*.json")) if shared else []
        for path in reversed(records):
            try:
                data = jsonsafe.loads(read_text_nofollow(path))  # the folder's: no link, no FIFO, bounded
            except (OSError, ValueError):
                continue
            if isinstance(data, dict):
                return data
        return None
