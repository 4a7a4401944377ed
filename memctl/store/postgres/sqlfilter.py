"""A recall's filter as SQL (pure): the rules of store/filters.py and core/access.py, so the database
returns only what the filter lets through and nothing is filtered afterwards in Python.

`where(flt, now)` gives a condition over memctl_memories aliased `m`, and its parameters.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memctl.clock import format_timestamp
from memctl.core.access import Access
from memctl.errors import UsageError
from memctl.store.filters import HISTORY_STATUSES, MATCH_FIELDS, MemoryFilter
from memctl.store.postgres.schema import MEMORY_COLUMNS

ACTIVE = "(m.status = 'active' AND m.path NOT LIKE 'archive/%%')"


def field_sql(name: str, param: str) -> str:
    """One of the values in a memory field's column (an array column: shares one); only a column
    of memctl_memories is ever named (the name comes from a declaration, never from a request)."""
    if name not in MEMORY_COLUMNS:
        raise UsageError(f"no memory field {name!r} to filter on", code="bad_filter")
    if MEMORY_COLUMNS[name].startswith("text[]"):
        return f'm."{name}" && %({param})s::text[]'
    return f'm."{name}" = ANY(%({param})s)'


def where(flt: MemoryFilter, now: datetime) -> tuple[str, dict[str, Any]]:
    """(SQL condition, parameters) for the memories a recall with `flt` may see at `now`."""
    params: dict[str, Any] = {"f_now": now}
    parts = ["" if flt.expired else "(m.expires IS NULL OR m.expires > %(f_now)s)", status_sql(flt.status, params)]
    if flt.scoped:
        parts.append(scope_sql(flt, params))
    for attr, column in MATCH_FIELDS.items():  # type, kind, subtype: one of the values given
        values = getattr(flt, attr)
        if values:
            parts.append(f"m.{column} = ANY(%(f_{attr})s)")
            params[f"f_{attr}"] = list(values)
    for n, (name, values) in enumerate(flt.fields):  # the request's declared filters, by memory field
        parts.append(field_sql(name, f"f_field{n}"))
        params[f"f_field{n}"] = list(values)
    if flt.typed:
        parts.append("m.kind IS NOT NULL")
    if flt.tags:
        parts.append("m.tags && %(f_tags)s::text[]")
        params["f_tags"] = list(flt.tags)
    if flt.scopes:
        parts.append("m.scope = ANY(%(f_scopes)s)")
        params["f_scopes"] = list(flt.scopes)
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
    if flt.access is not None:
        parts.append(access_sql(flt.access, params))
    return " AND ".join(p for p in parts if p) or "TRUE", params


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
    """The scope folders of the users (with their projects) and projects, or the session's memories
    (filters.scope_owners and in_scope). Each branch is one an index answers (owner, session), so
    PostgreSQL reads only those rows, never the whole table."""
    params.update(f_users=list(flt.users), f_owners=[f"users/{u}" for u in flt.users]
                  + [f"projects/{p}" for p in (*flt.projects, *flt.member_of)])
    owners = "%(f_owners)s::text[]"
    if flt.users:  # and the projects where some memory (any status) names one of them as its user
        owners = (f"({owners} || ARRAY(SELECT DISTINCT 'projects/' || u.project FROM memctl_memories u "
                  'WHERE u."user" = ANY(%(f_users)s) AND u.project IS NOT NULL))')
    branches = [f"m.owner = ANY({owners})"]
    if flt.session is not None and not (flt.users or flt.projects):
        params["f_session"] = flt.session
        branches.append("m.session = %(f_session)s")
    return "(" + " OR ".join(branches) + ")"


def access_sql(access: Access, params: dict[str, Any]) -> str:
    """What the actor may read (access.can_read): their own personal memories; in a project, what
    its visibility allows (public, members of a managed project, owner_only or an unknown value
    for the author)."""
    managed = [name for name, _ in access.members]
    params.update(f_actor=access.actor, f_managed=managed,
                  f_member_of=[name for name, people in access.members if access.actor in dict(people)])
    is_managed = "COALESCE(m.project = ANY(%(f_managed)s), FALSE)"
    visibility = f"COALESCE(NULLIF(m.visibility, ''), CASE WHEN {is_managed} THEN 'members' ELSE 'public' END)"
    # Any value but public and members (owner_only, or one the rules do not know) is the author's only.
    project_rule = (f"CASE {visibility} WHEN 'public' THEN TRUE "
                    f"WHEN 'members' THEN (NOT {is_managed}) OR COALESCE(m.project = ANY(%(f_member_of)s), FALSE) "
                    "ELSE COALESCE(m.author = %(f_actor)s, FALSE) END")
    return (f"(CASE WHEN m.owner LIKE 'users/%%' THEN COALESCE(m.\"user\" = %(f_actor)s, FALSE) "
            f"ELSE {project_rule} END)")
