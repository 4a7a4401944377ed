"""Lifecycle I/O: importance for listing, and applying / resuming / undoing a compaction plan.

A plan is recorded under `.memctl/compactions/` before it is applied, with the original bytes of
every file it touches; each action is marked done as it completes. A killed apply is resumed by the
next `compact`; `compact --undo` writes every touched file back byte for byte.
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from memctl import clock
from memctl.errors import NotFound, UsageError
from memctl.core.models import Memory
from memctl.policy.compact import Action, CompactionPlan, importance_scores as plan_scores, plan_compaction
from memctl.policy.importance import Usage
from memctl.store.files import write_atomic

if TYPE_CHECKING:
    from memctl.api import MemoryStore

PAUSE_ENV = "MEMCTL_TEST_PAUSE_BETWEEN_ACTIONS"
STATUS_FOR = {"expire": "expired", "archive_low_importance": "archived", "supersede_key": "superseded",
              "consolidate": "merged"}


def usage_map(store: "MemoryStore") -> dict[str, Usage]:
    """Usage statistics from the cache, as policy models."""
    out = {}
    for memory_id, raw in store.usage().read().items():
        try:
            out[memory_id] = Usage.model_validate(raw)
        except ValueError:
            continue
    return out


def similarity_pairs(store: "MemoryStore", memories: Sequence[Memory], threshold: float,
                     sync: bool) -> dict[tuple[str, str], float]:
    """Cosine of pairs of one owner and type at or above `threshold` (vectors synced when asked)."""
    engine = store.engine()
    if sync:
        engine.sync_vectors(store.snapshot())
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for m in memories:
        groups[(m.owner, m.type)].append(m.id)
    out: dict[tuple[str, str], float] = {}
    for ids in groups.values():
        if len(ids) > 1:
            out.update(engine.pair_similarities(sorted(ids), threshold))
    return out


def importance_scores(store: "MemoryStore", memories: list[Memory]) -> dict[str, float]:
    """Importance for display: uses cached vectors when present, never loads the model."""
    active = store.active()
    try:
        sims = similarity_pairs(store, active, 0.5, sync=False)
    except Exception:  # a missing or foreign vector cache only loses the uniqueness term
        sims = {}
    usage, now, settings = usage_map(store), clock.now(), store.config.lifecycle
    scores = plan_scores(active, usage, now=now, settings=settings, similarity=sims)
    others = [m for m in memories if m.id not in scores]  # archived ones: no peers to compare with
    scores.update(plan_scores(others, usage, now=now, settings=settings, similarity={}))
    return {m.id: scores[m.id] for m in memories}


def in_owner(m: Memory, user: str | None, project: str | None) -> bool:
    return (user is None or m.owner == f"users/{user}") and (project is None or m.owner == f"projects/{project}")


def build_plan(store: "MemoryStore", user: str | None, project: str | None, llm: str | None,
               similarity: Mapping[tuple[str, str], float] | None = None) -> CompactionPlan:
    """The compaction plan for the active memories of the chosen owners (similarity: from the vectors
    unless given, e.g. by a caller with its own similarity model)."""
    memories = [m for m in store.snapshot().memories if store.is_active(m) and in_owner(m, user, project)]
    settings = store.config.lifecycle
    sims = similarity if similarity is not None else similarity_pairs(
        store, memories, min(settings.cluster_threshold, 0.5), sync=True)
    summarise = _llm_summariser(llm) if llm else None
    return plan_compaction(memories, usage_map(store), now=clock.now(), settings=settings,
                           similarity=sims, summarise=summarise)


def _llm_summariser(command: str):
    from memctl.services.llm import run_llm
    from memctl.policy.summarise import extractive_summary

    def summarise(memories: list[Memory]) -> str:
        prompt = ("Summarise these related memories about one person or project into one short memory. "
                  "Keep every distinct fact; answer with the summary text only.\n\n"
                  + "\n".join(f"- {m.body}" for m in memories))
        text = run_llm(command, prompt).strip()
        return text if 5 <= len(text) <= 2000 else extractive_summary(memories)

    return summarise


# -- applying ---------------------------------------------------------------------------------
def _records_dir(store: "MemoryStore"):
    return store.dir.ensure_cache() / "compactions"


def _save_record(store: "MemoryStore", record: dict[str, Any]) -> None:
    write_atomic(_records_dir(store) / f"{record['plan_id']}.json", json.dumps(record, ensure_ascii=False, indent=1))


def last_record(store: "MemoryStore") -> dict[str, Any] | None:
    folder = _records_dir(store)
    records = sorted(folder.glob("*.json")) if folder.exists() else []
    for path in reversed(records):
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
    return None


def start_record(store: "MemoryStore", plan: CompactionPlan) -> dict[str, Any]:
    """Record the plan and the original bytes of every file it will touch, before touching any."""
    by_id = store.snapshot().by_id()
    originals = {}
    for action in plan.actions:
        for memory_id in [*action.ids, *([action.winner] if action.winner else [])]:
            m = by_id[memory_id]
            originals[memory_id] = {"path": m.path, "text": (store.root / m.path).read_text(encoding="utf-8")}
    plan_id = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"-{os.getpid()}"
    record = {"plan_id": plan_id, "state": "applying", "plan": plan.model_dump(mode="json"),
              "done": [], "created": [], "originals": originals}
    _save_record(store, record)
    return record


def apply_record(store: "MemoryStore", record: dict[str, Any]) -> dict[str, Any]:
    """Apply the not-yet-done actions of a recorded plan, one journal entry per memory touched."""
    plan = CompactionPlan.model_validate(record["plan"])
    for index, action in enumerate(plan.actions):
        if index in record["done"]:
            continue
        if index and os.environ.get(PAUSE_ENV):
            time.sleep(float(os.environ[PAUSE_ENV]))
        created = apply_action(store, action, record["plan_id"])
        record["created"].extend(created)
        record["done"].append(index)
        _save_record(store, record)
    record["state"] = "applied"
    _save_record(store, record)
    return record


def apply_action(store: "MemoryStore", action: Action, plan_id: str) -> list[str]:
    """One action; skips memories no longer active (so a resumed plan never acts twice)."""
    by_id = store.snapshot(refresh=True).by_id()
    live = [by_id[i] for i in action.ids if i in by_id and store.is_active(by_id[i])]
    op = f"compact:{action.kind}"
    if action.kind == "promote":
        for m in live:
            promote(store, m, action.target_scope or "user", op, plan_id)
        return []
    created: list[str] = []
    links: dict[str, Any] = {}
    if action.kind == "consolidate" and live:
        summary = write_summary(store, live, action, plan_id)
        created.append(summary.id)
        links = {"merged_into": summary.id}
    if action.kind == "supersede_key":
        links = {"superseded_by": action.winner}
    for m in live:
        store.archive(m, STATUS_FOR[action.kind], action.reason, op, plan=plan_id, **links)
    return created


def write_summary(store: "MemoryStore", members: list[Memory], action: Action, plan_id: str) -> Memory:
    first = members[0]
    summary = store.build_memory(
        action.summary or "\n".join(m.body for m in members), type=first.type, user=first.user,
        project=first.project if first.scope == "project" else None,
        confidence=max(m.confidence for m in members), source="compact",
        tags=sorted({t for m in members for t in m.tags}), merged_from=[m.id for m in members])
    return store.write_new(summary, "compact:consolidate", plan=plan_id)


def promote(store: "MemoryStore", m: Memory, target: str, op: str, plan_id: str) -> Memory:
    """A session memory becomes long-term: scope changes, expiry is dropped, the session is kept as provenance."""
    data = m.model_dump(exclude={"path"})
    data.update(scope=target, expires=None, updated=clock.now())
    data["extra"] = {**m.extra, "promoted_from_session": m.session}
    data["session"] = None
    promoted = Memory(**data)
    source = store.root / m.path
    target_path = store.dir.new_path(promoted)
    if target_path.parent != source.parent:
        store.dir.move(source, target_path)
        promoted.path = store.dir.relative(target_path)
    else:
        promoted.path = m.path
    return store.rewrite(promoted, op, plan=plan_id, path_before=m.path)


def compact(store: "MemoryStore", *, user: str | None = None, project: str | None = None,
            dry_run: bool = False, llm: str | None = None,
            similarity: Mapping[tuple[str, str], float] | None = None) -> dict[str, Any]:
    """Plan and (unless dry_run) apply a compaction; an interrupted one is resumed first."""
    resumed = None
    with store.dir.lock():
        previous = last_record(store)
        if previous and previous["state"] == "applying" and not dry_run:
            resumed = apply_record(store, previous)["plan_id"]
        store.snapshot(refresh=True)
        plan = build_plan(store, user, project, llm, similarity)
        record = None
        if not dry_run and plan.actions:
            record = apply_record(store, start_record(store, plan))
    if record or resumed:
        store.after_change(None)
    return {"dry_run": dry_run, "resumed": resumed, "plan_id": record["plan_id"] if record else None,
            "plan": plan.model_dump(mode="json"), "created": record["created"] if record else []}


def undo_last(store: "MemoryStore") -> dict[str, Any]:
    """Reverse the last applied compaction: every touched file back byte for byte, summaries removed."""
    with store.dir.lock():
        record = last_record(store)
        if record is None or record["state"] not in ("applied", "applying"):
            raise NotFound("no applied compaction to undo", code="nothing_to_undo")
        by_id = store.snapshot(refresh=True).by_id()
        for memory_id in record["created"]:
            if memory_id in by_id:
                (store.root / by_id[memory_id].path).unlink()
                store.dir.journal("compact:undo", memory_id, None, None, plan=record["plan_id"], removed="summary")
        for memory_id, original in record["originals"].items():
            _put_back(store, by_id.get(memory_id), original, record["plan_id"])
        record["state"] = "undone"
        _save_record(store, record)
        store._stale = True
    store.after_change(None)
    return {"plan_id": record["plan_id"], "restored": sorted(record["originals"]), "removed": record["created"]}


def _put_back(store: "MemoryStore", current: Memory | None, original: dict[str, str], plan_id: str) -> None:
    from memctl.store.files import content_hash

    target = store.root / original["path"]
    if current is not None and current.path != original["path"]:
        if target.exists():
            raise UsageError(f"cannot undo: {original['path']} exists again", code="undo_conflict")
        store.dir.move(store.root / current.path, target)
    if target.exists() and target.read_text(encoding="utf-8") == original["text"]:
        return
    write_atomic(target, original["text"])
    store.dir.journal("compact:undo", current.id if current else "unknown", None, content_hash(original["text"]),
                      plan=plan_id, path_after=original["path"])
