"""Caller input to a new Memory: content, owner, type, expiry and fields, validated (nothing written)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import ValidationError

from memctl import clock
from memctl.config import Config
from memctl.core.access import VISIBILITIES
from memctl.core.dates import normalise_occurred
from memctl.core.models import Memory
from memctl.core.textdates import occurred_of, read_dates
from memctl.errors import InvalidMemory, UsageError
from memctl.policy.when import resolve_occurred
from memctl.store.repository import NewIds


def check_type(config: Config, type_: str) -> str:
    """A type must be one of the configured types."""
    if type_ not in config.types:
        raise InvalidMemory(f"unknown type {type_!r} (configured: {', '.join(config.types)})", code="unknown_type")
    return type_


def validation_message(exc: ValidationError) -> str:
    """pydantic's first error as one line: `field: message`."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "memory"
    return f"{where}: {str(err['msg']).removeprefix('Value error, ')}"


def check_state(config: Config, state: str) -> str:
    """A state must be one of the configured states."""
    if state not in config.facts.states:
        raise InvalidMemory(f"unknown state {state!r} (configured: {', '.join(config.facts.states)})",
                            code="unknown_state")
    return state


def fact_fields(config: Config, text: str, fields: dict[str, Any]) -> dict[str, Any]:
    """State, validity and date of a new memory: as given, else `occurred` read from a relative
    date in the text ("tomorrow" written on 1 March is 2 March), so none stays silently relative,
    else from the first absolute one ("2 April 2026", "3月10日" with the year from context)."""
    out: dict[str, Any] = {}
    if fields.get("state"):
        out["state"] = check_state(config, str(fields["state"]))
    if isinstance(fields.get("valid_until"), str):
        out["valid_until"] = clock.parse_timestamp(fields["valid_until"])
    if fields.get("occurred"):
        out["occurred"] = _occurred(fields["occurred"])
    elif isinstance(fields["created"], datetime):
        day = fields["created"].date()
        resolved = resolve_occurred(text, day)[0] or occurred_of(read_dates(text, day))
        if resolved:
            out["occurred"] = resolved
    return out


def _occurred(value: Any) -> str:
    try:
        return normalise_occurred(value)
    except UsageError as exc:
        raise InvalidMemory(f"occurred: {exc}", code="bad_date") from None


def check_visibility(value: Any) -> None:
    """A visibility the access rules know (or none: the folder's default); UsageError otherwise."""
    if value is not None and value not in VISIBILITIES:
        raise UsageError(f"unknown visibility {value!r} (choose from {', '.join(VISIBILITIES)})",
                         code="bad_visibility")


def build_memory(repo: NewIds, config: Config, text: str, *, type: str, user: str | None = None,
                 project: str | None = None, session: str | None = None, ttl: str | None = None,
                 expires: str | None = None, **fields: Any) -> Memory:
    """Validate caller input into a new Memory with a fresh id (not yet written)."""
    if not text or not text.strip():
        raise InvalidMemory("empty content: nothing to remember", code="empty_content")
    if not (user or project):
        project = config.layout.project or None  # the directory's own project, when it has one
    if not (user or project):
        raise UsageError("say whose memory this is: --user or --project", code="no_owner")
    check_type(config, type)
    check_visibility(fields.get("visibility"))
    now = clock.now()
    scope: Literal["user", "project", "session"] = "session" if session else "project" if project else "user"
    when = clock.after(now, ttl) if ttl else clock.parse_timestamp(expires) if expires else None
    fields = {k: v for k, v in fields.items() if v is not None}
    fields.setdefault("created", now)
    fields.setdefault("updated", fields["created"])
    fields.update(fact_fields(config, text, fields))
    try:
        return Memory(id=repo.new_id(), type=type, scope=scope, user=user, project=project,
                      session=session, expires=when, body=text, **fields)
    except ValidationError as exc:
        raise InvalidMemory(validation_message(exc)) from None
