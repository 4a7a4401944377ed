"""Transcripts and extraction: append conversation messages, and turn new ones into memories via an LLM.

A transcript is append-only, one message per line with the id `<session>:<n>`; the extraction
watermark (the last message already extracted) is kept beside it. Extracted candidates are imported
as source `auto`: long-term memories of the user, with the gate's per-session rate limit applied to
the transcript's session (the message ids in `source_ids` keep the provenance).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field

from memctl import clock
from memctl.config import Config
from memctl.core import jsonsafe
from memctl.core.access import Access
from memctl.core.models import Memory, name_arg
from memctl.errors import Forbidden, InvalidMemory, MemctlError, UsageError
from memctl.services.imports import (
    CandidateIn,
    ImportDefaults,
    ImportReport,
    ImportService,
    candidate_from,
    decode_input,
)
from memctl.store.layout import PROMPT_NAME
from memctl.store.repository import ExtractionStore

EXTRACT_SOURCE = "auto"
DEFAULT_EXTRACT_CONFIDENCE = 0.8
_PLACEHOLDER = re.compile(r"\{\{\s*(messages|user|types|memories|kinds)\s*\}\}")
SIMILAR_IN_PROMPT = 10  # stored memories shown to the extractor, so it reports changes instead of restating


class ExtractionError(MemctlError):
    """The model's answer could not be read as candidates; nothing of the batch was imported."""

    code = "bad_llm_output"


class Message(BaseModel):
    """One transcript line."""

    id: str
    role: str = "user"
    content: str
    time: str | None = None


class ExtractResult(BaseModel):
    """What one `extract` run did."""

    user: str
    session: str
    pending: int
    every: int
    called_model: bool = False
    candidates: int = 0
    watermark: str | None = None
    skipped: list[str] = Field(default_factory=list)  # ids of messages in turns an explicit write covered
    report: ImportReport = Field(default_factory=ImportReport)


def parse_messages(text: str, session: str, what: str = "transcript") -> list[Message]:
    """Messages from JSON Lines; a line without an id gets `<session>:<line number>`."""
    out: list[Message] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = jsonsafe.loads(line)
            if not isinstance(raw, dict) or not str(raw.get("content", "")).strip():
                raise ValueError("expected an object with content")
            raw.setdefault("id", f"{session}:{number}")
            out.append(Message.model_validate({k: str(v) for k, v in raw.items() if v is not None}))
        except ValueError as exc:
            raise InvalidMemory(f"{what} line {number}: {str(exc).splitlines()[0]}", code="bad_transcript") from None
    return out


def pending_messages(messages: list[Message], state: dict[str, Any]) -> list[Message]:
    """Messages after the watermark (by id; by count if that id is gone from the file)."""
    last = state.get("last_id")
    ids = [m.id for m in messages]
    if last in ids:
        return messages[ids.index(last) + 1:]
    return messages[int(state.get("count", 0) or 0):] if last else messages


def turns(messages: list[Message]) -> list[list[Message]]:
    """Messages grouped into turns: each user message opens one, the replies after it belong to it."""
    out: list[list[Message]] = []
    for m in messages:
        if not out or m.role == "user":
            out.append([])
        out[-1].append(m)
    return out


def _position(message: Message, session: str) -> int | None:
    """A message's line in its transcript, from its id `<session>:<n>`."""
    head, _, number = message.id.rpartition(":")
    return int(number) if head == session and number.isdigit() else None


def _covers(turn: list[Message], end: str | None, session: str, write: tuple[str, int | None]) -> bool:
    """Whether a write was made during the turn: by the transcript position it recorded (the last
    message logged before it is in the turn), else (an older journal) by time."""
    time, turn_at = write
    positions = [p for p in (_position(m, session) for m in turn) if p is not None]
    if turn_at is not None and positions:
        return min(positions) <= turn_at <= max(positions)
    start = turn[0].time
    return turn_at is None and start is not None and start <= time and (end is None or time < end)


def uncovered(messages: list[Message], writes: list[tuple[str, int | None]],
              session: str = "") -> tuple[list[Message], list[Message]]:
    """(messages to extract, messages skipped): a turn during which an explicit write was made is
    covered by it (one channel at a time), whatever the clock says (MEMCTL_NOW may pin it); a turn
    without positions or times is never taken as covered."""
    keep: list[Message] = []
    skip: list[Message] = []
    grouped = turns(messages)
    for n, turn in enumerate(grouped):
        end = grouped[n + 1][0].time if n + 1 < len(grouped) else None
        covered = any(_covers(turn, end, session, write) for write in writes)
        (skip if covered else keep).extend(turn)
    return keep, skip


def render_prompt(template: str, messages: list[Message], user: str, types: tuple[str, ...],
                  memories: list[str] | None = None, kinds: str = "") -> str:
    """Fill `{{ messages }}`, `{{ user }}`, `{{ types }}` and `{{ memories }}` (the owner's stored
    memories most like the messages, numbered [1], [2]...; one pass: no text is ever re-expanded) and
    `{{ kinds }}` (the typed kinds and their fields, one a line). A
    template without `{{ memories }}` (written by an older memctl) gets them after the messages."""
    lines = [f"[{m.id}]{' ' + m.time if m.time else ''} {m.role}: " + m.content.strip().replace("\n", "\n    ")
             for m in messages]
    numbered = "\n".join(f"[{n}] {' '.join(text.split())}" for n, text in enumerate(memories or [], start=1)) or "(none)"
    values = {"messages": "\n".join(lines), "user": user, "types": ", ".join(types), "memories": numbered,
              "kinds": kinds or "(none)"}
    if "memories" not in {m.group(1) for m in _PLACEHOLDER.finditer(template)} and memories:
        template += "\n\nSTORED MEMORIES (report a change with \"replaces\": <number>; never restate one):\n{{ memories }}\n"
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def parse_model_output(output: str) -> list[CandidateIn]:
    """Candidates from JSON Lines or a JSON array (code fences allowed); ExtractionError if malformed."""
    text = "\n".join(line for line in output.strip().splitlines() if not line.strip().startswith("```"))
    if not text.strip():
        return []
    try:
        whole = jsonsafe.loads(text)
        raws = whole if isinstance(whole, list) else whole.get("candidates", [whole]) if isinstance(whole, dict) else [whole]
    except ValueError:
        raws = [_json_line(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    out = []
    for number, raw in enumerate(raws, start=1):
        if isinstance(raw, dict) and "source_message_ids" in raw and "source_ids" not in raw:
            raw = {**raw, "source_ids": raw["source_message_ids"]}
        if isinstance(raw, dict) and "confidence" not in raw:
            raw = {**raw, "confidence": DEFAULT_EXTRACT_CONFIDENCE}
        try:
            out.append(candidate_from(raw))
        except ValueError as exc:
            raise ExtractionError(f"model output candidate {number}: {exc}") from None
    return out


def _json_line(number: int, line: str) -> Any:
    try:
        return jsonsafe.loads(line)
    except ValueError:
        raise ExtractionError(f"model output line {number} is not JSON: {line.strip()[:60]!r}") from None


class TranscriptService:
    """Log conversation messages and extract memories from the ones not yet extracted."""

    def __init__(self, repo: ExtractionStore, config: Config, importer: ImportService, access: Access | None = None) -> None:
        self.repo = repo
        self.config = config
        self.importer = importer
        self.access = access

    def _kinds_text(self) -> str:
        """`passport: country (country, required), expires (date, required)`, one kind a line."""
        kinds = self.importer.writer.kinds
        return "\n".join(f"- {name}: {s.field_list()}" for name, s in kinds.schemas.items()) if kinds else ""

    def _names(self, user: str, session: str) -> tuple[str, str]:
        """Checked names; with an actor, a transcript is only the actor's own."""
        user, session = name_arg(user, "user"), name_arg(session, "session")
        if self.access is not None and user != self.access.actor:
            raise Forbidden(f"{self.access.actor} may not read or write {user}'s conversations")
        return user, session

    def messages(self, user: str, session: str) -> list[Message]:
        """Every message of a session's transcript (none when it does not exist yet)."""
        user, session = self._names(user, session)
        data = self.repo.transcripts.raw(user, session)
        if data is None:
            return []
        return parse_messages(decode_input(data, f"transcript {user}/{session}"), session, f"transcript {user}/{session}")

    def log(self, user: str, session: str, content: str, role: str = "user", keep_secrets: bool = False) -> Message:
        """Append one message to the session's transcript (under the write lock, fsynced); secrets in it
        are masked before it is written unless `keep_secrets`."""
        from memctl.policy.secrets import mask

        user, session = self._names(user, session)
        if not content.strip():
            raise InvalidMemory("empty message: nothing to log", code="empty_content")
        content = content if keep_secrets else mask(content)
        if not role.strip() or "\n" in role:
            raise UsageError(f"invalid role {role!r}", code="bad_role")
        with self.repo.locked():
            number = self.repo.transcripts.count(user, session) + 1
            message = Message(id=f"{session}:{number}", role=role.strip(), content=content,
                              time=clock.format_timestamp(clock.now()))
            self.repo.transcripts.append(user, session, message.model_dump())
        return message

    def extract(self, user: str, session: str, llm: str, *, every: int = 1,
                messages: list[Message] | None = None) -> ExtractResult:
        """Extract memories from the session's messages not yet extracted; the model is called only if
        there are some. One extraction per session at a time (a lock of its own, not the write lock,
        which each write takes): a second run waits, then finds the watermark moved and calls no model."""
        if every < 1:
            raise UsageError("--every must be at least 1", code="bad_every")
        user, session = self._names(user, session)
        with self.repo.named_lock(f"extract-{user}-{session}"):
            return self._extract(user, session, llm, every, messages)

    def _extract(self, user: str, session: str, llm: str, every: int, messages: list[Message] | None) -> ExtractResult:
        from memctl.services.llm import run_llm

        if messages is None:
            messages = self.messages(user, session)
        state = self.repo.transcripts.read_state(user, session)
        pending = pending_messages(messages, state)
        result = ExtractResult(user=user, session=session, pending=len(pending), every=every,
                               watermark=state.get("last_id"))
        if not pending or len(pending) < every:
            return result
        writes = self.repo.session_writes(session, min(m.time or "" for m in pending), f"users/{user}")
        todo, skipped = uncovered(pending, writes, session)
        result.skipped = [m.id for m in skipped]
        if not todo:
            return self._advance(result, user, session, messages, pending[-1])
        similar = self._similar(user, todo)
        prompt = render_prompt(self.repo.text(PROMPT_NAME), todo, user, self.config.types, [m.body for m in similar],
                               self._kinds_text())
        candidates = parse_model_output(run_llm(llm, prompt))
        result.called_model, result.candidates = True, len(candidates)
        known = {m.id for m in todo}
        for cand in candidates:
            cand.source_ids = [i for i in cand.source_ids if i in known]
            cand.replaces = _replaced_id(cand.replaces, similar)
            cand.occurred = cand.occurred or _dated(cand, todo)
        # Long-term memories of the user, rate-limited per session (the session is kept in source_ids).
        defaults = ImportDefaults(user=user, source=EXTRACT_SOURCE, rate_session=session)
        forced = [(n, c.model_copy(update={"user": user, "project": None, "session": None, "source": EXTRACT_SOURCE}))
                  for n, c in enumerate(candidates, start=1)]
        result.report = self.importer.import_candidates(forced, defaults)
        return self._advance(result, user, session, messages, pending[-1])

    def _advance(self, result: ExtractResult, user: str, session: str, messages: list[Message],
                 last: Message) -> ExtractResult:
        """Move the watermark past `last` (extracted or skipped: never sent again)."""
        self.repo.transcripts.write_state(user, session, {"last_id": last.id, "count": messages.index(last) + 1,
                                                          "extracted_at": clock.format_timestamp(clock.now())})
        result.watermark = last.id
        return result

    def _similar(self, user: str, todo: list[Message]) -> list[Memory]:
        """The user's stored memories most like the new messages (hybrid: keyword and embedding)."""
        from memctl.policy.rank import fuse
        from memctl.store.filters import scope_filter

        pool = self.repo.candidates(scope_filter(self.config.members, [user], access=self.access), clock.now())
        if not pool:
            return []
        text = " ".join(m.content for m in todo if m.role == "user") or " ".join(m.content for m in todo)
        search = self.importer.writer.search
        fused = fuse(search.keyword_search(text, SIMILAR_IN_PROMPT, pool),
                     search.semantic_search(text, SIMILAR_IN_PROMPT, pool), self.config.recall)
        return [self.repo.load(pool[s.id]) for s in fused[:SIMILAR_IN_PROMPT] if s.id in pool]


def _dated(cand: CandidateIn, todo: list[Message]) -> str | None:
    """A relative date left in a candidate ("tomorrow") read against when its messages were sent."""
    from memctl.policy.when import resolve_occurred

    times = [m.time for m in todo if m.time and (m.id in cand.source_ids or not cand.source_ids)]
    if not times:
        return None
    return resolve_occurred(cand.content, clock.parse_timestamp(max(times)).date())[0]


def _replaced_id(number: Any, similar: list[Memory]) -> str | None:
    """The stored memory a candidate says it replaces, from the number the prompt showed it under."""
    try:
        index = int(number) - 1
    except (TypeError, ValueError):
        return None
    return similar[index].id if 0 <= index < len(similar) else None
