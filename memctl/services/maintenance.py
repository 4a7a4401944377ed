"""Maintenance: rebuild every cache from the files."""

from __future__ import annotations

import shutil
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memctl.api import MemoryStore


def reindex(store: "MemoryStore", vectors: bool = True, progress: bool = False) -> dict[str, Any]:
    """Drop the catalog and keyword index, rebuild them, and re-sync the vectors (a rich progress bar on stderr)."""
    start = time.perf_counter()
    with store.dir.lock():
        for name in ("catalog.bin", "keyword-state.json", "keyword-state.digest"):
            (store.dir.cache / name).unlink(missing_ok=True)
        shutil.rmtree(store.dir.cache / "keyword", ignore_errors=True)
        snap = store.snapshot(refresh=True)
        memories = snap.order
        engine = store.engine()
        embedded = 0
        with _progress(progress, len(memories)) as tick:
            engine.sync_keyword(snap, force=True, progress=lambda n: tick("keyword", n))
            if vectors:
                embedded = engine.sync_vectors(snap, progress=lambda n: tick("vectors", n))
                tick("vectors", len(memories))
    return {"memories": len(memories), "embedded": embedded, "broken": len(store.snapshot().broken),
            "seconds": round(time.perf_counter() - start, 3)}


class _progress:
    """A rich progress bar on stderr (or nothing, for --json)."""

    def __init__(self, enabled: bool, total: int) -> None:
        self.enabled, self.total, self.bar, self.tasks = enabled, total, None, {}

    def __enter__(self):
        if self.enabled:
            from rich.progress import Progress

            from memctl.cli.output import console

            self.bar = Progress(console=console(stderr=True), transient=True)
            self.bar.start()
        return self.tick

    def tick(self, stage: str, done: int) -> None:
        if self.bar is None:
            return
        if stage not in self.tasks:
            self.tasks[stage] = self.bar.add_task(stage, total=max(self.total, 1))
        self.bar.update(self.tasks[stage], completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def doctor(store: "MemoryStore", fix: bool = False) -> dict[str, Any]:
    """Validate the directory: broken files, duplicate ids, misplaced files, leftover temp files,
    an interrupted compaction. With fix, leftover temp files older than a minute are removed."""
    from memctl.services.compact import last_record

    snap = store.snapshot(refresh=True)
    problems: list[dict[str, str]] = [{"kind": "broken", "path": rel, "detail": msg.removeprefix(f"{rel}: ")}
                                      for rel, msg in snap.broken]
    problems += [{"kind": "duplicate_id", "path": b, "detail": f"same id as {a}"} for a, b in snap.duplicates]
    for m in snap.memories:
        folder = m.path.removeprefix("archive/").rsplit("/", 1)[0]
        if folder != m.owner:
            problems.append({"kind": "misplaced", "path": m.path, "detail": f"its fields say it belongs in {m.owner}/"})
        if m.path.startswith("archive/") == (m.status == "active"):
            problems.append({"kind": "status_location", "path": m.path, "detail": f"status {m.status} in this folder"})
    removed = []
    for tmp in store.root.rglob(".*.tmp"):
        if ".memctl" in tmp.parts:
            continue
        rel = store.dir.relative(tmp)
        if fix and time.time() - tmp.stat().st_mtime > 60:
            tmp.unlink()
            removed.append(rel)
        else:
            problems.append({"kind": "temp_file", "path": rel, "detail": "left by an interrupted write"})
    record = last_record(store)
    if record and record.get("state") == "applying":
        problems.append({"kind": "compaction", "path": ".memctl/compactions",
                         "detail": f"compaction {record['plan_id']} was interrupted: run `memctl compact` to finish it"})
    return {"memories": len(snap.memories), "problems": problems, "removed": removed}
