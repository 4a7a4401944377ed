"""Import: many candidate memories at once, each through the gate and the write decision.

Input is JSON Lines (`{"content": ..., "type": ..., ...}`) or the line format
`[type:subtype] content` / `[type] content`, one candidate per line. A bad line is
reported with its number and counted as refused; it never stops the import.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone
from typing import Any, Iterable, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memctl import clock
from memctl.core import jsonsafe
from memctl.errors import ConfigError, InvalidMemory, MemctlError, Refused, StoreError, UsageError
from memctl.policy.decide import fingerprint
from memctl.services.write import ADD_BATCH, AddRequest, WriteResult, WriteService
from memctl.store.repository import Memories

# Categories of other presets mapped onto a configured type; used only for names not configured.
TYPE_ALIASES: dict[str, str] = {
    "profile": "fact", "relation": "fact", "topic": "context", "custom": "fact",
    "user": "fact", "feedback": "preference", "reference": "fact", "project": "context",
}
Outcome = Literal["added", "updated", "superseded", "skipped", "refused"]
OUTCOMES: tuple[Outcome, ...] = ("added", "updated", "superseded", "skipped", "refused")
_DONE: dict[str, Outcome] = {"add": "added", "update": "updated", "supersede": "superseded", "noop": "skipped"}
ALREADY = "already_imported"  # the code of a line a stored memory took in an earlier run
STATED = "import:"  # the prefix of a line's statement id, kept in source_ids
_LINE = re.compile(r"^\[\s*([^\]:\s]+)\s*(?::\s*([^\]\s]+)\s*)?\]\s*(.*)$", re.DOTALL)


class ImportDefaults(BaseModel):
    """Values for what a candidate does not carry (from --user, --project, --session, --source)."""

    user: str | None = None
    project: str | None = None
    session: str | None = None
    source: str = "import"
    rate_session: str | None = None  # the session whose automatic-write rate limit applies
    second_fit: bool = True  # False: decide with the shipped model's pair fit (a bulk import: no e5 pair cosines)


class CandidateIn(BaseModel):
    """One candidate as read from a line; unknown fields are ignored."""

    model_config = ConfigDict(extra="ignore")

    content: str
    type: str = "fact"
    subtype: str | None = None
    confidence: float = 1.0
    user: str | None = None
    project: str | None = None
    session: str | None = None
    source: str | None = None
    key: str | None = None
    tags: list[str] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)
    name: str | None = None
    description: str | None = None
    created: datetime | None = None
    updated: datetime | None = None
    occurred: str | None = None
    state: str | None = None
    valid_until: datetime | None = None
    kind: str | None = None  # a typed memory: its kind, and fields checked against the kind's schema
    fields: Any = None
    replaces: Any = None  # extraction: the number of a stored memory shown in the prompt, then its id
    extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("occurred", mode="before")
    @classmethod
    def _day(cls, value: Any) -> Any:
        return None if value in (None, "") else str(value)

    @field_validator("created", "updated", "valid_until", mode="before")
    @classmethod
    def _when(cls, value: Any) -> Any:
        return to_time(value)

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("content is empty")
        return value

    @field_validator("tags", "source_ids", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else [] if value is None else value


def to_time(value: Any) -> datetime | None:
    """A source's timestamp as UTC: ISO 8601 text, or seconds or milliseconds since the epoch."""
    if value is None or value == "" or isinstance(value, datetime):
        return value or None
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if abs(value) > 1e11 else value  # after 1973 in ms, before 5138 in s
        return datetime.fromtimestamp(seconds, tz=timezone.utc).replace(microsecond=0)
    if isinstance(value, str):
        try:
            return clock.parse_timestamp(value).replace(microsecond=0)
        except UsageError:
            raise ValueError(f"not a time: {value!r}") from None
    raise ValueError(f"not a time: {value!r}")


class ImportItem(BaseModel):
    """What happened to one input line."""

    line: int
    ref: str | None = None  # where it came from, for imports of other stores (a file, a row, an id)
    outcome: Outcome
    decision: str | None = None
    id: str | None = None
    codes: list[str] = Field(default_factory=list)
    message: str | None = None


class ImportReport(BaseModel):
    """Per-line outcomes and their counts."""

    items: list[ImportItem] = Field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return {name: sum(item.outcome == name for item in self.items) for name in OUTCOMES}

    @property
    def refused(self) -> int:
        return self.counts["refused"]

    def to_data(self) -> dict[str, Any]:
        return {"counts": self.counts,
                "items": [i.model_dump(mode="json", exclude=None if i.ref else {"ref"}) for i in self.items]}


def decode_input(data: bytes, what: str = "input") -> str:
    """Bytes to text; non-UTF-8 input is a usage error (exit 2), never a crash."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidMemory(f"{what} is not UTF-8 text (byte {exc.start})", code="not_utf8") from None


def parse_line(text: str) -> CandidateIn:
    """One non-empty line as a candidate; raises ValueError with a one-line reason."""
    if text.startswith("{"):
        try:
            raw = jsonsafe.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not valid JSON: {exc.msg} (column {exc.colno})") from None
        except ValueError as exc:
            raise ValueError(f"not valid JSON: {exc}") from None
        return candidate_from(raw)
    match = _LINE.match(text)
    if not match:
        raise ValueError("expected a JSON object or '[type] content'")
    kind, subtype, content = match.groups()
    return candidate_from({"content": content, "type": kind, "subtype": subtype})


def candidate_from(raw: Any) -> CandidateIn:
    """Validate a decoded candidate object; raises ValueError naming the bad field."""
    if not isinstance(raw, dict):
        raise ValueError(f"expected a JSON object, got {type(raw).__name__}")
    try:
        return CandidateIn.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "candidate"
        message = str(err["msg"]).removeprefix("Value error, ")
        raise ValueError(f"{where}: {message}") from None


def parse_lines(text: str) -> list[tuple[int, CandidateIn | str]]:
    """(line number, candidate or error message) for each non-blank, non-comment line."""
    out: list[tuple[int, CandidateIn | str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            out.append((number, parse_line(stripped)))
        except ValueError as exc:
            out.append((number, str(exc)))
    return out


def resolve_type(name: str, configured: Iterable[str]) -> tuple[str, str | None]:
    """(type, subtype hint): a configured type as is, else its alias when the alias is configured."""
    configured = tuple(configured)
    name = name.strip()
    if name in configured:
        return name, None
    alias = TYPE_ALIASES.get(name.casefold())
    if alias in configured:
        return alias, name  # keep the original category as the subtype: nothing is lost
    return name, None  # build_memory refuses it with unknown_type


def _refused_item(number: int, exc: Refused) -> ImportItem:
    data = exc.data if isinstance(exc.data, dict) else {}
    codes = [f["code"] for f in (data.get("verdict") or {}).get("failures", [])] or [exc.code]
    decision = data.get("decision") or {}
    if set(codes) == {"duplicate"}:
        return ImportItem(line=number, outcome="skipped", decision="noop", id=decision.get("target"),
                          codes=codes, message=exc.message)
    return ImportItem(line=number, outcome="refused", decision=decision.get("action"), codes=codes,
                      message=exc.message)


def statement_id(request: AddRequest) -> str:
    """The id of what an imported line states: its owner, type and normalised text, and its time when
    it gives one (an undated line states the same thing however often it is imported)."""
    fields = request.fields
    when = fields.get("created")
    parts = [fields.get("user"), fields.get("project"), fields.get("type"), fields.get("subtype"),
             fingerprint(request.text), when.isoformat() if isinstance(when, datetime) else None]
    digest = hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()[:16]
    return STATED + digest


def remembered(request: AddRequest) -> str:
    """The request's statement id, added to the source ids its memory keeps (or the stored memory it
    repeats or updates keeps: the write path merges them), so a second run knows the line."""
    stated = statement_id(request)
    request.fields["source_ids"] = [*(request.fields.get("source_ids") or []), stated]
    return stated


class Taken(NamedTuple):
    """The stored memory that took a line in an earlier run, and its status when archived."""

    id: str
    archived: str | None  # "forgotten", "superseded", "merged", ...; None: active


def imported_before(repo: Memories) -> dict[str, Taken]:
    """Every source id a stored memory keeps (active or archived), with that memory."""
    return {sid: Taken(m.id, None if m.status == "active" else m.status)
            for m in repo.all_memories() for sid in m.source_ids}


def already_item(number: int, taken: Taken, ref: str | None = None) -> ImportItem:
    """A line a stored memory took in an earlier run: skipped, whatever happened to that memory since
    (a forgotten one stays forgotten; the message says how to bring it back)."""
    message = f"imported before as {taken.id}"
    if taken.archived:
        message += f" ({taken.archived} since; `memctl restore {taken.id}` brings it back)"
    return ImportItem(line=number, ref=ref, outcome="skipped", decision="noop", id=taken.id, codes=[ALREADY],
                      message=message)


class ImportService:
    """Many candidates at once, each through the gate and the write decision, in order."""

    def __init__(self, writer: WriteService) -> None:
        self.writer = writer

    def import_text(self, text: str, defaults: ImportDefaults | None = None, llm: str | None = None) -> ImportReport:
        """Import JSON Lines and/or `[type] content` lines (see the module docstring); a line a stored
        memory took in an earlier run (its statement id) is skipped as imported before."""
        return self.import_candidates(parse_lines(text), defaults or ImportDefaults(), llm, remember=True)

    def import_candidates(self, entries: Iterable[tuple[int, CandidateIn | str]], defaults: ImportDefaults,
                          llm: str | None = None, batch: int = ADD_BATCH, remember: bool = False) -> ImportReport:
        """Write each candidate in order (later lines see earlier ones); errors become refused items.
        Candidates go to the write path in one call, `batch` at a time (WriteService.add_many: one model
        call and one lock hold each, the next batch embedded while one is written), with the decisions
        of writing them one by one. `remember`: each line's
        statement id is kept (`remembered`) and a line whose id a stored memory keeps is skipped."""
        known = imported_before(self.writer.repo) if remember else None
        report = ImportReport()
        pending: list[tuple[int, AddRequest]] = []  # (place in the report, request)
        for number, entry in entries:
            if isinstance(entry, str):
                report.items.append(ImportItem(line=number, outcome="refused", codes=["malformed"], message=entry))
                continue
            request = self.request(entry, defaults, llm)
            done = _done_before(number, request, known)
            if done is not None:
                report.items.append(done)
                continue
            pending.append((len(report.items), request))
            report.items.append(ImportItem(line=number, outcome="refused"))  # its place, filled below
        self._write_batch(pending, report, batch)
        if known is not None:  # what a run killed before its lock hold ended left one-way
            self.writer.restore_links([i.id for i in report.items if ALREADY in i.codes and i.id])
        return report

    def _write_batch(self, pending: list[tuple[int, AddRequest]], report: ImportReport, batch: int = ADD_BATCH) -> None:
        """Write the pending requests, `batch` at a time, and put their items in the places kept for them."""
        if pending:
            results = self.writer.add_many([request for _, request in pending], batch=batch)
            for (at, _), result in zip(pending, results):
                report.items[at] = item_of(report.items[at].line, result)
        pending.clear()

    def write_request(self, number: int, request: AddRequest) -> ImportItem:
        """Send one request through the write path; refusals become an item, never an exception."""
        return item_of(number, self.writer.add_many([request])[0])

    def request(self, cand: CandidateIn, defaults: ImportDefaults, llm: str | None = None) -> AddRequest:
        """The add a candidate asks for: its fields, else the import's defaults."""
        named = cand.type if "type" in cand.model_fields_set else self.writer.config.default_type
        type_, hint = resolve_type(named, self.writer.config.types)
        fields: dict[str, Any] = {"type": type_, "subtype": cand.subtype or hint, "confidence": cand.confidence,
                      "user": cand.user or defaults.user, "project": cand.project or defaults.project,
                      "session": cand.session or defaults.session, "source": cand.source or defaults.source,
                      "key": cand.key, "tags": cand.tags, "source_ids": cand.source_ids or None,
                      "name": cand.name, "description": cand.description, "extra": cand.extra or None,
                      "created": cand.created or cand.updated, "updated": cand.updated or cand.created,
                      "occurred": cand.occurred, "state": cand.state, "valid_until": cand.valid_until,
                      "kind": cand.kind, "fields": cand.fields,
                      "replaces": cand.replaces if isinstance(cand.replaces, str) else None}
        return AddRequest.model_construct(text=cand.content, fields=fields, llm=llm, rate_session=defaults.rate_session,
                                          surface="import", redact=None, overrides=None, trusted_source=True,
                                          second_fit=defaults.second_fit)


def _done_before(number: int, request: AddRequest, known: dict[str, Taken] | None) -> ImportItem | None:
    """With `known` (the source ids stored memories keep): the request remembers its statement id, and
    the item of a line a stored memory took in an earlier run; None: the line is to be written."""
    if known is None:
        return None
    stated = remembered(request)
    return already_item(number, known[stated]) if stated in known else None


def item_of(number: int, result: WriteResult | MemctlError) -> ImportItem:
    """What happened to one line: written, skipped as a repeat, or refused (with the error's code)."""
    if isinstance(result, Refused):
        return _refused_item(number, result)
    if isinstance(result, (ConfigError, StoreError)):
        raise result  # the folder or its configuration, not the line: the import stops, as one add would
    if isinstance(result, MemctlError):
        return ImportItem(line=number, outcome="refused", codes=[result.code], message=result.message)
    memory = result.memory
    return ImportItem(line=number, outcome=_DONE[result.decision.action], decision=result.decision.action,
                      id=memory.id if memory else None, message=result.decision.reason)
