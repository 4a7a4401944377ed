"""Which stored memories a recall may see: the filters, applied to catalog records (plain dicts).

Records are not validated here (a fresh process that needs a few hits must not validate every
memory). PostgreSQL applies the same rules in SQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from memctl.clock import format_timestamp
from memctl.core.access import Access, can_read
from memctl.core.dates import occurred_bounds
from memctl.store.layout import ARCHIVE_DIR

HISTORY_STATUSES = ("superseded", "merged")
ARCHIVE_PREFIX = ARCHIVE_DIR + "/"
Record = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class MemoryFilter:
    """Scope and filters of a recall; hashable, so a pool of candidates can be memoised per filter.

    Scope: a user's memories, their session memories and the projects they have memories in;
    a project's; a session's. No scope at all means everything. `status` is active, history
    (active plus superseded and merged), all, or one archived status."""

    users: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    session: str | None = None
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    status: str = "active"
    scopes: tuple[str, ...] = ()  # only memories of these scopes (user, project, session); () = any
    access: Access | None = None  # an actor: only what they may see (core/access.py)
    family: tuple[str, ...] = ()  # only these wholes and their parts (memories whose part_of is one)
    kinds: tuple[str, ...] = ()  # only typed memories of these kinds (checks and queries read no others)
    # (memory field, values): only memories whose field is one of the values (a list field: holds one);
    # what a request field declared with `Spelled(filter=...)` asks for (core/requests.py)
    fields: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def scoped(self) -> bool:
        return bool(self.users or self.projects or self.session)


def in_scope(m: dict[str, Any], f: MemoryFilter, user_projects: set[str]) -> bool:
    """The user's own memories (their session memories from any of their sessions included, so use
    across sessions can be counted), their projects', and the session's; no scope flags = everything."""
    if not f.scoped:
        return True
    scope = m.get("scope", "user")
    if scope == "session":  # a session belongs to its owner: the same id in another user's session is not ours
        owned = m.get("user") in f.users or (m.get("project") is not None and m.get("project") in f.projects)
        if f.session is not None and m.get("session") == f.session:
            return owned or not (f.users or f.projects)
        return m.get("user") in f.users  # the user's other sessions are theirs too (ranked as long-term)
    if scope == "project":
        return m.get("project") in f.projects or m.get("project") in user_projects
    return m.get("user") in f.users


def field_matches(value: Any, wanted: tuple[str, ...]) -> bool:
    """A record's field is one of the wanted values (a list field: holds one of them)."""
    if isinstance(value, list):
        return any(v in wanted for v in value)
    return value is not None and str(value) in wanted


def in_period(d: dict[str, Any], since: str | None, until: str | None) -> bool:
    """Whether a record falls within [since, until]: when it occurred if it says so, else when written.

    A range of days counts when it overlaps the period."""
    occurred = d.get("occurred")
    first, last = occurred_bounds(str(occurred)) if occurred else (d["created"], d["created"])
    return not ((since and last < since) or (until and first > until))


def status_ok(rel: str, status: str, wanted: str) -> bool:
    """Whether a memory at `rel` with `status` passes the wanted status filter."""
    active = status == "active" and not rel.startswith(ARCHIVE_PREFIX)
    if wanted == "active":
        return active
    if wanted == "history":
        return active or status in HISTORY_STATUSES
    return wanted == "all" or status == wanted


def filter_records(records: Sequence[Record], f: MemoryFilter, now: datetime) -> tuple[dict[str, str], str]:
    """id -> path of the records passing every filter, and the earliest expiry among them."""
    user_projects = {d["project"] for _, d in records if d.get("project") and d.get("user") in f.users} if f.users else set()
    now_s = format_timestamp(now)
    since, until = (format_timestamp(t) if t else None for t in (f.since, f.until))
    types, tags, active_only = set(f.types), set(f.tags), f.status == "active"
    out, next_expiry = {}, "9999"
    for rel, d in records:
        expires = d.get("expires")
        if expires:
            if expires <= now_s:
                continue
            next_expiry = min(next_expiry, expires)
        if active_only:  # the common case, inlined: this loop runs over every memory
            if d.get("status", "active") != "active" or rel.startswith(ARCHIVE_PREFIX):
                continue
        elif not status_ok(rel, d.get("status", "active"), f.status):
            continue
        if f.scoped and not in_scope(d, f, user_projects):
            continue
        if (types and d.get("type") not in types) or (tags and not tags.intersection(d.get("tags") or ())):
            continue
        if f.scopes and d.get("scope", "user") not in f.scopes:
            continue
        if (since or until) and not in_period(d, since, until):
            continue
        if f.family and d["id"] not in f.family and d.get("part_of") not in f.family:
            continue
        if f.kinds and d.get("kind") not in f.kinds:
            continue
        if f.fields and not all(field_matches(d.get(name), values) for name, values in f.fields):
            continue
        if f.access is not None and not can_read(f.access, d):
            continue
        out[d["id"]] = rel
    return out, next_expiry
