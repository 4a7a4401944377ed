"""Whether a memory is still in force: its state is one of those in force and valid_until has not passed."""

from __future__ import annotations

from datetime import datetime
from typing import Collection

from memctl.core.models import Memory


def in_force(memory: Memory, now: datetime, states_in_force: Collection[str]) -> bool:
    """No state counts as active; a state outside `states_in_force` or a past valid_until does not."""
    if memory.state is not None and memory.state != "active" and memory.state not in states_in_force:
        return False
    return memory.valid_until is None or memory.valid_until > now


def force_label(memory: Memory, now: datetime, states_in_force: Collection[str]) -> str | None:
    """A short mark for a memory not in force ("inactive", "cancelled", "ended 2026-03-01"); None when in force."""
    if in_force(memory, now, states_in_force):
        return None
    if memory.valid_until is not None and memory.valid_until <= now:
        return f"ended {memory.valid_until.date().isoformat()}"
    return memory.state
