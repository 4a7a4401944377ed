"""Compaction: plan (pure, in policy.compact), record, apply, resume and undo.

A plan is recorded before it is applied, with the original bytes of every memory it touches; each
action is marked done as it completes. A killed apply is resumed by the next `compact`;
`compact --undo` puts every touched memory back byte for byte.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Mapping

from memctl import clock
from memctl.config import Config
from memctl.core.access import Access, access_view, write_refusal
from memctl.core.models import Memory
from memctl.errors import NotFound
from memctl.policy.compact import Action, CompactionPlan, plan_compaction
from memctl.services.build import build_memory
from memctl.services.importance import similarity_pairs, usage_map
from memctl.store.filters import scope_filter
from memctl.store.repository import CompactionStore, SearchIndex

PAUSE_ENV = "MEMCTL_TEST_PAUSE_BETWEEN_ACTIONS"
STATUS_FOR = {"expire": "expired", "archive_low_importance": "archived", "supersede_key": "superseded",
              "consolidate": "merged"}
Similarity = Mapping[tuple[str, str], float]


class CompactService:
    """Plan and apply compactions of one repository, resumably and reversibly."""

    def __init__(self, repo: CompactionStore, search: SearchIndex, config: Config, access: Access | None = None) -> None:
        self.repo = repo
        self.search = search
        self.config = config
        self.access = access
        self.actor = access.actor if access else None  # journaled with each write this service makes

    def compact(self, *, user: str | None = None, project: str | None = None, dry_run: bool = False,
                llm: str | None = None, similarity: Similarity | None = None) -> dict[str, Any]:
        """Plan and (unless dry_run) apply a compaction; an interrupted one is resumed first."""
        resumed, record = None, None
        if similarity is None:
            self.search.prepare()
        with self.repo.locked():
            previous = self.repo.compactions.last()
            if previous and previous["state"] == "applying" and not dry_run:
                resumed = self._apply_record(previous)["plan_id"]
            plan = self.plan(user, project, llm, similarity)
            if not dry_run and plan.actions:
                record = self._apply_record(self._start_record(plan))
        return {"dry_run": dry_run, "resumed": resumed, "plan_id": record["plan_id"] if record else None,
                "plan": plan.model_dump(mode="json"), "created": record["created"] if record else [],
                "changed": bool(record or resumed)}

    def resume(self) -> str | None:
        """Finish an interrupted compaction, if there is one; returns its plan id."""
        with self.repo.locked():
            previous = self.repo.compactions.last()
            if previous and previous["state"] == "applying":
                return str(self._apply_record(previous)["plan_id"])
        return None

    def plan(self, user: str | None, project: str | None, llm: str | None,
             similarity: Similarity | None = None) -> CompactionPlan:
        """The compaction plan for the active memories of the chosen owners (similarity: from the
        vectors unless given, e.g. by a caller with its own similarity model)."""
        flt = scope_filter(self.config.members, [user] if user else [], [project] if project else [],
                           access=self.access, expired=True)  # expired memories are what it archives first
        memories = [m for m in self.repo.select(flt, clock.now())
                    if write_refusal(self.access, "change", access_view(m)) is None]
        settings = self.config.lifecycle
        sims = similarity if similarity is not None else similarity_pairs(
            self.search, memories, min(settings.cluster_threshold, 0.5), sync=True)
        summarise = _llm_summariser(llm) if llm else None
        return plan_compaction(memories, usage_map(self.repo), now=clock.now(), settings=settings,
                               similarity=sims, summarise=summarise)

    def undo_last(self) -> dict[str, Any]:
        """Reverse the last applied compaction: every touched memory back byte for byte, summaries removed."""
        with self.repo.locked():
            record = self.repo.compactions.last()
            if record is None or record["state"] not in ("applied", "applying"):
                raise NotFound("no applied compaction to undo", code="nothing_to_undo")
            by_id = {m.id: m for m in self.repo.all_memories()}
            for memory_id in record["created"]:
                if memory_id in by_id:
                    self.repo.delete_created(by_id[memory_id], "compact:undo", plan=record["plan_id"], removed="summary", actor=self.actor)
            for memory_id, original in record["originals"].items():
                self.repo.put_back(by_id.get(memory_id), original, "compact:undo", plan=record["plan_id"], actor=self.actor)
            record["state"] = "undone"
            self.repo.compactions.save(record)
        return {"plan_id": record["plan_id"], "restored": sorted(record["originals"]), "removed": record["created"]}

    # -- applying ------------------------------------------------------------------------------
    def _start_record(self, plan: CompactionPlan) -> dict[str, Any]:
        """Record the plan and the original bytes of every memory it will touch, before touching any."""
        by_id = {m.id: m for m in self.repo.all_memories()}
        originals = {}
        for action in plan.actions:
            for memory_id in [*action.ids, *([action.winner] if action.winner else [])]:
                originals[memory_id] = self.repo.original(by_id[memory_id])
        plan_id = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"-{os.getpid()}"
        record = {"plan_id": plan_id, "state": "applying", "plan": plan.model_dump(mode="json"),
                  "done": [], "created": [], "originals": originals}
        self.repo.compactions.save(record)
        return record

    def _apply_record(self, record: dict[str, Any]) -> dict[str, Any]:
        """Apply the not-yet-done actions of a recorded plan, one journal entry per memory touched."""
        plan = CompactionPlan.model_validate(record["plan"])
        for index, action in enumerate(plan.actions):
            if index in record["done"]:
                continue
            if index and os.environ.get(PAUSE_ENV):
                time.sleep(float(os.environ[PAUSE_ENV]))
            record["created"].extend(self._apply_action(action, record["plan_id"]))
            record["done"].append(index)
            self.repo.compactions.save(record)
        record["state"] = "applied"
        self.repo.compactions.save(record)
        return record

    def _apply_action(self, action: Action, plan_id: str) -> list[str]:
        """One action; skips memories no longer active (so a resumed plan never acts twice)."""
        by_id = {m.id: m for m in self.repo.all_memories()}
        live = [by_id[i] for i in action.ids if i in by_id and self.repo.is_active(by_id[i])]
        op = f"compact:{action.kind}"
        if action.kind == "promote":
            for m in live:
                self._promote(m, action.target_scope or "user", op, plan_id)
            return []
        created: list[str] = []
        links: dict[str, Any] = {}
        if action.kind == "consolidate" and live:
            summary = self._write_summary(live, action, plan_id)
            created.append(summary.id)
            links = {"merged_into": summary.id}
        if action.kind == "supersede_key":
            links = {"superseded_by": action.winner}
        for m in live:
            self.repo.archive(m, STATUS_FOR[action.kind], action.reason, op, plan=plan_id, actor=self.actor, **links)
        return created

    def _write_summary(self, members: list[Memory], action: Action, plan_id: str) -> Memory:
        """The merged memory: the plan's summary, dated by the span of the members' dates (never
        read again from its text against today), naming every member in `merged_from` and every
        member's source in `sources`."""
        first = members[0]
        summary = build_memory(
            self.repo, self.config, action.summary or "\n".join(m.body for m in members), type=first.type,
            user=first.user, project=first.project if first.scope == "project" else None,
            confidence=max(m.confidence for m in members), source="compact",
            tags=sorted({t for m in members for t in m.tags}), merged_from=[m.id for m in members],
            sources=list(dict.fromkeys(s for m in members for s in (m.source, *m.sources))),
            source_ids=list(dict.fromkeys(i for m in members for i in m.source_ids)))
        summary.occurred = action.occurred
        return self.repo.create(summary, "compact:consolidate", plan=plan_id, actor=self.actor)

    def _promote(self, m: Memory, target: str, op: str, plan_id: str) -> Memory:
        """A session memory becomes long-term: scope changes, expiry is dropped, the session is kept as provenance."""
        data = m.model_dump(exclude={"path"})
        data.update(scope=target, expires=None, updated=clock.now())
        data["extra"] = {**m.extra, "promoted_from_session": m.session}
        data["session"] = None
        return self.repo.relocate(Memory(**data, path=m.path), op, plan=plan_id, actor=self.actor)


def _llm_summariser(command: str) -> Callable[[list[Memory]], str | None]:
    """Summaries written by the LLM command, kept only when they name every value of every member
    (policy/distinct.py: identifiers, numbers, dates, names, negation); otherwise the extractive one."""
    from memctl.policy.distinct import keeps_values
    from memctl.policy.summarise import extractive_summary
    from memctl.services.llm import run_llm

    def summarise(memories: list[Memory]) -> str | None:
        prompt = ("Summarise these related memories about one person or project into one short memory. "
                  "Keep every distinct fact, with every name, number, identifier and date; answer with the "
                  "summary text only.\n\n" + "\n".join(f"- {m.body}" for m in memories))
        text = run_llm(command, prompt).strip()
        if 5 <= len(text) <= 2000 and keeps_values(text, [m.body for m in memories]):
            return text
        return extractive_summary(memories)

    return summarise
