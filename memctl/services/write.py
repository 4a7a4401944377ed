"""The write path: every new memory goes through the gate, then the write decision, then storage.

add -> new memory; update -> the matched memory takes the new text; supersede -> the new memory is
written and the old one archived as superseded; noop -> nothing new is written (the stored memory
keeps the higher confidence and records the extra source) and the write is refused as a duplicate.
"""

from __future__ import annotations

import contextlib
import os
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Sequence

from pydantic import BaseModel, Field

from memctl import clock
from memctl.config import Config, GateSettings
from memctl.core.access import Access, access_view, can_read, write_refusal
from memctl.core.models import Memory, name_arg
from memctl.errors import ConfigError, Forbidden, InvalidMemory, MemctlError, NotFound, UsageError
from memctl.policy.decide import Candidate, Decision, Neighbor, announces_change_of, decide, fingerprint
from memctl.policy.gate import (
    AUTO_SOURCES,
    GateFailure,
    GateVerdict,
    Surface,
    claimed_source,
    evaluate_gate,
    refusal,
    resolve_thresholds,
)
from memctl.policy.pairs import fitted_for, frame, ml_pairs, multilingual_fit_for, reads_multilingual
from memctl.policy.statement import slot_relation
from memctl.policy.when import relative_dates
from memctl.services.build import build_memory
from memctl.services.kinds import typed_change, typed_input
from memctl.services.links import PendingLinks, restore_back_links
from memctl.store.repository import Memories, SearchIndex, SecondModel, WriteStore

if TYPE_CHECKING:
    from memctl.store.kinds import KindFiles

LLM_ENV = "MEMCTL_LLM"
LLM_CANDIDATES = 5  # stored memories shown to the LLM when none is similar enough for the rules
FRAMED = 3  # the closest stored memories whose frames the pair model compares with the candidate's
ADD_BATCH = 128  # adds of one add_many embedded in one model call and written in one lock hold
HOLD_SECONDS = 2.0  # an add_many lets the write lock go after this long, then takes it again for the rest


class WriteResult(BaseModel):
    """What a write did: the gate's verdict, the decision, the memory written and the one matched."""

    verdict: GateVerdict
    decision: Decision
    memory: Memory | None = None
    matched: Memory | None = None
    written: bool = False
    notes: list[str] = []
    inferred: dict[str, Any] | None = None  # the kind and fields read from the text (services/structure.py)

    def to_data(self) -> dict[str, Any]:
        """The `add --json` data."""
        return {"decision": self.decision.model_dump(mode="json"), "notes": self.notes, "inferred": self.inferred,
                "verdict": self.verdict.model_dump(mode="json"), "written": self.written,
                "memory": self.memory.to_public() if self.memory else None,
                "matched": self.matched.to_public() if self.matched else None}


class AddRequest(BaseModel):
    """One add of a batch (add_many): WriteService.add's arguments."""

    text: str
    fields: dict[str, Any] = Field(default_factory=dict)  # add's **fields: type, user, project, key, tags...
    llm: str | None = None
    rate_session: str | None = None
    surface: Surface = "add"
    redact: bool | None = None
    overrides: dict[str, Any] | None = None
    trusted_source: bool = True
    second_fit: bool = True  # the pair model's multilingual fit (e5 pair cosines) when fused; False: the shipped fit


def resolve_gate(config: Config, overrides: dict[str, Any] | None = None) -> GateSettings:
    """Gate settings: memctl.toml, then MEMORY_* environment variables, then flags."""
    try:
        return resolve_thresholds(config.gate.model_dump(), os.environ, overrides or {})
    except ValueError as exc:
        raise ConfigError(str(exc).splitlines()[0], code="bad_threshold") from None


def text_fields(memory: Memory) -> dict[str, str]:
    """A memory's text fields other than the body, as the gate checks them for secrets."""
    extra = {k: v for k, v in memory.extra.items() if isinstance(v, str)}
    named = {"tags": " ".join(memory.tags), "key": memory.key or "", "subtype": memory.subtype or "",
             "source": memory.source, "name": memory.name or "", "description": memory.description or ""}
    return {**named, **extra}


def check_whole(repo: Memories, access: Access | None, whole_id: str, part_id: str | None) -> Memory:
    """The whole a memory is to be part of: it must exist, be visible to the actor and not be the
    part itself or one of its parts (no loops)."""
    whole = repo.get(whole_id)
    if not can_read(access, access_view(whole)):
        raise NotFound(f"no memory {whole_id}", code="not_found")
    seen: set[str] = {part_id} if part_id else set()
    cursor = whole
    while True:
        if cursor.id in seen:
            raise InvalidMemory(f"part_of {whole_id} would make a loop: it is already part of {part_id}",
                                code="part_of_loop")
        seen.add(cursor.id)
        if not cursor.part_of:
            break
        try:
            cursor = repo.get(cursor.part_of)
        except NotFound:
            break
    return whole


def date_notes(memory: Memory, given: Any) -> list[str]:
    """How relative dates in the text were read (nothing is left silently relative)."""
    if given:
        return []
    notes = []
    for reading in relative_dates(memory.body, memory.created.date()):
        if reading.occurred and reading.occurred == memory.occurred:
            notes.append(f"{reading.phrase!r} read as {reading.occurred} (occurred; --occurred sets another)")
        elif reading.occurred:
            notes.append(f"{reading.phrase!r} is {reading.occurred}; occurred is {memory.occurred}")
        else:
            notes.append(f"{reading.phrase!r} left as written: which day is not said (--occurred dates it)")
    return notes


def typed_notes(memory: Memory) -> list[str]:
    """How an inferred kind was read, and how to correct it."""
    if memory.extra.get("typed") not in ("rules", "llm") or not memory.kind:
        return []
    shown = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in memory.fields.items())
    return [f"typed as {memory.kind} ({shown}): correct a field with `memctl edit {memory.id} --set "
            f"fields.NAME=VALUE`, or `--set kind=` if it is not a {memory.kind}"]


def inferred_of(memory: Memory) -> dict[str, Any] | None:
    """The kind and fields inferred for a memory (None when it was typed by hand or not at all)."""
    by = memory.extra.get("typed")
    if by not in ("rules", "llm") or not memory.kind:
        return None
    return {"kind": memory.kind, "fields": dict(memory.fields), "by": by}


class WriteService:
    """Gate, decide and write single memories."""

    def __init__(self, repo: WriteStore, search: SearchIndex, config: Config, access: Access | None = None,
                 kinds: "KindFiles | None" = None) -> None:
        self.repo = repo
        self.search = search
        self.config = config
        self.access = access
        self.actor = access.actor if access else None  # journaled with each write this service makes
        self.kinds = kinds  # the kinds typed memories follow (None: kind and fields are not checked)
        self._links = PendingLinks()  # conflict links on stored memories, written as a lock hold ends

    def warm_up(self) -> None:
        """Ready what a fresh process's first add would otherwise prepare (~0.2 s of CPU): the modules
        a write uses and, when adds are typed, every expression of the recognisers."""
        from memctl.core.fileformat import parse_memory, serialise_memory  # noqa: F401 (imported now)
        from memctl.policy.infer import compile_patterns
        from memctl.services.structure import propose

        if self.kinds is not None and self.config.typing.infer:
            rules = self.kinds.typing
            compile_patterns(rules.recognisers, rules.lexicon, rules.common)
            propose("warm up", clock.now().date(), self.kinds)

    def add(self, text: str, *, redact: bool | None = None, llm: str | None = None, dry_run: bool = False,
            overrides: dict[str, Any] | None = None, rate_session: str | None = None, surface: Surface = "add",
            trusted_source: bool = True, second_fit: bool = True, **fields: Any) -> WriteResult:
        """Gate, decide and write one memory; Refused (exit 3) when the gate says no. `surface` is
        which of the gate's rules apply (add, or import for candidates from a file, a store or an
        extraction: policy/gate.py RULES); `trusted_source` False (a server's client it does not
        trust) records the write as `ai` whatever source it claims (policy/gate.py claimed_source).
        `second_fit` False decides with the shipped model's pair fit even when a multilingual second
        model is fused (a bulk import cannot afford that model's pair cosines: ImportDefaults).

        The rate limit counts automatic writes of `rate_session` (default: the memory's session),
        so extraction can write long-term memories while being limited per conversation."""
        request = AddRequest.model_construct(text=text, fields=fields, llm=llm, rate_session=rate_session, surface=surface,
                                             redact=redact, overrides=overrides, trusted_source=trusted_source,
                                             second_fit=second_fit)
        self.search.prepare(text.strip() or None)  # the model and the embeddings: never under the lock
        with self.repo.locked():
            try:
                result = self._add_locked(request, dry_run)
            finally:
                self._links.flush(self.repo, self.actor)
        outcome = self._link_failure(result)
        if isinstance(outcome, MemctlError):
            raise outcome
        return result

    def add_many(self, requests: Sequence[AddRequest], batch: int = ADD_BATCH) -> list[WriteResult | MemctlError]:
        """Many adds, with the decisions of calling `add` for each in order (later ones see earlier
        ones, repeats within the batch included), and what each gave: its WriteResult or the error
        `add` would have raised, so one bad request never stops the rest. Per `batch` requests: their
        texts embedded in one model call before the lock (the next batch's in a worker thread while
        this one is written: Engine.embed_ahead), then one write-lock hold for all of them."""
        size = max(1, batch)
        chunks = [requests[start:start + size] for start in range(0, len(requests), size)]
        out: list[WriteResult | MemctlError] = []
        ahead = None
        for at, chunk in enumerate(chunks):
            results, ahead = self._add_chunk(chunk, ahead, chunks[at + 1] if at + 1 < len(chunks) else None)
            out += results
        return out

    def _batch_texts(self, chunk: Sequence[AddRequest]) -> tuple[list[str], list[str]]:
        """What a batch embeds: its texts, and their pair-model frames when the model has a pair fit."""
        texts = [r.text.strip() for r in chunk if r.text.strip()]
        identity, _ = self.search.text_similarities([])
        frames = [frame(r.text.strip(), r.fields.get("user")) for r in chunk if r.text.strip()] \
            if fitted_for(identity.split(":")[0]) else []
        return texts, frames

    def _add_chunk(self, chunk: Sequence[AddRequest], ahead: Any = None, following: Sequence[AddRequest] | None = None
                   ) -> tuple[list[WriteResult | MemctlError], Any]:
        """One batch written; the next one's texts (`following`) embedded meanwhile when the search
        can (what is returned with the results, for that batch to take)."""
        batch = getattr(self.search, "batch", None)  # a search that embeds in batches (search/engine.py)
        embed_ahead = getattr(self.search, "embed_ahead", None)
        out: list[WriteResult | MemctlError] = []
        with batch(*self._batch_texts(chunk), ahead=ahead) if batch is not None else contextlib.nullcontext():
            ahead = embed_ahead(*self._batch_texts(following)) if embed_ahead is not None and following else None
            while len(out) < len(chunk):
                with self.repo.locked():  # held at most HOLD_SECONDS: other writers wait that long at most
                    held = clock.monotonic()
                    try:
                        for request in chunk[len(out):]:
                            out.append(self._add_one(request))
                            if clock.monotonic() - held > HOLD_SECONDS:
                                break
                    finally:
                        self._links.flush(self.repo, self.actor)  # each stored memory rewritten once
        return [self._link_failure(result) for result in out], ahead

    def restore_links(self, memory_ids: Sequence[str]) -> list[str]:
        """Give the stored memories these (active) memories list as conflicting the link back a write
        killed before its lock hold ended lost (services/links.py); the ids given one back."""
        if not memory_ids:
            return []
        with self.repo.locked():
            return restore_back_links(self.repo, memory_ids, self.actor)

    def _link_failure(self, result: WriteResult | MemctlError) -> WriteResult | MemctlError:
        """A written memory whose conflict links could not be recorded on a stored memory: the
        error, as the add raised it when each add linked at once."""
        if isinstance(result, WriteResult) and result.written and result.memory is not None:
            return self._links.take_failed(result.memory.id) or result
        return result

    def _add_one(self, request: AddRequest) -> WriteResult | MemctlError:
        try:
            return self._add_locked(request)
        except MemctlError as exc:
            return exc

    def _add_locked(self, request: AddRequest, dry_run: bool = False) -> WriteResult:
        """Gate, decide and write one memory (the caller holds the lock; its embeddings are ready)."""
        candidate, fields, replaces, rate_session = self._candidate(request)
        verdict, decision = self._decided(candidate, request, rate_session, replaces)
        matched = self._matched(decision)
        result = WriteResult(verdict=verdict, decision=decision, memory=candidate, matched=matched,
                             notes=date_notes(candidate, fields.get("occurred")) + typed_notes(candidate),
                             inferred=inferred_of(candidate))
        if dry_run:
            return result
        if decision.action == "noop" and matched is not None and write_refusal(
                self.access, "change", access_view(matched)) is None:
            result.matched = self._reinforce(matched, candidate)
        if not verdict.passed:
            raise refusal(verdict.failures, data=result.to_data())
        result.memory, result.written = self._apply(candidate, decision, matched, rate_session), True
        getattr(self.search, "keep_written", lambda: None)()  # its vector, known: cached for the next process
        return result

    def _candidate(self, request: AddRequest) -> tuple[Memory, dict[str, Any], Any, str | None]:
        """The request's memory, its fields as built, what it says it replaces, and its rate session."""
        fields = dict(request.fields)
        if not request.trusted_source:
            fields["source"] = claimed_source(fields.get("source"), trusted=False)
        replaces = fields.pop("replaces", None)
        infer = fields.pop("infer", None)
        rate_session = name_arg(request.rate_session, "session") if request.rate_session else None
        candidate = self._build(request.text, fields, self.config.typing.infer if infer is None else bool(infer))
        return candidate, fields, replaces, rate_session

    def _decided(self, candidate: Memory, request: AddRequest, rate_session: str | None,
                 replaces: Any) -> tuple[GateVerdict, Decision]:
        """The gate's verdict and the write decision on the candidate, within the actor's rights."""
        redact = self.config.gate.redact if request.redact is None else request.redact
        verdict, decision = self.evaluate(candidate, redact=redact, llm=request.llm, overrides=request.overrides,
                                          rate_session=rate_session, surface=request.surface,
                                          second_fit=request.second_fit)
        decision = self._within_rights(self._typed(self._reported_change(decision, candidate, replaces), candidate))
        if decision.action != "noop":  # a typed memory with other fields is not a repeat of its text
            verdict = _without_duplicate(verdict)
        return verdict, decision

    def _matched(self, decision: Decision) -> Memory | None:
        """The stored memory the decision acts on, read whole (its pending links written first)."""
        if not decision.target:
            return None
        self._links.flush(self.repo, self.actor, only=decision.target)
        return self.repo.get(decision.target)

    def add_raw(self, text: str, **fields: Any) -> Memory:
        """Write a memory with no gate and no write decision (imports of trusted data, tests)."""
        with self.repo.locked():
            return self.repo.create(self._build(text, fields), actor=self.actor)

    def _build(self, text: str, fields: dict[str, Any], infer: bool = False) -> Memory:
        """The candidate, with its author (the actor, else the memory's user), typed when `infer` and a
        recogniser fits its text; Forbidden when the actor may not add it."""
        actor = self.access.actor if self.access else None
        fields.setdefault("author", actor or fields.get("user"))
        if self.kinds is not None:
            fields.update(typed_input(self.kinds.schemas, fields, self.config.types))
            if infer and not fields.get("kind"):
                fields.update(self._inferred(text, fields))
        fields["type"] = fields.get("type") or self.config.default_type
        if fields.get("part_of"):  # an id or a unique prefix of one
            fields["part_of"] = check_whole(self.repo, self.access, str(fields["part_of"]), None).id
        candidate = build_memory(self.repo, self.config, text, **fields)
        refusal = write_refusal(self.access, "create", access_view(candidate))
        if refusal:
            raise Forbidden(refusal)
        return candidate

    def _inferred(self, text: str, fields: dict[str, Any]) -> dict[str, Any]:
        """The kind, fields (and the kind's type, when none was given) the recognisers read in `text`."""
        from memctl.services.structure import TYPED_KEY, propose

        assert self.kinds is not None
        created = fields.get("created")
        today = created.date() if isinstance(created, datetime) else clock.now().date()
        proposal = propose(text, today, self.kinds)
        if proposal is None:
            return {}
        out: dict[str, Any] = {"kind": proposal.kind, "fields": proposal.fields,
                               "extra": {**(fields.get("extra") or {}), TYPED_KEY: proposal.by}}
        schema = self.kinds.schemas[proposal.kind]
        if not fields.get("type") and schema.type in self.config.types:
            out["type"] = schema.type
        return out

    def _reported_change(self, decision: Decision, candidate: Memory, replaces: str | None) -> Decision:
        """An extractor that saw the stored memories may report that the candidate replaces one: a plain
        add becomes a supersede of it (same owner and type only; anything else is left to the rules)."""
        if not replaces or decision.action != "add" or decision.decided_by == "none":
            return decision
        try:
            old = self.repo.get(replaces)
        except (NotFound, UsageError):
            return decision
        if not self.repo.is_active(old) or old.owner != candidate.owner or old.type != candidate.type:
            return decision
        return decision.model_copy(update={"action": "supersede", "target": old.id, "decided_by": "llm",
                                           "conflicts_with": [c for c in decision.conflicts_with if c != old.id],
                                           "reason": f"the extractor reports it replaces {old.id}"})

    def _typed(self, decision: Decision, candidate: Memory) -> Decision:
        """A typed memory's decision made by its fields (services/kinds.py: typed_change)."""
        if not candidate.kind or self.kinds is None:
            return decision
        matched = self.repo.get(decision.target) if decision.target else None
        stored = [m for m in self.repo.active(owner=candidate.owner) if m.kind == candidate.kind]
        return typed_change(decision, candidate, matched, self.kinds.schemas, stored)

    def _within_rights(self, decision: Decision) -> Decision:
        """An update or supersede of a memory the actor may not change becomes a plain add."""
        if decision.target is None or decision.action == "noop":
            return decision
        target = self.repo.get(decision.target)
        if write_refusal(self.access, "change", access_view(target)) is None:
            return decision
        return decision.model_copy(update={"action": "add", "target": None, "text": None,
                                           "conflicts_with": [*decision.conflicts_with, target.id],
                                           "reason": f"{decision.reason}; not yours to change, added beside it"})

    # -- deciding ------------------------------------------------------------------------------
    def evaluate(self, candidate: Memory, *, redact: bool, llm: str | None,
                 overrides: dict[str, Any] | None = None, rate_session: str | None = None,
                 surface: Surface = "add", second_fit: bool = True) -> tuple[GateVerdict, Decision]:
        """Gate and decision for a candidate, changing nothing (the caller holds the lock); `second_fit`
        False: the shipped model's pair fit, never the second model's pair cosines."""
        th = resolve_gate(self.config, overrides)
        session = rate_session or candidate.session
        group = self._peers(candidate)
        fp = fingerprint(candidate.body)
        duplicate = next((m.id for m in group if fingerprint(m.body) == fp), None)
        verdict = evaluate_gate(candidate.body, confidence=candidate.confidence, source=candidate.source,
                                session=session, duplicate_of=duplicate, thresholds=th, redact=redact,
                                auto_writes_in_window=self._auto_writes(candidate, session, th.rate_window_hours),
                                fields=text_fields(candidate), owner=candidate.owner, surface=surface)
        if duplicate:
            return verdict, Decision(action="noop", target=duplicate, reason="same normalised content")
        if not verdict.passed:
            return verdict, Decision(action="add", reason="refused by the gate", decided_by="none")
        candidate.body = verdict.text
        neighbors = self._with_frames(candidate, group, self._neighbors(candidate, group, th.related_threshold),
                                      second_fit)
        life = self.config.lifecycle
        history = bool(candidate.key) and life.keys.get(str(candidate.key), life.key_policy) == "history"
        cand = Candidate(text=candidate.body, type=candidate.type, key=candidate.key, history=history,
                         owner=candidate.user)
        decision = decide(cand, neighbors, duplicate_threshold=th.duplicate_threshold,
                          related_threshold=th.related_threshold)
        llm = llm or configured_llm()
        if llm and decision.action == "add" and decision.decided_by == "rules":
            shown = neighbors or self._closest(candidate, group)  # mem0's way: the candidates shown
            decision = ask_llm(llm, cand, shown, decision) if shown else decision
        if decision.action == "noop":
            verdict = _with_duplicate(verdict, decision.target)
        return verdict, decision

    def _auto_writes(self, candidate: Memory, session: str | None, hours: float) -> int:
        """Automatic writes in the window: of the candidate's session (its owner is the session's, e.g.
        users/alice: bob's session of the same name is another), or with no session, of its owner.
        Only an automatic write is limited by them (policy/gate.py check_rate): an explicit one's is 0,
        and the journal is not read for it."""
        if candidate.source.strip().lower() not in AUTO_SOURCES:
            return 0
        owner = candidate.session_owner if session else candidate.owner
        now = clock.now()
        return self.repo.auto_writes(session, clock.format_timestamp(now - timedelta(hours=hours)),
                                     clock.format_timestamp(now), owner=owner)

    def _peers(self, candidate: Memory) -> list[Memory]:
        """Active memories of the same owner and type that the actor may see: what a candidate may
        repeat or change (a memory the actor cannot see is never named to them)."""
        return [m for m in self.repo.active(owner=candidate.owner) if can_read(self.access, access_view(m))
                and (m.type == candidate.type or announces_change_of(m.body, candidate.body))]

    def _closest(self, candidate: Memory, group: list[Memory], k: int = LLM_CANDIDATES) -> list[Neighbor]:
        """The owner's k memories closest to the candidate, however far: what an LLM is shown when
        no stored memory is similar enough for the rules ("I switched to a Pixel 8" / "my phone is
        an iPhone 13" share no word)."""
        sims = self.search.similarities(candidate.body, [m.id for m in group]) if group else {}
        ranked = sorted(group, key=lambda m: (-float(sims.get(m.id, 0.0)), m.id))[:k]
        return [Neighbor(id=m.id, text=m.body, type=m.type, key=m.key, cosine=float(sims.get(m.id, 0.0)),
                         created=m.created, confidence=m.confidence) for m in ranked]

    def _with_frames(self, candidate: Memory, group: list[Memory], neighbors: list[Neighbor],
                     second_fit: bool = True) -> list[Neighbor]:
        """The similar memories and the closest ones however far, the FRAMED closest of them with the
        cosine of their frame to the candidate's (values masked: policy/pairs.py), when the pair model
        is fitted for the write path's model; the similar ones alone otherwise."""
        identity, _ = self.search.text_similarities([])
        if not group or not fitted_for(identity.split(":")[0]):
            return neighbors
        known = {n.id for n in neighbors}
        pool = [*neighbors, *(n for n in self._closest(candidate, group, FRAMED) if n.id not in known)]
        framed = sorted((n for n in pool if n.type == candidate.type), key=lambda n: (-n.cosine, n.id))[:FRAMED]
        owner = candidate.user
        _, cosines = self.search.text_similarities([(frame(n.text, owner), frame(candidate.body, owner)) for n in framed])
        by_id = {n.id: c for n, c in zip(framed, cosines)}
        more = self._ml_cosines(candidate, framed) if second_fit else {}
        return [n.model_copy(update={"frame_cosine": by_id[n.id], "ml_cosines": more.get(n.id)}) if n.id in by_id else n
                for n in pool if n.id in known or n.id in by_id]

    def _ml_cosines(self, candidate: Memory, framed: list[Neighbor]) -> dict[str, dict[str, float]]:
        """Per framed neighbour, the multilingual model's cosines of `ml_pairs` (statements, frames,
        attributes, values), when the search fuses that model (the pair model's second fit reads them)
        and both texts are statement-sized (a longer pair is read by the shipped fit)."""
        framed = [n for n in framed if reads_multilingual(n.text, candidate.body)]
        if not framed or not isinstance(self.search, SecondModel):
            return {}
        if not multilingual_fit_for(self.search.second_text_similarities([])[0]):
            return {}  # another second model: the fit does not read its cosines, so none are embedded
        asked = [(n.id, key, pair) for n in framed for key, pair in ml_pairs(n.text, candidate.body, candidate.user).items()]
        _, cosines = self.search.second_text_similarities([pair for _, _, pair in asked])
        out: dict[str, dict[str, float]] = {}
        for (nid, key, _), cos in zip(asked, cosines):
            out.setdefault(nid, {})[key] = cos
        return out

    def _neighbors(self, candidate: Memory, group: list[Memory], related: float) -> list[Neighbor]:
        """Stored memories similar to the candidate (cosine >= related), sharing its key, or stating the
        attribute whose change the candidate announces ("moved to" finds "lives in", however far apart)."""
        if not group:
            return []
        sims = self.search.similarities(candidate.body, [m.id for m in group])
        out = []
        for m in group:
            cos = float(sims.get(m.id, 0.0))
            if (cos >= related or (candidate.key and m.key == candidate.key) or announces_change_of(m.body, candidate.body)
                    or (m.type == candidate.type and slot_relation(m.body, candidate.body, candidate.user) == "change")):
                out.append(Neighbor(id=m.id, text=m.body, type=m.type, key=m.key, cosine=cos,
                                    created=m.created, confidence=m.confidence))
        return out

    # -- applying ------------------------------------------------------------------------------
    def _turn_at(self, user: str | None, session: str | None) -> dict[str, int]:
        """Where in the session's transcript a write was made (how many messages it held): extract
        tells which turn the write covers by this, never by the clock, which MEMCTL_NOW may pin."""
        count = self.repo.transcripts.count(user, session) if user and session else 0
        return {"turn_at": count} if count else {}

    def _reinforce(self, stored: Memory, candidate: Memory) -> Memory:
        """A repeat: keep the higher confidence and record the extra source (and its source ids)."""
        data = stored.model_dump(exclude={"path"})
        data["confidence"] = max(stored.confidence, candidate.confidence)
        if candidate.source != stored.source and candidate.source not in stored.sources:
            data["sources"] = [*stored.sources, candidate.source]
        data["source_ids"] = list(dict.fromkeys([*stored.source_ids, *candidate.source_ids]))
        new = Memory(**data, path=stored.path)
        if new.model_dump() == stored.model_dump():
            return stored
        return self.repo.rewrite(new, "reinforce", by=candidate.source, actor=self.actor)

    def _apply(self, candidate: Memory, decision: Decision, matched: Memory | None,
               rate_session: str | None) -> Memory:
        """Carry out an add / update / supersede decision (caller holds the lock)."""
        detail = self._write_detail(candidate, rate_session)
        if decision.action == "update" and matched is not None:
            return self._update(matched, candidate, decision, detail)
        if decision.action == "supersede" and matched is not None:
            return self._supersede(matched, candidate, detail)
        return self._create(candidate, decision, detail)

    def _write_detail(self, candidate: Memory, rate_session: str | None) -> dict[str, Any]:
        """What the write's history entry records of its source, session, owner and turn."""
        session = rate_session or candidate.session
        return {"source": candidate.source, "session": session, "owner": candidate.owner,
                "session_of": candidate.session_owner if session else None, **self._turn_at(candidate.user, session)}

    def _update(self, matched: Memory, candidate: Memory, decision: Decision, detail: dict[str, Any]) -> Memory:
        """The stored memory rewritten with the candidate's body, tags, source ids and confidence."""
        data = matched.model_dump(exclude={"path"})
        # the candidate's own time: now for an add, the source's for an import (never going back)
        data.update(body=decision.text or candidate.body, updated=max(matched.updated, candidate.updated),
                    confidence=max(matched.confidence, candidate.confidence),
                    tags=list(dict.fromkeys([*matched.tags, *candidate.tags])),
                    source_ids=list(dict.fromkeys([*matched.source_ids, *candidate.source_ids])))
        return self.repo.rewrite(Memory(**data, path=matched.path), "update", previous_body=matched.body,
                                 actor=self.actor, **detail)

    def _supersede(self, matched: Memory, candidate: Memory, detail: dict[str, Any]) -> Memory:
        """The candidate written, the stored memory it replaces archived as superseded by it."""
        candidate.supersedes = matched.id
        written = self.repo.create(candidate, "supersede", target=matched.id, actor=self.actor, **detail)
        self.repo.archive(matched, "superseded", f"superseded by {written.id}", "superseded",
                          superseded_by=written.id, actor=self.actor)
        return written

    def _create(self, candidate: Memory, decision: Decision, detail: dict[str, Any]) -> Memory:
        """The candidate written as new, linked both ways to the memories it conflicts with."""
        candidate.conflicts_with = list(decision.conflicts_with)
        _after_linked(self.repo, candidate)
        written = self.repo.create(candidate, "add", actor=self.actor, **detail)
        for other in decision.conflicts_with:
            self._links.add(other, written.id)  # written as the lock hold ends (PendingLinks)
        return written


def _after_linked(repo: Memories, candidate: Memory) -> None:
    """A memory written in the same second as one it conflicts with is dated a second later, so
    "newer first" between the two never depends on their random ids (times are kept to the second)."""
    if not candidate.conflicts_with:
        return
    latest = max(repo.get(other).created for other in candidate.conflicts_with)
    if candidate.created <= latest:  # not only equal: one it conflicts with may be dated ahead already
        candidate.created = candidate.updated = latest + timedelta(seconds=1)


def configured_llm() -> str | None:
    """The LLM command the person configured for write decisions (MEMCTL_LLM), or None: the rules
    alone, the default. Never read from the memory folder: a shared folder's memctl.toml is
    untrusted input and must not name a command memctl runs."""
    return os.environ.get(LLM_ENV, "").strip() or None


def ask_llm(command: str, cand: Candidate, neighbors: list[Neighbor], fallback: Decision) -> Decision:
    """The LLM's decision on an ambiguous case; the rules' decision when it fails or answers badly."""
    from memctl.policy.decide import llm_decision_prompt, parse_llm_decision
    from memctl.services.llm import LLMError, run_llm

    try:
        answer = parse_llm_decision(run_llm(command, llm_decision_prompt(cand, neighbors)), neighbors)
    except LLMError as exc:
        return fallback.model_copy(update={"reason": f"{fallback.reason} (llm failed: {exc})"})
    if answer is None:
        return fallback.model_copy(update={"reason": f"{fallback.reason} (llm answer malformed; rules decided)"})
    return answer


def _without_duplicate(verdict: GateVerdict) -> GateVerdict:
    remaining = [f for f in verdict.failures if f.code != "duplicate"]
    if len(remaining) == len(verdict.failures):
        return verdict
    return verdict.model_copy(update={"passed": not remaining, "failures": remaining})


def _with_duplicate(verdict: GateVerdict, target: str | None) -> GateVerdict:
    failure = GateFailure(code="duplicate", message=f"the same fact is already stored as {target}")
    return verdict.model_copy(update={"passed": False, "failures": [*verdict.failures, failure]})
