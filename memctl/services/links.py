"""Conflict links recorded on stored memories: "a newer memory possibly conflicts with this one".

A new memory lists the stored ones it may conflict with in its own `conflicts_with`, and each of
those gets the new id in theirs. A batch of adds (an import) links the same stored memories again
and again, so the links wait here until the lock hold ends (or until the memory is read for a
write or a result) and each memory is rewritten once, with all of its new links.
"""

from __future__ import annotations

from typing import Any, Iterable

from memctl.core.models import Memory
from memctl.errors import MemctlError
from memctl.store.repository import ReadsAndWrites


def link_conflict(repo: ReadsAndWrites, memory_id: str, other: str, actor: str | None) -> None:
    """Record on a stored memory that a newer one possibly conflicts with it (caller holds the lock);
    journaled as `actor`'s."""
    link_conflicts(repo, repo.get(memory_id), [other], actor)


def link_conflicts(repo: ReadsAndWrites, stored: Memory, others: list[str], actor: str | None) -> None:
    """Record on a stored memory that newer ones possibly conflict with it, in one rewrite (caller
    holds the lock), journaled as one `link` entry: `other` the first new id, `also` the rest."""
    linked = with_links(stored, others)
    if linked is not None:
        repo.rewrite(linked[0], "link", actor=actor, **linked[1])


def with_links(stored: Memory, others: list[str]) -> tuple[Memory, dict[str, Any]] | None:
    """The stored memory with the new links added, and its journal entry's detail (None: no new link)."""
    new = [other for other in dict.fromkeys(others) if other not in stored.conflicts_with]
    if not new:
        return None
    data = stored.model_dump(exclude={"path"})
    data["conflicts_with"] = [*stored.conflicts_with, *new]
    return Memory(**data, path=stored.path), {"other": new[0], "also": new[1:] or None}


def restore_back_links(repo: ReadsAndWrites, memory_ids: Iterable[str], actor: str | None) -> list[str]:
    """Record on each active memory an active one of `memory_ids` lists as conflicting the link back
    that it lacks (caller holds the lock): what a write killed before its lock hold ended leaves (the
    new memory names the stored one; the stored one's link waited here). The ids given back a link
    (one whose rewrite failed, e.g. changed on disk since it was read, is left for the next run)."""
    pending, asked = PendingLinks(), dict[str, list[str]]()
    for memory in _active(repo, memory_ids):
        for other in _active(repo, memory.conflicts_with):
            if memory.id not in other.conflicts_with:
                pending.add(other.id, memory.id)
                asked.setdefault(other.id, []).append(memory.id)
    pending.flush(repo, actor)
    return [target for target, ids in asked.items() if not any(i in pending.failed for i in ids)]


def _active(repo: ReadsAndWrites, memory_ids: Iterable[str]) -> list[Memory]:
    out = []
    for memory_id in dict.fromkeys(memory_ids):
        try:
            memory = repo.get(memory_id)
        except MemctlError:  # gone, or never there (a link names what it names)
            continue
        if repo.is_active(memory):
            out.append(memory)
    return out


class PendingLinks:
    """Links to record, by stored memory id, in the order they were asked for; `failed` holds the
    error a memory's rewrite raised, by the new ids whose links it was to record."""

    def __init__(self) -> None:
        self._links: dict[str, list[str]] = {}
        self.failed: dict[str, MemctlError] = {}

    def __bool__(self) -> bool:
        return bool(self._links)

    def add(self, memory_id: str, other: str) -> None:
        self._links.setdefault(memory_id, []).append(other)

    def flush(self, repo: ReadsAndWrites, actor: str | None, only: str | None = None) -> None:
        """Write the pending links (of `only`, when given: a memory about to be read or changed)."""
        targets = list(self._links) if only is None else [only] if only in self._links else []
        stored: dict[str, Memory | MemctlError] = {}
        for memory_id in targets:  # all read first: the writes then patch the repository's snapshot once
            try:
                stored[memory_id] = repo.get(memory_id)
            except MemctlError as exc:
                stored[memory_id] = exc
        asked = {memory_id: self._links.pop(memory_id) for memory_id in targets}
        linked = []
        for memory_id, others in asked.items():
            memory = stored[memory_id]
            if isinstance(memory, MemctlError):
                self.failed.update(dict.fromkeys(others, memory))
            elif (change := with_links(memory, others)) is not None:
                linked.append(change)
        for memory_id, error in _rewrite(repo, linked, actor).items():  # e.g. the file changed on disk:
            self.failed.update(dict.fromkeys(asked[memory_id], error))  # the adds that asked say so

    def take_failed(self, memory_id: str) -> MemctlError | None:
        """The error recording `memory_id`'s links raised, if any (then forgotten)."""
        return self.failed.pop(memory_id, None)


def _rewrite(repo: ReadsAndWrites, linked: list[tuple[Memory, dict[str, Any]]], actor: str | None) -> dict[str, MemctlError]:
    """Rewrite the linked memories: together where the store can (FileRepository.rewrite_many: their
    data fsynced at once), else one by one; the errors by id."""
    many = getattr(repo, "rewrite_many", None)
    if many is not None:
        return many([m for m, _ in linked], "link", actor=actor, details=[d for _, d in linked])
    failed: dict[str, MemctlError] = {}
    for memory, detail in linked:
        try:
            repo.rewrite(memory, "link", actor=actor, **detail)
        except MemctlError as exc:
            failed[memory.id] = exc
    return failed
