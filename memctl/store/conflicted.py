"""A memory whose file git left conflict-marked: found by id among the files the scan set aside.

Such a file is unreadable (core/conflicts.py), so `show ID` would only say "no memory with id";
this says which file holds it and where the markers are. The file is read bounded, never parsed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

from memctl.core.conflicts import conflict_regions, where
from memctl.store.files import read_bounded

MAX_BYTES = 1024 * 1024  # a memory file is far smaller; a larger one is not looked into
_ID_LINE = re.compile(r"^id:\s*['\"]?([A-Za-z0-9_-]{1,64})", re.MULTILINE)
_MARKED = "unresolved git merge conflict"


def find_conflicted(root: Path, broken: Iterable[tuple[str, str]], memory_id: str,
                    implied_id: Callable[[str], str | None]) -> tuple[str, str] | None:
    """(path, where its markers are) of the conflict-marked file that names `memory_id` (or a
    longer id it starts), by its `id:` lines (either side) or the id its name implies; else None."""
    for rel, message in broken:
        if _MARKED not in message:
            continue
        try:
            text = read_bounded(root / rel, MAX_BYTES).decode("utf-8", errors="replace")
        except OSError:
            continue
        ids = set(_ID_LINE.findall(text)) | {i for i in [implied_id(rel)] if i}
        if any(i.startswith(memory_id) for i in ids):
            return rel, where(conflict_regions(text))
    return None
