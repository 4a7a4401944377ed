"""The write path: every new memory goes through the gate, then the write decision, then disk.

add -> new file; update -> the matched memory takes the new text; supersede -> the new memory is
written and the old one archived as superseded; noop -> nothing new is written (the stored memory
keeps the higher confidence and records the extra source) and the write is refused as a duplicate.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from memctl import clock
from memctl.errors import ConfigError, Refused
from memctl.core.models import Memory
from memctl.policy.decide import Candidate, Decision, Neighbor, decide, fingerprint, is_ambiguous
from memctl.policy.gate import AUTO_SOURCES, GateThresholds, GateVerdict, evaluate_gate, resolve_thresholds

if TYPE_CHECKING:
    from memctl.api import MemoryStore

WRITE_OPS = ("add", "update", "supersede")


class WriteResult(BaseModel):
    """What a write did: the gate's verdict, the decision, the memory written and the one matched."""

    verdict: GateVerdict
    decision: Decision
    memory: Memory | None = None
    matched: Memory | None = None
    written: bool = False

    def to_data(self) -> dict[str, Any]:
        return {"decision": self.decision.model_dump(mode="json"),
                "verdict": self.verdict.model_dump(mode="json"), "written": self.written,
                "memory": self.memory.to_public() if self.memory else None,
                "matched": self.matched.to_public() if self.matched else None}


def thresholds_for(store: "MemoryStore", overrides: dict[str, Any] | None = None) -> GateThresholds:
    """Gate thresholds: memctl.toml, then MEMORY_* environment variables, then flags."""
    try:
        return resolve_thresholds(store.config.gate.model_dump(), os.environ, overrides or {})
    except ValueError as exc:
        raise ConfigError(str(exc).splitlines()[0], code="bad_threshold") from None


def auto_writes_in_window(store: "MemoryStore", session: str | None, hours: float) -> int:
    """Automatic writes (source auto/ai) this session made within the window, from the journal."""
    if not session:
        return 0
    since = clock.format_timestamp(clock.now() - timedelta(hours=hours))
    until = clock.format_timestamp(clock.now())
    return sum(1 for e in store.dir.read_journal()
               if e.op in WRITE_OPS and e.detail.get("session") == session
               and e.detail.get("source") in AUTO_SOURCES and since < e.time <= until)


def peers(store: "MemoryStore", candidate: Memory) -> list[Memory]:
    """Active memories of the same owner and type: what a candidate may repeat or change."""
    return [m for m in store.active() if m.owner == candidate.owner and m.type == candidate.type]


def neighbors_for(store: "MemoryStore", candidate: Memory, group: list[Memory], related: float) -> list[Neighbor]:
    """Stored memories similar to the candidate (cosine >= related) or sharing its key."""
    if not group:
        return []
    engine = store.engine()
    engine.sync_vectors(store.snapshot())
    sims = engine.similarities(candidate.body, [m.id for m in group])
    out = []
    for m in group:
        cos = float(sims.get(m.id, 0.0))
        if cos >= related or (candidate.key and m.key == candidate.key):
            out.append(Neighbor(id=m.id, text=m.body, type=m.type, key=m.key, cosine=cos,
                                created=m.created, confidence=m.confidence))
    return out


def evaluate(store: "MemoryStore", candidate: Memory, *, redact: bool, llm: str | None,
             overrides: dict[str, Any] | None = None,
             rate_session: str | None = None) -> tuple[GateVerdict, Decision, GateThresholds]:
    """Gate and decision for a candidate, changing nothing (the caller holds the lock).

    The rate limit counts automatic writes of `rate_session` (default: the candidate's session),
    so extraction can write long-term memories while being limited per conversation."""
    th = thresholds_for(store, overrides)
    session = rate_session or candidate.session
    group = peers(store, candidate)
    fp = fingerprint(candidate.body)
    duplicate = next((m.id for m in group if fingerprint(m.body) == fp), None)
    verdict = evaluate_gate(candidate.body, confidence=candidate.confidence, source=candidate.source,
                            session=session, duplicate_of=duplicate, thresholds=th, redact=redact,
                            auto_writes_in_window=auto_writes_in_window(store, session, th.rate_window_hours))
    if duplicate:
        return verdict, Decision(action="noop", target=duplicate, reason="same normalised content"), th
    if not verdict.passed:
        return verdict, Decision(action="add", reason="refused by the gate", decided_by="none"), th
    candidate.body = verdict.text
    neighbors = neighbors_for(store, candidate, group, th.related_threshold)
    cand = Candidate(text=candidate.body, type=candidate.type, key=candidate.key)
    decision = decide(cand, neighbors, duplicate_threshold=th.duplicate_threshold,
                      related_threshold=th.related_threshold)
    if llm and is_ambiguous(decision):
        decision = _ask_llm(llm, cand, neighbors, decision)
    if decision.action == "noop":
        verdict = _with_duplicate(verdict, decision.target)
    return verdict, decision, th


def _ask_llm(command: str, cand: Candidate, neighbors: list[Neighbor], fallback: Decision) -> Decision:
    from memctl.services.llm import LLMError, run_llm
    from memctl.policy.decide import llm_decision_prompt, parse_llm_decision

    try:
        answer = parse_llm_decision(run_llm(command, llm_decision_prompt(cand, neighbors)), neighbors)
    except LLMError as exc:
        return fallback.model_copy(update={"reason": f"{fallback.reason} (llm failed: {exc})"})
    if answer is None:
        return fallback.model_copy(update={"reason": f"{fallback.reason} (llm answer malformed; rules decided)"})
    return answer


def _with_duplicate(verdict: GateVerdict, target: str | None) -> GateVerdict:
    from memctl.policy.gate import GateFailure

    failure = GateFailure(code="duplicate", message=f"the same fact is already stored as {target}")
    return verdict.model_copy(update={"passed": False, "failures": [*verdict.failures, failure]})


def add_memory(store: "MemoryStore", text: str, *, redact: bool | None = None, llm: str | None = None,
               dry_run: bool = False, overrides: dict[str, Any] | None = None, rate_session: str | None = None,
               **fields: Any) -> WriteResult:
    """Gate, decide and write one memory. Raises Refused (exit 3) when the gate says no."""
    redact = store.config.gate.redact if redact is None else redact
    with store.dir.lock():
        store.snapshot(refresh=True)
        candidate = store.build_memory(text, **fields)
        verdict, decision, _ = evaluate(store, candidate, redact=redact, llm=llm, overrides=overrides,
                                        rate_session=rate_session)
        matched = store.get(decision.target) if decision.target else None
        result = WriteResult(verdict=verdict, decision=decision, memory=candidate, matched=matched)
        if dry_run:
            return result
        if decision.action == "noop" and matched is not None:
            result.matched = reinforce(store, matched, candidate)
        if not verdict.passed:
            codes = ", ".join(f.code for f in verdict.failures)
            raise Refused(f"refused by the gate ({codes}): " + "; ".join(f.message for f in verdict.failures),
                          code=verdict.failures[0].code, data=result.to_data())
        result.memory, result.written = apply(store, candidate, decision, matched, rate_session), True
    store.after_change({candidate.owner, *([matched.owner] if matched else [])})
    return result


def _detail(candidate: Memory, rate_session: str | None = None) -> dict[str, Any]:
    return {"source": candidate.source, "session": rate_session or candidate.session}


def reinforce(store: "MemoryStore", stored: Memory, candidate: Memory) -> Memory:
    """A repeat: keep the higher confidence and record the extra source (and its source ids)."""
    data = stored.model_dump(exclude={"path"})
    data["confidence"] = max(stored.confidence, candidate.confidence)
    if candidate.source != stored.source and candidate.source not in stored.sources:
        data["sources"] = [*stored.sources, candidate.source]
    data["source_ids"] = list(dict.fromkeys([*stored.source_ids, *candidate.source_ids]))
    new = Memory(**data, path=stored.path)
    if new.model_dump() == stored.model_dump():
        return stored
    return store.rewrite(new, "reinforce", by=candidate.source)


def apply(store: "MemoryStore", candidate: Memory, decision: Decision, matched: Memory | None,
          rate_session: str | None = None) -> Memory:
    """Carry out an add / update / supersede decision (caller holds the lock)."""
    if decision.action == "update" and matched is not None:
        data = matched.model_dump(exclude={"path"})
        data.update(body=decision.text or candidate.body, updated=clock.now(),
                    confidence=max(matched.confidence, candidate.confidence),
                    tags=list(dict.fromkeys([*matched.tags, *candidate.tags])),
                    source_ids=list(dict.fromkeys([*matched.source_ids, *candidate.source_ids])))
        return store.rewrite(Memory(**data, path=matched.path), "update", previous_body=matched.body,
                             **_detail(candidate, rate_session))
    if decision.action == "supersede" and matched is not None:
        candidate.supersedes = matched.id
        written = store.write_new(candidate, "supersede", target=matched.id, **_detail(candidate, rate_session))
        store.archive(matched, "superseded", f"superseded by {written.id}", "superseded", superseded_by=written.id)
        return written
    candidate.conflicts_with = list(decision.conflicts_with)
    written = store.write_new(candidate, "add", **_detail(candidate, rate_session))
    for other in decision.conflicts_with:
        link_conflict(store, other, written.id)
    return written


def link_conflict(store: "MemoryStore", memory_id: str, other: str) -> None:
    """Record on a stored memory that a newer one possibly conflicts with it."""
    stored = store.get(memory_id)
    if other in stored.conflicts_with:
        return
    data = stored.model_dump(exclude={"path"})
    data["conflicts_with"] = [*stored.conflicts_with, other]
    store.rewrite(Memory(**data, path=stored.path), "link", other=other)
