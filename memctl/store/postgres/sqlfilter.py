"""A recall's filter as SQL (pure): the rules of store/filters.py and core/access.py, so the database
returns only what the filter lets through and nothing is filtered afterwards in Python.

`where(flt, now)` gives a condition over memctl_memories aliased `m`, and its parameters.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memctl.clock import format_timestamp
from memctl.core.access import Access
from memctl.errors import StoreError
from memctl.store.filters import HISTORY_STATUSES, MemoryFilter
from memctl.store.postgres.schema import MEMORY_COLUMNS

ACTIVE = "(m.status = 'active' AND m.path NOT LIKE 'archive/%%')"


def where(flt: MemoryFilter, now: datetime) -> tuple[str, dict[str, Any]]:
    """(SQL condition, parameters) for the memories a recall with `flt` may see at `now`."""
    params: dict[str, Any] = {"f_now": now}
    parts = ["(m.expires IS NULL OR m.expires > %(f_now)s)", status_sql(flt.status, params)]
    if flt.scoped:
        parts.append(scope_sql(flt, params))
    if flt.types:
        parts.append("m.type = ANY(%(f_types)s)")
        params["f_types"] = list(flt.types)
    if flt.tags:
        parts.append("m.tags && %(f_tags)s::text[]")
        params["f_tags"] = list(flt.tags)
    # The period a memory covers (when it occurred, else its creation) overlaps [since, until]; text
    # timestamps to the second, as the file catalog compares them.
    if flt.since:
        parts.append("m.period_last >= %(f_since)s")
        params["f_since"] = format_timestamp(flt.since)
    if flt.until:
        parts.append("m.period_first <= %(f_until)s")
        params["f_until"] = format_timestamp(flt.until)
    if flt.family:
        parts.append("(m.id = ANY(%(f_family)s) OR m.part_of = ANY(%(f_family)s))")
        params["f_family"] = list(flt.family)
    if flt.kinds:  # typed memories of these kinds only (an untyped memory has no kind: NULL never matches)
        parts.append("m.kind = ANY(%(f_kinds)s)")
        params["f_kinds"] = list(flt.kinds)
    for i, (field, values) in enumerate(flt.fields):
        parts.append(field_sql(field, values, f"f_field{i}", params))
    if flt.access is not None:
        parts.append(access_sql(flt.access, params))
    return " AND ".join(p for p in parts if p), params


def field_sql(field: str, values: tuple[str, ...], name: str, params: dict[str, Any]) -> str:
    """The memory's column `field` is one of `values` (a text[] column: holds one). Only the memory
    columns may be named: the column name is part of the statement."""
    column = MEMORY_COLUMNS.get(field)
    if column is None or not column.startswith("text") or field == "body":
        raise StoreError(f"no memory field {field!r} to filter on", code="bad_filter")
    params[name] = list(values)
    if column.startswith("text[]"):
        return f'm."{field}" && %({name})s::text[]'
    return f'm."{field}" = ANY(%({name})s)'


def status_sql(wanted: str, params: dict[str, Any]) -> str:
    """active (in force), history (active, superseded, merged), all, or one archived status."""
    if wanted == "active":
        return ACTIVE
    if wanted == "history":
        params["f_history"] = list(HISTORY_STATUSES)
        return f"({ACTIVE} OR m.status = ANY(%(f_history)s))"
    if wanted == "all":
        return ""
    params["f_status"] = wanted
    return "m.status = %(f_status)s"


def scope_sql(flt: MemoryFilter, params: dict[str, Any]) -> str:
    """The user's memories (and their sessions'), their projects' and the session's (filters.in_scope).

    Each branch is one an index answers (the user's, the projects', the session's memories), so
    PostgreSQL reads only those rows, never the whole table."""
    params.update(f_users=list(flt.users), f_projects=list(flt.projects))
    mine = 'm."user" = ANY(%(f_users)s)'
    projects = "%(f_projects)s::text[]"
    if flt.users:  # and the projects the user has memories in (any status, as the file catalog counts them)
        projects = (f"({projects} || ARRAY(SELECT DISTINCT u.project FROM memctl_memories u "
                    'WHERE u."user" = ANY(%(f_users)s) AND u.project IS NOT NULL))')
    branches = [f"(m.scope IN ('user', 'session') AND {mine})", f"(m.scope = 'project' AND m.project = ANY({projects}))"]
    if flt.session is not None:
        params["f_session"] = flt.session
        # A session belongs to its owner: the same session id in another user's memories is not ours
        # (the user's other sessions are theirs too: the first branch).
        owned = f"({mine} OR m.project = ANY(%(f_projects)s))" if flt.users or flt.projects else "TRUE"
        branches.append(f"(m.scope = 'session' AND m.session = %(f_session)s AND {owned})")
    return "(" + " OR ".join(branches) + ")"


def access_sql(access: Access, params: dict[str, Any]) -> str:
    """What the actor may read (access.can_read): their own personal memories; in a project, what
    its visibility allows (public, members of a managed project, owner_only for the author)."""
    managed = [name for name, _ in access.members]
    params.update(f_actor=access.actor, f_managed=managed,
                  f_member_of=[name for name, people in access.members if access.actor in dict(people)])
    is_managed = "COALESCE(m.project = ANY(%(f_managed)s), FALSE)"
    visibility = f"COALESCE(NULLIF(m.visibility, ''), CASE WHEN {is_managed} THEN 'members' ELSE 'public' END)"
    project_rule = (f"CASE {visibility} WHEN 'owner_only' THEN COALESCE(m.author = %(f_actor)s, FALSE) "
                    f"WHEN 'members' THEN (NOT {is_managed}) OR COALESCE(m.project = ANY(%(f_member_of)s), FALSE) "
                    "ELSE TRUE END")
    return (f"(CASE WHEN m.owner LIKE 'users/%%' THEN COALESCE(m.\"user\" = %(f_actor)s, FALSE) "
            f"ELSE {project_rule} END)")
