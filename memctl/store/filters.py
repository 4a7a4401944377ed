"""Whose memories a command reads, and which of them: one definition for every read and write.

`MemoryFilter` is the scope (users, projects, a session) plus the filters (type, tag, dates,
status, ...). Every command that reads stored memories (list, recall, context, dedupe, compact,
query, check, stats, export, conflicts) builds one with `scope_filter` and hands it to the backend:
a folder applies it here to its catalog records (plain dicts, not validated: a fresh process that
needs a few hits must not validate every memory), PostgreSQL as SQL (store/postgres/sqlfilter.py).
`tests/store/test_scope.py` holds the table of what each scope means, run on both backends.

Whose memories (the README's table):
- `users=(alice,)`: what lives in `users/alice/` (her long-term memories and her session memories
  from any session), and the memories of her projects: every project whose `[projects.P.members]`
  lists her, and every project where some memory (any status) names her as its `user` (a project
  memory about or by her, or her session memory there);
- `projects=(shop,)`: what lives in `projects/shop/` (its memories and its session memories with no user);
- `session=s` alone: the memories of session s, whoever's; with users or projects it adds nothing
  (their sessions are theirs already) and never reaches another person's session of the same name;
- several of these: the union; none: everything (an actor still sees only what they may).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Mapping, Sequence

from memctl.clock import format_timestamp
from memctl.core.access import Access, can_read
from memctl.core.dates import occurred_bounds
from memctl.store.layout import ARCHIVE_DIR

HISTORY_STATUSES = ("superseded", "merged")
ARCHIVE_PREFIX = ARCHIVE_DIR + "/"
Record = tuple[str, dict[str, Any]]
# Filters that keep a memory when one field is one of the given values: attribute -> field (and column).
MATCH_FIELDS = {"types": "type", "kinds": "kind", "subtypes": "subtype"}
# How `select` orders: sort name -> (field, descending) keys; ties end on the id, so both backends agree.
ORDERS: dict[str, tuple[tuple[str, bool], ...]] = {
    "created": (("created", False), ("id", False)),
    "updated": (("updated", False), ("id", False)),
    "type": (("type", False), ("created", False), ("id", False)),
    "confidence": (("confidence", True), ("id", False)),
    "id": (("id", False),),
    "user": (("user", False), ("created", False), ("id", False)),
}


@dataclass(frozen=True)
class MemoryFilter:
    """Scope and filters of a read; hashable, so a pool of candidates can be memoised per filter.

    `status` is active, history (active plus superseded and merged), all, or one archived status.
    Build it with `scope_filter`, which checks the names and adds the users' configured projects."""

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
    subtypes: tuple[str, ...] = ()  # only memories of these subtypes
    typed: bool = False  # only typed memories (those with a kind, whichever)
    member_of: tuple[str, ...] = ()  # projects whose members table lists one of `users`: theirs too
    expired: bool = False  # also memories whose `expires` has passed (list, compact, export see them)
    # The filters a request declares (core/declare.py declared_filters): (memory field, values), each
    # keeping a memory whose field is one of the values (a list field: shares one). Read generically
    # here and in SQL (store/postgres/sqlfilter.py), so a filter added to a request needs no code.
    fields: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def scoped(self) -> bool:
        return bool(self.users or self.projects or self.session)


def scope_filter(members: Mapping[str, Mapping[str, str]], users: Iterable[str] = (), projects: Iterable[str] = (),
                 session: str | None = None, **filters: Any) -> MemoryFilter:
    """The filter of a command's scope, every name checked (a name is a path component on disk);
    `members` is the config's {project: {person: role}}, which makes a member's projects theirs."""
    from memctl.core.models import name_arg

    users_ = tuple(dict.fromkeys(name_arg(u, "user") for u in users))
    projects_ = tuple(dict.fromkeys(name_arg(p, "project") for p in projects))
    member_of = tuple(sorted(p for p, people in members.items() if any(u in people for u in users_)))
    return MemoryFilter(users=users_, projects=projects_, session=name_arg(session, "session") if session else None,
                        member_of=member_of, **filters)


def owner_of(d: Mapping[str, Any]) -> str:
    """The scope folder of a record (Memory.owner's rule): `users/alice`, `projects/shop`."""
    scope = d.get("scope", "user")
    if scope == "project" or (scope == "session" and not d.get("user")):
        return f"projects/{d.get('project')}"
    return f"users/{d.get('user')}"


def scope_owners(records: Sequence[Record], f: MemoryFilter) -> frozenset[str]:
    """The scope folders a filter's users and projects stand for (see the module docstring)."""
    projects = {*f.projects, *f.member_of}
    if f.users:
        users = set(f.users)
        projects.update(d["project"] for _, d in records if d.get("project") and d.get("user") in users)
    return frozenset([*(f"users/{u}" for u in f.users), *(f"projects/{p}" for p in projects)])


def in_scope(d: Mapping[str, Any], f: MemoryFilter, owners: frozenset[str]) -> bool:
    """Whether a record is within the filter's scope (`owners`: scope_owners of the same records)."""
    if not f.scoped or owner_of(d) in owners:
        return True
    return f.session is not None and not (f.users or f.projects) and d.get("session") == f.session


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


def _matcher(f: MemoryFilter) -> Any:
    """A test of the filters besides scope, status and expiry, or None when there are none."""
    wanted = [(name, frozenset(getattr(f, attr))) for attr, name in MATCH_FIELDS.items() if getattr(f, attr)]
    wanted += [(name, frozenset(values)) for name, values in f.fields]
    tags, scopes, family, access = frozenset(f.tags), frozenset(f.scopes), frozenset(f.family), f.access
    since, until = (format_timestamp(t) if t else None for t in (f.since, f.until))
    typed = f.typed
    if not (wanted or tags or scopes or since or until or family or typed or access is not None):
        return None

    def matches(d: dict[str, Any]) -> bool:
        return (all(_one_of(d, name, values) for name, values in wanted) and (not typed or bool(d.get("kind")))
                and (not tags or not tags.isdisjoint(d.get("tags") or ()))
                and (not scopes or d.get("scope", "user") in scopes)
                and (not (since or until) or in_period(d, since, until))
                and (not family or d["id"] in family or d.get("part_of") in family)
                and (access is None or can_read(access, d)))

    return matches


def _one_of(d: Mapping[str, Any], name: str, values: frozenset[str]) -> bool:
    """Whether a record's field is one of `values` (a list field: holds one); an absent field
    counts as the memory's default (`source` user, `scope` user)."""
    value = d.get(name, _default(name))
    if isinstance(value, list):
        return not values.isdisjoint(value)
    return value in values


def _default(name: str) -> Any:
    from memctl.core.models import Memory

    info = Memory.model_fields.get(name)
    return None if info is None or info.is_required() else info.get_default(call_default_factory=True)


def filter_records(records: Sequence[Record], f: MemoryFilter, now: datetime) -> tuple[dict[str, str], str]:
    """id -> path of the records passing every filter, and the earliest expiry among them."""
    owners = scope_owners(records, f) if f.scoped else frozenset()
    matches = _matcher(f)
    now_s = format_timestamp(now)
    active_only = f.status == "active"
    out, next_expiry = {}, "9999"
    for rel, d in records:
        expires = d.get("expires")
        if expires and not f.expired:
            if expires <= now_s:
                continue
            next_expiry = min(next_expiry, expires)
        if active_only:  # the common case, inlined: this loop runs over every memory
            if d.get("status", "active") != "active" or rel.startswith(ARCHIVE_PREFIX):
                continue
        elif not status_ok(rel, d.get("status", "active"), f.status):
            continue
        if (f.scoped and not in_scope(d, f, owners)) or (matches is not None and not matches(d)):
            continue
        out[d["id"]] = rel
    return out, next_expiry


def order_key(order: str) -> Any:
    """A sort key over Memory objects for one of ORDERS (descending numbers negated)."""
    keys = ORDERS[order]

    def key(m: Any) -> tuple[Any, ...]:
        values = []
        for name, descending in keys:
            value = getattr(m, name)
            values.append(-value if descending else ("" if value is None else value))
        return tuple(values)

    return key
