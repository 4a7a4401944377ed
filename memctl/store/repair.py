"""Leftovers of interrupted writes, found in a snapshot (pure) so the next write can finish them.

Archiving renames a file into archive/ first and marks it second; restoring renames it back
first and unmarks it second. Each move journals its intent before the rename, so a process
killed between the two steps leaves a file whose location and status disagree and an intent that
says which way it was going. Temp files (`.<name>.<random>.tmp`) are left by a write killed before
its rename; under the write lock no other writer can own one, so they are removed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from memctl.core.models import JournalEntry
from memctl.store.layout import is_archived

INTENT_OP = "intent"


@dataclass
class Leftovers:
    """What an interrupted write left behind."""

    temps: list[str] = field(default_factory=list)
    misfiled: list[str] = field(default_factory=list)  # rel paths whose folder and status disagree

    def __bool__(self) -> bool:
        return bool(self.temps or self.misfiled)


def find_leftovers(records: Sequence[tuple[str, dict[str, Any]]], temps: Sequence[str]) -> Leftovers:
    """Temp files, and memories in archive/ marked active or in an active folder marked archived."""
    misfiled = [rel for rel, d in records if is_archived(rel) == (d.get("status", "active") == "active")]
    return Leftovers(temps=list(temps), misfiled=misfiled)


def last_intent(entries: Sequence[JournalEntry], memory_id: str) -> JournalEntry | None:
    """The newest move intent journaled for a memory, if its move was never completed."""
    for entry in reversed(entries):
        if entry.id != memory_id:
            continue
        return entry if entry.op == INTENT_OP else None
    return None


def finish(status: str, location_archived: bool, intent: JournalEntry | None) -> dict[str, Any]:
    """The fields that make a misfiled memory consistent again.

    In archive/ but active: the archive was interrupted; take the intended status and links (or a
    plain `archived` when no intent survives). In an active folder but archived: a restore was
    interrupted when the intent says so; otherwise someone set the status by hand, so the memory
    belongs in the archive and keeps its status."""
    detail = intent.detail if intent is not None else {}
    if location_archived:
        return {"status": detail.get("status", "archived"),
                "archived_reason": detail.get("reason") or "archiving was interrupted; finished on the next write",
                **{k: v for k, v in detail.items() if k in ("superseded_by", "merged_into")}}
    if detail.get("status") == "active":
        return {"status": "active"}
    return {"status": status, "move_to_archive": True}
