"""What each capability takes: one request model per capability, declared once for every surface.

The facade's keyword-only signatures are checked against these models when api.py loads; the CLI's
options (cli/declared.py), the forwarding table (cli/table.py, generated), the MCP input schemas
and the REST parameters and bodies (agents/) are built from them. To add an argument, add a field
here (and the parameter to the facade method): docs/architecture.md says how.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, Optional

from pydantic import AfterValidator, BeforeValidator, Field

from memctl import clock
from memctl.core.declare import Request, Spelled
from memctl.core.models import check_name

RECALL_STATUSES = ("active", "history", "all", "superseded", "merged", "expired", "forgotten", "archived")
MODES = ("hybrid", "keyword", "semantic")
Mode = Literal["hybrid", "keyword", "semantic"]
ScopeName = Literal["user", "project", "session"]


def _listed(value: Any) -> Any:
    """One value where a list is expected is a list of one (`user: "alice"`, `?type=fact`)."""
    return [value] if isinstance(value, str) else value


def _time(value: Any) -> Any:
    """An ISO 8601 date or time as text is parsed like everywhere else in memctl (naive: UTC)."""
    return clock.parse_timestamp(value) if isinstance(value, str) else value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or blank")
    return value


def OneOf(choices: tuple[str, ...], what: str) -> AfterValidator:  # noqa: N802 (reads as a type)
    """A text that must be one of `choices`."""
    def check(value: str) -> str:
        if value not in choices:
            raise ValueError(f"unknown {what} {value!r} (choose from {', '.join(choices)})")
        return value
    return AfterValidator(check)


def Names(what: str) -> AfterValidator:  # noqa: N802 (reads as a type)
    """User, project or session names: each one safe as a folder name (core/models.check_name)."""
    def check(value: Any) -> Any:
        if isinstance(value, list):
            return [check_name(v, what) for v in value]
        return value if value is None else check_name(value, what)
    return AfterValidator(check)


Listed = BeforeValidator(_listed)
Time = BeforeValidator(_time)
NotBlank = AfterValidator(_not_blank)


class RecallRequest(Request):
    """recall: what to look for and where (hybrid keyword + embedding search)."""

    codes: ClassVar[dict[str, str]] = {"query": "empty_query", "k": "bad_k", "mode": "bad_mode", "status": "bad_status",
             "min_relevance": "bad_min_relevance", "users": "bad_name", "projects": "bad_name", "session": "bad_name"}

    query: Annotated[str, NotBlank, Spelled(cli=("",), metavar="QUERY", aliases=("q",)), Field(
        description="What to recall, in plain words (any language).")]
    users: Annotated[list[str], Listed, Names("user"), Spelled(cli=("--user", "-u"), metavar="USER", aliases=("user",),
                                                complete="users"), Field(
        description="Only these users' memories (and their sessions' and projects').", default_factory=list)]
    projects: Annotated[list[str], Listed, Names("project"), Spelled(cli=("--project", "-p"), metavar="PROJECT", aliases=("project",),
                                                   complete="projects"), Field(
        description="Only these projects' memories.", default_factory=list)]
    session: Annotated[Optional[str], Names("session"), Spelled(cli=("--session", "-s"), metavar="SESSION"), Field(
        description="The current conversation: its short-term memories rank first.")] = None
    types: Annotated[list[str], Listed, Spelled(cli=("--type", "-t"), metavar="TYPE",
                                                aliases=("type", "memory_type", "category"), complete="types"), Field(
        description="Only memories of these types.", default_factory=list)]
    subtypes: Annotated[list[str], Listed, Spelled(cli=("--subtype",), metavar="SUBTYPE", aliases=("subtype", "subType"),
                                                   filter="subtype"), Field(
        description="Only memories of these subtypes (a finer category: like, dislike, name...).", default_factory=list)]
    tags: Annotated[list[str], Listed, Spelled(cli=("--tag",), metavar="TAG", aliases=("tag",)), Field(
        description="Only memories with one of these tags.", default_factory=list)]
    since: Annotated[Optional[datetime], Time, Spelled(metavar="TIME"), Field(
        description="Occurred (else created) at or after this ISO date or time.")] = None
    until: Annotated[Optional[datetime], Time, Spelled(metavar="TIME"), Field(
        description="Occurred (else created) at or before this ISO date or time.")] = None
    status: Annotated[str, OneOf(RECALL_STATUSES, "status"), Spelled(metavar="STATUS", choices=RECALL_STATUSES), Field(
        description="active (in force), history (with superseded and merged), all, or one archived status.")] = "active"
    k: Annotated[Optional[int], Spelled(cli=("-k",), metavar="N"), Field(
        ge=1, le=1000, description="How many hits, best first (default: [recall] k, 5).")] = None
    mode: Annotated[Optional[Mode], Spelled(metavar="MODE", choices=MODES), Field(
        description="hybrid (keywords and meaning), keyword (exact names, ids) or semantic "
                    "(default: [recall] mode).")] = None
    scopes: Annotated[list[ScopeName], Listed, Spelled(cli=("--scope",), metavar="SCOPE", aliases=("scope",),
                                                       choices=("user", "project", "session")), Field(
        description="Only user, project or session memories (default: all three).", default_factory=list)]
    min_relevance: Annotated[Optional[float], Spelled(metavar="0..1"), Field(
        ge=0.0, le=1.0, description="Hold back hits below this calibrated relevance "
                                    "(default: [recall] min_relevance; 0 holds nothing back).")] = None
    record_usage: Annotated[bool, Spelled(surfaces=frozenset()), Field(
        description="Count the hits as used (importance, compaction).")] = True

