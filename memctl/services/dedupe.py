"""Dedupe stored memories: plan merges of repeats among active memories, apply them, and list open conflicts.

The plan comes from the pure `memctl.policy.dedupe.plan_dedupe`; this module feeds it the
memories and their cosines, asks the `--llm` command when the rules cannot decide, and carries
the plan out with one journal entry per file touched. Everything it archives can be restored.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from pydantic import BaseModel, Field

from memctl import clock
from memctl.config import Config
from memctl.core.access import Access, access_view, can_read, write_refusal
from memctl.core.models import Memory
from memctl.errors import NotFound, UsageError
from memctl.policy.decide import Candidate, Decision, Neighbor, llm_decision_prompt, parse_llm_decision
from memctl.policy.dedupe import ConflictPair, DedupeItem, DedupePlan, MergeGroup, plan_dedupe
from memctl.policy.distinct import distinct_reason
from memctl.services.importance import similarity_pairs
from memctl.services.links import link_conflict
from memctl.services.write import resolve_gate
from memctl.store.filters import MemoryFilter, scope_filter
from memctl.store.repository import ReadsAndWrites, SearchIndex

Ask = Callable[[DedupeItem, DedupeItem], "Decision | None"]


class SimilarPair(BaseModel):
    """Two memories above the threshold that the rules could neither merge nor call conflicting."""

    a: str
    b: str
    cosine: float


class DedupeReport(BaseModel):
    """The plan, the similar pairs left for review, and what was changed (nothing on a dry run)."""

    dry_run: bool
    threshold: float
    considered: int
    plan: DedupePlan
    similar: list[SimilarPair] = Field(default_factory=list)
    merged: list[str] = Field(default_factory=list)
    superseded: list[str] = Field(default_factory=list)
    linked: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class OpenConflict(BaseModel):
    """An active memory whose `conflicts_with` names another still-active memory."""

    older: str
    newer: str
    owner: str
    type: str
    older_content: str
    newer_content: str
    older_created: datetime
    newer_created: datetime


def dedupe_item(memory: Memory) -> DedupeItem:
    """A memory as the dedupe policy sees it (its own source counts among the sources)."""
    return DedupeItem(id=memory.id, text=memory.body, type=memory.type, group=memory.owner, key=memory.key,
                      confidence=memory.confidence, created=memory.created, updated=memory.updated,
                      tags=memory.tags, sources=list(dict.fromkeys([memory.source, *memory.sources])))


def _llm_asker(command: str, sims: dict[tuple[str, str], float], notes: list[str]) -> Ask:
    """Ask the LLM command about (older, newer); None (rules decide) when it fails or answers badly."""
    from memctl.services.llm import LLMError, run_llm

    answers: dict[tuple[str, str], Decision | None] = {}

    def ask(old: DedupeItem, new: DedupeItem) -> Decision | None:
        if (old.id, new.id) not in answers:  # a pair can be asked twice: as ambiguous, then as a conflict
            answers[(old.id, new.id)] = _ask_once(old, new)
        return answers[(old.id, new.id)]

    def _ask_once(old: DedupeItem, new: DedupeItem) -> Decision | None:
        cosine = sims.get((min(old.id, new.id), max(old.id, new.id)), 0.0)
        neighbor = Neighbor(id=old.id, text=old.text, type=old.type, key=old.key, cosine=cosine)
        candidate = Candidate(text=new.text, type=new.type, key=new.key)
        try:
            answer = parse_llm_decision(run_llm(command, llm_decision_prompt(candidate, [neighbor])), [neighbor])
        except LLMError as exc:
            notes.append(f"llm failed on {old.id}/{new.id}: {exc.message}")
            return None
        if answer is None:
            notes.append(f"llm answer about {old.id}/{new.id} was malformed; rules decided")
        return answer

    return ask


def _llm_resolve(plan: DedupePlan, by_id: dict[str, DedupeItem], ask: Ask) -> DedupePlan:
    """Let the LLM settle rule-detected conflicts: DELETE supersedes, UPDATE/NOOP merge the pair."""
    busy = {i for m in plan.merges for i in (m.survivor, *m.merged)}
    merges, conflicts = list(plan.merges), []
    for pair in plan.conflicts:
        answer = None if pair.resolved else ask(by_id[pair.older], by_id[pair.newer])
        action = answer.action if answer else None
        if answer is not None and action == "supersede":
            pair = pair.model_copy(update={"resolved": True, "reason": f"llm: {answer.reason}"})
        elif (answer is not None and action in ("update", "noop") and not busy & {pair.older, pair.newer}
              and distinct_reason(by_id[pair.older].text, by_id[pair.newer].text) is None):
            merges.append(_pair_merge(by_id[pair.older], by_id[pair.newer], answer))
            busy |= {pair.older, pair.newer}
            continue
        conflicts.append(pair)
    return DedupePlan(merges=sorted(merges, key=lambda m: m.survivor), conflicts=conflicts)


def _pair_merge(older: DedupeItem, newer: DedupeItem, answer: Decision) -> MergeGroup:
    """UPDATE keeps the newer with the LLM's merged text; NOOP keeps the older, which says it all."""
    keep, drop = (newer, older) if answer.action == "update" else (older, newer)
    text = answer.text if answer.action == "update" and answer.text != keep.text else None
    return MergeGroup(survivor=keep.id, merged=[drop.id], tags=list(dict.fromkeys([*keep.tags, *drop.tags])),
                      sources=list(dict.fromkeys([*keep.sources, *drop.sources])), text=text,
                      confidence=max(keep.confidence, newer.confidence, older.confidence),
                      reason=f"llm: {answer.reason}")


def _similar_left(plan: DedupePlan, sims: dict[tuple[str, str], float], threshold: float) -> list[SimilarPair]:
    """Pairs at or above the threshold that the plan neither merges nor reports as conflicting."""
    group = {i: m.survivor for m in plan.merges for i in (m.survivor, *m.merged)}
    clashes = {frozenset((c.older, c.newer)) for c in plan.conflicts}
    out = [SimilarPair(a=a, b=b, cosine=round(cos, 4)) for (a, b), cos in sims.items()
           if cos >= threshold and not (a in group and group.get(b) == group[a])
           and frozenset((group.get(a, a), group.get(b, b))) not in clashes]
    return sorted(out, key=lambda p: (-p.cosine, p.a, p.b))


class DedupeService:
    """Merge repeats among stored memories, list conflicts, and resolve them when asked."""

    def __init__(self, repo: ReadsAndWrites, search: SearchIndex, config: Config, access: Access | None = None) -> None:
        self.repo = repo
        self.search = search
        self.config = config
        self.access = access
        self.actor = access.actor if access else None  # journaled with each write this service makes

    def dedupe(self, *, user: str | None = None, project: str | None = None, threshold: float | None = None,
               dry_run: bool = False, resolve: str | None = None, llm: str | None = None) -> DedupeReport:
        """Merge repeats among active memories; list conflicts, superseding them only when asked."""
        if resolve not in (None, "newest"):
            raise UsageError(f"unknown --resolve strategy {resolve!r} (expected 'newest')", code="bad_resolve")
        th = resolve_gate(self.config).duplicate_threshold if threshold is None else threshold
        if not 0.0 <= th <= 1.0:
            raise UsageError(f"--threshold must be between 0 and 1, got {th:g}", code="bad_threshold")
        notes: list[str] = []
        self.search.prepare()
        with self.repo.locked():
            memories = [m for m in self.repo.select(self._scope(user, project), clock.now())
                        if write_refusal(self.access, "change", access_view(m)) is None]
            plan, similar = self._plan(memories, th, resolve, llm, notes)
            report = DedupeReport(dry_run=dry_run, threshold=th, considered=len(memories), plan=plan,
                                  similar=similar, notes=notes)
            if not dry_run:
                self._apply(plan, {m.id: m for m in memories}, report)
        return report

    def _plan(self, memories: list[Memory], threshold: float, resolve: str | None, llm: str | None,
              notes: list[str]) -> tuple[DedupePlan, list[SimilarPair]]:
        """The plan for these memories, plus the similar pairs it leaves alone (caller holds the lock)."""
        items = [dedupe_item(m) for m in memories]
        sims = similarity_pairs(self.search, memories, threshold, sync=True)
        ask = _llm_asker(llm, sims, notes) if llm else None
        plan = plan_dedupe(items, sims, threshold=threshold, resolve=resolve, llm_decide=ask)
        if ask is not None:
            plan = _llm_resolve(plan, {i.id: i for i in items}, ask)
        return plan, _similar_left(plan, sims, threshold)

    def _apply(self, plan: DedupePlan, by_id: dict[str, Memory], report: DedupeReport) -> None:
        """Carry out merges, then resolved conflicts, then link unresolved ones (caller holds the lock)."""
        for group in plan.merges:
            self._merge(group, by_id)
            report.merged.extend(group.merged)
        gone = set(report.merged)
        for pair in plan.conflicts:
            if pair.older in gone or pair.newer in gone:
                continue
            if pair.resolved:
                self._supersede(pair, by_id)
                gone.add(pair.older)
                report.superseded.append(pair.older)
            elif self._link(pair):
                report.linked.append(pair.newer)

    def _merge(self, group: MergeGroup, by_id: dict[str, Memory]) -> Memory:
        """Rewrite the survivor (tags, sources, confidence, text) and archive the others as merged."""
        survivor = by_id[group.survivor]
        others = [by_id[i] for i in group.merged]
        members = {survivor.id, *group.merged}
        data = survivor.model_dump(exclude={"path"})
        data.update(tags=group.tags, confidence=group.confidence, updated=clock.now(),
                    sources=[s for s in group.sources if s != survivor.source],
                    merged_from=list(dict.fromkeys([*survivor.merged_from, *group.merged])),
                    conflicts_with=[c for c in dict.fromkeys([*survivor.conflicts_with,
                                                              *(c for o in others for c in o.conflicts_with)])
                                    if c not in members])
        if group.text:
            data["body"] = group.text
        kept = self.repo.rewrite(Memory(**data, path=survivor.path), "dedupe:merge", merged=", ".join(group.merged),
                                 previous_body=survivor.body if group.text else None, actor=self.actor)
        for other in others:
            self.repo.archive(other, "merged", f"merged into {survivor.id}: {group.reason}", "dedupe:merged",
                              merged_into=survivor.id, actor=self.actor)
        by_id[kept.id] = kept
        return kept

    def _supersede(self, pair: ConflictPair, by_id: dict[str, Memory]) -> None:
        """The newer wins: it records what it supersedes; the older is archived as superseded."""
        newer, older = by_id[pair.newer], by_id[pair.older]
        if newer.supersedes != older.id or older.id in newer.conflicts_with:
            data = newer.model_dump(exclude={"path"})
            data.update(supersedes=older.id, conflicts_with=[c for c in newer.conflicts_with if c != older.id])
            by_id[newer.id] = self.repo.rewrite(Memory(**data, path=newer.path), "dedupe:supersede", target=older.id, actor=self.actor)
        self.repo.archive(older, "superseded", f"superseded by {newer.id}: {pair.reason}", "dedupe:superseded",
                          superseded_by=newer.id, actor=self.actor)

    def _link(self, pair: ConflictPair) -> bool:
        """Record an unresolved conflict on the newer memory so `conflicts` lists it; False if already there."""
        newer = self.repo.get(pair.newer)
        older = self.repo.get(pair.older)
        if pair.older in newer.conflicts_with or pair.newer in older.conflicts_with:
            return False
        link_conflict(self.repo, pair.newer, pair.older, self.actor)
        return True

    def open_conflicts(self, user: str | None = None, project: str | None = None) -> list[OpenConflict]:
        """Possibly-conflicting pairs of active memories, newest first."""
        now = clock.now()
        scoped = {m.id: m for m in self.repo.select(self._scope(user, project), now)}
        pairs: dict[frozenset[str], OpenConflict] = {}
        for memory in scoped.values():
            for other_id in memory.conflicts_with:
                other = scoped.get(other_id) or self._active(other_id, now)
                if other is None or other.id == memory.id or frozenset((memory.id, other_id)) in pairs:
                    continue
                older, newer = sorted((memory, other), key=lambda m: (m.created, m.id))
                pairs[frozenset((memory.id, other_id))] = OpenConflict(
                    older=older.id, newer=newer.id, owner=newer.owner, type=newer.type,
                    older_content=older.body, newer_content=newer.body,
                    older_created=older.created, newer_created=newer.created)
        return sorted(pairs.values(), key=lambda c: (c.newer_created, c.older_created, c.newer), reverse=True)

    def _active(self, memory_id: str, now: datetime) -> Memory | None:
        """The other side of a conflict outside the scope: an active memory the actor may see, or None."""
        try:
            memory = self.repo.get(memory_id)
        except (NotFound, UsageError):
            return None
        fine = self.repo.is_active(memory) and not memory.is_expired(now) and can_read(self.access, access_view(memory))
        return memory if fine else None

    def _scope(self, user: str | None, project: str | None) -> MemoryFilter:
        """The active memories of the user (and their projects) and the project the actor may see."""
        return scope_filter(self.config.members, [user] if user else [], [project] if project else [],
                            access=self.access)

    @staticmethod
    def changed(report: DedupeReport) -> bool:
        """True when the dedupe wrote anything (MEMORY.md files then need a refresh)."""
        return bool(report.merged or report.superseded or report.linked)
