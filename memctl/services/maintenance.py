"""Maintenance: rebuild every cache from the memories, check the directory's health, and counts."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import replace
from typing import Any, Callable

from memctl import clock
from memctl.store.filters import MemoryFilter
from memctl.store.repository import FillsLater, ReadsAndHealth, Repository, SearchIndex

Progress = Callable[[str, int], None]


def reindex(repo: Repository, search: SearchIndex, vectors: bool = True,
            progress: Progress | None = None, full: bool = False) -> dict[str, Any]:
    """Drop every cache and rebuild it (the catalog, the keyword index, the vectors). A second
    model's vectors are left to fill lazily (search/fused.py) unless `full`; `pending` counts them."""
    start = time.perf_counter()
    with repo.locked():
        repo.drop_caches()
        memories = len(repo.all_memories())
        embedded = search.rebuild(vectors=vectors, progress=progress)
    filler = search if isinstance(search, FillsLater) else None
    if filler is not None and vectors and full:
        embedded += filler.fill(progress)
    problems, _ = repo.problems()
    return {"memories": memories, "embedded": embedded, "broken": sum(p["kind"] == "broken" for p in problems),
            "pending": filler.pending() if filler is not None else 0,
            "seconds": round(time.perf_counter() - start, 3)}


def doctor(repo: Repository) -> dict[str, Any]:
    """Validate the stored memories: broken files, duplicate ids, misplaced files, leftover temp files,
    an interrupted compaction, secrets on disk, visibilities the access rules do not know, files
    under `.memctl/` that git tracks."""
    problems, removed = repo.problems()
    record = repo.compactions.last()
    if record and record.get("state") == "applying":
        problems.append({"kind": "compaction", "path": ".memctl/compactions",
                         "detail": f"compaction {record['plan_id']} was interrupted: run `memctl compact` "
                                   "or `memctl doctor --fix` to finish it"})
    problems += secrets_on_disk(repo)
    problems += unknown_visibilities(repo)
    problems += tracked_state(repo)
    problems += linked_state(repo)
    return {"memories": len(repo.all_memories()), "problems": problems, "removed": removed}


def linked_state(repo: Repository) -> list[dict[str, str]]:
    """The folder's own files that are symbolic links (never followed: what needs them refuses)."""
    if repo.kind != "files" or repo.root is None:
        return []
    from memctl.store.directory import linked_files

    return [{"kind": "symlink", "path": name,
             "detail": "a symbolic link: memctl never reads or writes through one (replace it with the file)"}
            for name in linked_files(repo.root)]


def tracked_state(repo: Repository) -> list[dict[str, str]]:
    """Files under the folder's `.memctl/` that git tracks: memctl never reads a cache from there,
    but everyone who clones the repository gets what was committed (a planted pickle, someone's
    journal)."""
    if repo.kind != "files" or repo.root is None:
        return []
    from memctl.store.gitindex import tracked_state as tracked

    return [{"kind": "tracked_cache", "path": path,
             "detail": "tracked by git, but .memctl/ is this checkout's own (memctl never reads a cache "
                       "from it): remove it from the repository with `git rm -r --cached .memctl`"}
            for path in tracked(repo.root)]


def unknown_visibilities(repo: Repository) -> list[dict[str, str]]:
    """Memories whose visibility the access rules do not know (a typo, another tool's word): they
    fail closed, visible to their author only, until someone sets a value the rules know."""
    from memctl.core.access import unknown_visibility, visibility_problem

    return [{"kind": "unknown_visibility", "path": str(m.path),
             "detail": visibility_problem(str(m.path), m.visibility).removeprefix(f"{m.path}: ")}
            for m in repo.all_memories() if unknown_visibility(m.visibility)]


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
