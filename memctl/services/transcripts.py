"""Transcripts and extraction: append conversation messages, and turn new ones into memories via an LLM.

A transcript is `transcripts/<user>/<session>.jsonl`, append-only, one message per line with the id
`<session>:<n>`. The extraction watermark (the last message already extracted) sits beside it in
`<session>.state.json`: it is part of the record, not a cache. Extracted candidates are imported as
source `auto`: long-term memories of the user, with the gate's per-session rate limit applied to
the transcript's session (the message ids in `source_ids` keep the provenance).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from memctl import clock
from memctl.services.imports import CandidateIn, ImportDefaults, ImportReport, candidate_from, decode_input, import_candidates
from memctl.errors import InvalidMemory, MemctlError, UsageError
from memctl.core.models import check_name
from memctl.store.files import write_atomic

if TYPE_CHECKING:
    from memctl.api import MemoryStore

TRANSCRIPTS_DIR = "transcripts"
PROMPT_NAME = "extract_prompt.md"
EXTRACT_SOURCE = "auto"
DEFAULT_EXTRACT_CONFIDENCE = 0.8
_PLACEHOLDER = re.compile(r"\{\{\s*(messages|user|types)\s*\}\}")


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
    report: ImportReport = Field(default_factory=ImportReport)


def _names(user: str, session: str) -> None:
    try:
        check_name(user, "user")
        check_name(session, "session")
    except ValueError as exc:
        raise UsageError(str(exc), code="bad_name") from None


def transcript_path(root: Path, user: str, session: str) -> Path:
    """Where a session's transcript lives (names are checked: they become path components)."""
    _names(user, session)
    return root / TRANSCRIPTS_DIR / user / f"{session}.jsonl"


def state_path(root: Path, user: str, session: str) -> Path:
    """The extraction watermark of a transcript."""
    return transcript_path(root, user, session).with_suffix(".state.json")


def parse_messages(text: str, session: str, what: str = "transcript") -> list[Message]:
    """Messages from JSON Lines; a line without an id gets `<session>:<line number>`."""
    out: list[Message] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if not isinstance(raw, dict) or not str(raw.get("content", "")).strip():
                raise ValueError("expected an object with content")
            raw.setdefault("id", f"{session}:{number}")
            out.append(Message.model_validate({k: str(v) for k, v in raw.items() if v is not None}))
        except ValueError as exc:
            raise InvalidMemory(f"{what} line {number}: {str(exc).splitlines()[0]}", code="bad_transcript") from None
    return out


def read_messages(path: Path, session: str) -> list[Message]:
    """Every message of a transcript file (none when it does not exist yet)."""
    if not path.exists():
        return []
    return parse_messages(decode_input(path.read_bytes(), str(path)), session, str(path))


def append_message(store: "MemoryStore", user: str, session: str, content: str, role: str = "user") -> Message:
    """Append one message to the session's transcript (under the directory lock, fsynced)."""
    if not content.strip():
        raise InvalidMemory("empty message: nothing to log", code="empty_content")
    if not role.strip() or "\n" in role:
        raise UsageError(f"invalid role {role!r}", code="bad_role")
    path = transcript_path(store.root, user, session)
    with store.dir.lock():
        number = _line_count(path) + 1
        message = Message(id=f"{session}:{number}", role=role.strip(), content=content,
                          time=clock.format_timestamp(clock.now()))
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(message.model_dump(), ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
    return message


def _line_count(path: Path) -> int:
    """Messages so far, counted without parsing: one damaged line must not stop logging."""
    if not path.exists():
        return 0
    with open(path, "rb") as handle:
        return sum(1 for line in handle if line.strip())


def read_state(root: Path, user: str, session: str) -> dict[str, Any]:
    """The watermark record: {"last_id": ..., "count": ...}; empty when nothing was extracted yet."""
    path = state_path(root, user, session)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise InvalidMemory(f"{path}: unreadable extraction state ({exc})", code="bad_state") from None
    return data if isinstance(data, dict) else {}


def write_state(root: Path, user: str, session: str, last: Message, count: int) -> None:
    """Move the watermark (atomic write: a crash leaves the old or the new one)."""
    state = {"last_id": last.id, "count": count, "extracted_at": clock.format_timestamp(clock.now())}
    write_atomic(state_path(root, user, session), json.dumps(state, indent=1, sort_keys=True) + "\n")


def pending_messages(messages: list[Message], state: dict[str, Any]) -> list[Message]:
    """Messages after the watermark (by id; by count if that id is gone from the file)."""
    last = state.get("last_id")
    ids = [m.id for m in messages]
    if last in ids:
        return messages[ids.index(last) + 1:]
    return messages[int(state.get("count", 0) or 0):] if last else messages


def load_template(root: Path) -> str:
    """`<root>/extract_prompt.md` if present (editable), else the packaged default."""
    local = root / PROMPT_NAME
    if local.is_file():
        return local.read_text(encoding="utf-8")
    from importlib.resources import files

    return files("memctl").joinpath("data", PROMPT_NAME).read_text(encoding="utf-8")


def render_prompt(template: str, messages: list[Message], user: str, types: tuple[str, ...]) -> str:
    """Fill `{{ messages }}`, `{{ user }}` and `{{ types }}` (one pass: message text is never re-expanded)."""
    lines = [f"[{m.id}] {m.role}: " + m.content.strip().replace("\n", "\n    ") for m in messages]
    values = {"messages": "\n".join(lines), "user": user, "types": ", ".join(types)}
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def parse_model_output(output: str) -> list[CandidateIn]:
    """Candidates from JSON Lines or a JSON array (code fences allowed); ExtractionError if malformed."""
    text = "\n".join(line for line in output.strip().splitlines() if not line.strip().startswith("```"))
    if not text.strip():
        return []
    try:
        whole = json.loads(text)
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
        return json.loads(line)
    except ValueError:
        raise ExtractionError(f"model output line {number} is not JSON: {line.strip()[:60]!r}") from None


def extract(store: "MemoryStore", user: str, session: str, llm: str, *, every: int = 1,
            messages: list[Message] | None = None) -> ExtractResult:
    """Extract memories from the session's messages not yet extracted; the model is called only if there are some.

    One extraction per session at a time (a lock of its own, not the directory's, which each write
    takes): a second run waits, then finds the watermark moved and calls no model."""
    if every < 1:
        raise UsageError("--every must be at least 1", code="bad_every")
    _names(user, session)
    with store.dir.lock(timeout=600, name=f"extract-{user}-{session}.lock"):
        return _extract(store, user, session, llm, every, messages)


def _extract(store: "MemoryStore", user: str, session: str, llm: str, every: int,
             messages: list[Message] | None) -> ExtractResult:
    from memctl.services.llm import run_llm

    if messages is None:
        messages = read_messages(transcript_path(store.root, user, session), session)
    state = read_state(store.root, user, session)
    pending = pending_messages(messages, state)
    result = ExtractResult(user=user, session=session, pending=len(pending), every=every,
                           watermark=state.get("last_id"))
    if not pending or len(pending) < every:
        return result
    prompt = render_prompt(load_template(store.root), pending, user, store.config.types)
    candidates = parse_model_output(run_llm(llm, prompt))
    result.called_model, result.candidates = True, len(candidates)
    known = {m.id for m in pending}
    for cand in candidates:
        cand.source_ids = [i for i in cand.source_ids if i in known]
    # Long-term memories of the user, rate-limited per session (the session is kept in source_ids).
    defaults = ImportDefaults(user=user, source=EXTRACT_SOURCE, rate_session=session)
    forced = [(n, c.model_copy(update={"user": user, "project": None, "session": None,
                                          "source": EXTRACT_SOURCE}))
              for n, c in enumerate(candidates, start=1)]
    result.report = import_candidates(store, forced, defaults)
    write_state(store.root, user, session, pending[-1], messages.index(pending[-1]) + 1)
    result.watermark = pending[-1].id
    return result
