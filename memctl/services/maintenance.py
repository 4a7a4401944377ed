"""Maintenance: rebuild every cache from the memories, check the directory's health, and counts."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import replace
from typing import Any, Callable

from memctl import clock
from memctl.store.filters import MemoryFilter
from memctl.store.repository import ReadsAndHealth, Repository, SearchIndex

Progress = Callable[[str, int], None]


def reindex(repo: Repository, search: SearchIndex, vectors: bool = True,
            progress: Progress | None = None) -> dict[str, Any]:
    """Drop every cache and rebuild it (the catalog, the keyword index, the vectors)."""
    start = time.perf_counter()
    with repo.locked():
        repo.drop_caches()
        memories = len(repo.all_memories())
        embedded = search.rebuild(vectors=vectors, progress=progress)
    problems, _ = repo.problems()
    return {"memories": memories, "embedded": embedded, "broken": sum(p["kind"] == "broken" for p in problems),
            "seconds": round(time.perf_counter() - start, 3)}


def doctor(repo: Repository) -> dict[str, Any]:
    """Validate the stored memories: broken files, duplicate ids, misplaced files, leftover temp files,
    an interrupted compaction, secrets on disk."""
    problems, removed = repo.problems()
    record = repo.compactions.last()
    if record and record.get("state") == "applying":
        problems.append({"kind": "compaction", "path": ".memctl/compactions",
                         "detail": f"compaction {record['plan_id']} was interrupted: run `memctl compact` "
                                   "or `memctl doctor --fix` to finish it"})
    problems += secrets_on_disk(repo)
    return {"memories": len(repo.all_memories()), "problems": problems, "removed": removed}


def secrets_on_disk(repo: Repository) -> list[dict[str, str]]:
    """Memories (active or archived) whose body or text fields hold what looks like a secret:
    written before the gate knew the format, by hand, or with the gate turned off."""
    from memctl.policy.secrets import describe_finding, find_secrets
    from memctl.services.write import text_fields

    out = []
    for memory in repo.all_memories():
        findings = find_secrets(memory.body)
        flagged = [name for name, value in text_fields(memory).items() if value and find_secrets(value)]
        if findings or flagged:
            detail = "; ".join([f"body {describe_finding(f)}" for f in findings] + [f"the {n} field holds a secret" for n in flagged])
            out.append({"kind": "secret", "path": str(memory.path),
                        "detail": f"{detail} (mask it with `memctl edit`, or `memctl forget` it)"})
    return out


def stats(repo: ReadsAndHealth, flt: MemoryFilter | None = None) -> dict[str, Any]:
    """Counts by status, type, scope and owner of the memories the filter lets through (every status,
    expired ones too: the scope and the actor's visibility are what it narrows); broken files."""
    now = clock.now()
    flt = replace(flt or MemoryFilter(), status="all", expired=True)
    memories = repo.select(flt, now)
    active = [m for m in memories if repo.is_active(m)]
    return {
        "root": str(repo.root) if repo.root else None, "total": len(memories), "active": len(active),
        "archived": len(memories) - len(active), "expired": sum(m.is_expired(now) for m in active),
        "broken": len(repo.broken(flt)),
        "by_type": dict(sorted(Counter(m.type for m in active).items())),
        "by_scope": dict(sorted(Counter(m.scope for m in active).items())),
        "by_owner": dict(sorted(Counter(m.owner for m in active).items())),
        "by_status": dict(sorted(Counter(m.status for m in memories).items())),
    }
