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
from memctl.errors import InvalidMemory

RECALL_STATUSES = ("active", "history", "all", "superseded", "merged", "expired", "forgotten", "archived")
MODES = ("hybrid", "keyword", "semantic")
Mode = Literal["hybrid", "keyword", "semantic"]
ScopeName = Literal["user", "project", "session"]


def _listed(value: Any) -> Any:
    """One value where a list is expected is a list of one (`user: "alice"`, `?type=fact`); None, none."""
    return [] if value is None else [value] if isinstance(value, str) else value


def _time(value: Any) -> Any:
    """An ISO 8601 date or time as text is parsed like everywhere else in memctl (naive: UTC)."""
    return clock.parse_timestamp(value) if isinstance(value, str) else value


def _not_blank(value: str | None) -> str | None:
    if value is not None and not value.strip():
        raise ValueError("must not be empty or blank")
    return value


def OneOf(choices: tuple[str, ...], what: str) -> AfterValidator:  # noqa: N802 (reads as a type)
    """A text that must be one of `choices`."""
    def check(value: str) -> str:
        if value is not None and value not in choices:
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
    sources: Annotated[list[str], Listed, Spelled(cli=("--source",), metavar="SOURCE", aliases=("source",),
                                                  filter="source"), Field(
        description="Only memories stated by one of these sources: user, ai, auto, import...", default_factory=list)]
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


LIBRARY_AND_CLI = frozenset({"cli"})  # not offered by the servers (the library takes every field)
VISIBILITIES = ("public", "members", "owner_only")
STATES = ("active", "inactive", "planned", "done", "cancelled")


class AddRequest(Request):
    """add: one memory to gate, decide (add, update, supersede or noop) and write."""

    codes: ClassVar[dict[str, str]] = {"user": "bad_name", "project": "bad_name", "session": "bad_name",
                                       "rate_session": "bad_name", "text": "empty_content"}
    errors: ClassVar[dict[str, Any]] = {"text": InvalidMemory}  # the error class, as the writer raises it

    text: Annotated[str, NotBlank, Spelled(cli=("",), metavar="TEXT", aliases=("content",)), Field(
        description="The memory: one self-contained statement naming who it is about.")]
    type: Annotated[Optional[str], Spelled(cli=("--type", "-t"), metavar="TYPE", aliases=("memory_type", "category"),
                                           complete="types"), Field(
        description="What kind of memory this is (default: fact, else the preset's first type).")] = None
    subtype: Annotated[Optional[str], Spelled(metavar="SUBTYPE", aliases=("subType",)), Field(
        description="A finer category, e.g. like under preference.")] = None
    kind: Annotated[Optional[str], Spelled(metavar="KIND", complete="kinds"), Field(
        description="A typed memory of this kind (passport, trip, medication...: `memctl kinds`), with its fields.")] = None
    fields: Annotated[Optional[dict[str, Any]], Spelled(surfaces=frozenset({"mcp", "rest"})), Field(
        description="The kind's typed values, e.g. {\"expires\": \"2026-04-02\"} (the CLI: --field NAME=VALUE).")] = None
    user: Annotated[Optional[str], Names("user"), Spelled(cli=("--user", "-u"), metavar="USER", complete="users"),
                    Field(description="The user it belongs to (or is about, in a project).")] = None
    project: Annotated[Optional[str], Names("project"), Spelled(cli=("--project", "-p"), metavar="PROJECT",
                                                                complete="projects"), Field(
        description="The project it belongs to.")] = None
    session: Annotated[Optional[str], Names("session"), Spelled(cli=("--session", "-s"), metavar="SESSION"), Field(
        description="Makes it a short-term memory of this conversation.")] = None
    confidence: Annotated[Optional[float], Spelled(metavar="0..1"), Field(
        ge=0.0, le=1.0, description="How sure, 0..1 (default 1; an agent's write over MCP or REST: [gate] "
                                  "agent_confidence, 0.7); below the gate's minimum is refused.")] = None
    source: Annotated[Optional[str], Spelled(metavar="SOURCE", choices=("user", "ai", "auto", "import")), Field(
        description="Who stated it: user, ai, auto, import... (a server decides what it believes).")] = None
    tags: Annotated[list[str], Listed, Spelled(cli=("--tag",), metavar="TAG"), Field(
        description="Tags, e.g. travel.", default_factory=list)]
    key: Annotated[Optional[str], Spelled(metavar="KEY"), Field(
        description="A stable slot such as home.city: a new value replaces the old.")] = None
    ttl: Annotated[Optional[str], Spelled(metavar="DURATION"), Field(
        description="Expire after this long: 7d, 12h, 30m, 2w.")] = None
    expires: Annotated[Optional[str], Spelled(metavar="TIME", surfaces=frozenset()), Field(
        description="When it expires (ISO date or time).")] = None
    importance: Annotated[Optional[float], Spelled(metavar="0..1"), Field(
        ge=0.0, le=1.0, description="Explicit importance (1 pins it).")] = None
    occurred: Annotated[Optional[str], Spelled(metavar="DATE"), Field(
        description="When it happens or happened: 2026-03-02, 2026-03 or 2026-03-02..2026-03-09 "
                    "(default: read from 'tomorrow', 'next week'... in the text).")] = None
    state: Annotated[Optional[str], Spelled(metavar="STATE", choices=STATES), Field(
        description="active, inactive, planned, done or cancelled (the [facts] states); not in force ranks lower.")] = None
    valid_until: Annotated[Optional[str], Spelled(metavar="TIME"), Field(
        description="In force until then (ISO 8601).")] = None
    part_of: Annotated[Optional[str], Spelled(metavar="ID", complete="ids"), Field(
        description="Part of that memory (a trip's flight): recalling one brings the others.")] = None
    name: Annotated[Optional[str], Spelled(metavar="TITLE"), Field(
        description="A short title (the claude layout derives one).")] = None
    description: Annotated[Optional[str], Spelled(metavar="TEXT"), Field(
        description="A one-line description (the claude layout derives one).")] = None
    visibility: Annotated[Optional[str], OneOf(VISIBILITIES, "visibility"), Spelled(metavar="WHO", choices=VISIBILITIES),
                          Field(description="public, members or owner_only (only its author sees it; default: by "
                                            "its folder).")] = None
    source_ids: Annotated[list[str], Listed, Spelled(surfaces=frozenset({"mcp", "rest"})), Field(
        description="Ids of the messages it came from.", default_factory=list)]
    redact: Annotated[Optional[bool], Spelled(surfaces=LIBRARY_AND_CLI), Field(
        description="Mask secrets instead of refusing (default: [gate] redact).")] = None
    infer: Annotated[Optional[bool], Spelled(), Field(
        description="Without a kind: type a plain statement when a recogniser fits it (a passport, a trip...); "
                    "the result's `inferred` says what was read (default: [typing] infer).")] = None
    llm: Annotated[Optional[str], Spelled(metavar="COMMAND", surfaces=LIBRARY_AND_CLI), Field(
        description="Command deciding ambiguous cases (reads stdin, writes stdout); never run by a server.")] = None
    rate_session: Annotated[Optional[str], Names("session"), Spelled(cli=("--during",), metavar="SESSION",
                                                                     surfaces=LIBRARY_AND_CLI), Field(
        description="The conversation this write comes from, for a long-term memory: `extract` then skips "
                    "that turn; automatic writes count against its rate limit.")] = None
    trusted_source: Annotated[bool, Spelled(surfaces=frozenset()), Field(
        description="False for a server's client it does not trust: the write counts as ai whatever source "
                    "it claims (policy/gate.py claimed_source). Decided by the server, never by a client.")] = True


class GateRequest(AddRequest):
    """gate: what add would do with one memory, changing nothing."""

    overrides: Annotated[Optional[dict[str, Any]], Spelled(surfaces=frozenset()), Field(
        description="Gate thresholds to use instead of [gate]'s (min_confidence, min_length, max_length).")] = None


LIST_STATUSES = ("active", "superseded", "merged", "expired", "forgotten", "archived", "all")
SORTS = ("created", "updated", "type", "confidence", "importance", "id", "user")


class ListRequest(Request):
    """list: the memories matching every given filter, sorted, a page at a time."""

    codes: ClassVar[dict[str, str]] = {"user": "bad_name", "project": "bad_name", "session": "bad_name",
                                       "sort": "bad_sort", "limit": "bad_limit", "offset": "bad_limit"}

    user: Annotated[Optional[str], Names("user"), Spelled(cli=("--user", "-u"), metavar="USER", complete="users"),
                    Field(description="Only this user's memories.")] = None
    project: Annotated[Optional[str], Names("project"), Spelled(cli=("--project", "-p"), metavar="PROJECT",
                                                                complete="projects"), Field(
        description="Only this project's memories.")] = None
    type: Annotated[Optional[str], Spelled(cli=("--type", "-t"), metavar="TYPE", aliases=("memory_type", "category"),
                                           complete="types"), Field(description="Only memories of this type.")] = None
    status: Annotated[Optional[str], OneOf(LIST_STATUSES, "status"), Spelled(
        metavar="STATUS", aliases=("state",), choices=LIST_STATUSES), Field(
        description="active (in force), an archived status (superseded, merged, expired, forgotten, archived) "
                    "or all.")] = "active"
    tag: Annotated[Optional[str], Spelled(metavar="TAG"), Field(description="Only memories with this tag.")] = None
    session: Annotated[Optional[str], Names("session"), Spelled(cli=("--session", "-s"), metavar="SESSION"), Field(
        description="Only this session's memories.")] = None
    sort: Annotated[str, OneOf(SORTS, "sort"), Spelled(metavar="FIELD", choices=SORTS, surfaces=LIBRARY_AND_CLI), Field(
        description="created, updated, type, confidence, importance (most important first), id or user.")] = "created"
    limit: Annotated[int, Spelled(cli=("--limit", "-n"), metavar="N"), Field(
        ge=0, description="At most this many (0: all).")] = 0
    subtype: Annotated[Optional[str], Spelled(metavar="SUBTYPE", aliases=("subType",), filter="subtype"), Field(
        description="Only memories of this subtype.")] = None
    offset: Annotated[int, Spelled(metavar="N"), Field(ge=0, description="Skip this many first (paging).")] = 0
    newest_first: Annotated[bool, Spelled(surfaces=LIBRARY_AND_CLI), Field(description="Reverse the order (newest first by created).")] = False


FORMATS = ("markdown", "xml", "json")


class ContextRequest(Request):
    """context: the block an agent prepends to its prompt (profile and recalled memories, within a budget)."""

    codes: ClassVar[dict[str, str]] = {"query": "empty_query", "user": "bad_name", "project": "bad_name",
                                       "session": "bad_name", "budget": "bad_budget", "format": "bad_format"}

    query: Annotated[str, NotBlank, Spelled(cli=("",), metavar="QUERY", aliases=("q",)), Field(
        description="The task at hand, in plain words (any language).")]
    user: Annotated[Optional[str], Names("user"), Spelled(cli=("--user", "-u"), metavar="USER", complete="users"),
                    Field(description="Whose profile and memories (default: the server's --user).")] = None
    project: Annotated[Optional[str], Names("project"), Spelled(cli=("--project", "-p"), metavar="PROJECT",
                                                                complete="projects"), Field(
        description="The project's profile and memories too (default: the server's --project).")] = None
    session: Annotated[Optional[str], Names("session"), Spelled(cli=("--session", "-s"), metavar="SESSION"), Field(
        description="The current conversation: its short-term memories rank first.")] = None
    budget: Annotated[int, Spelled(metavar="TOKENS"), Field(
        ge=1, le=20000, description="Token budget for the block (approx: ASCII chars/4 + 1 per other char).")] = 800
    format: Annotated[Literal["markdown", "xml", "json"], Spelled(cli=("--format", "-f"), metavar="FORMAT",
                                                                   choices=FORMATS), Field(
        description="How the block is written: markdown, xml or json.")] = "markdown"


class OwnedRequest(Request):
    """The whose-memories fields of a command offered by the library and the CLI only."""

    codes: ClassVar[dict[str, str]] = {"user": "bad_name", "project": "bad_name"}

    user: Annotated[Optional[str], Names("user"), Spelled(cli=("--user", "-u"), metavar="USER", complete="users",
                                                          surfaces=LIBRARY_AND_CLI), Field(
        description="Only this user's memories (whose memories: store/filters.py).")] = None
    project: Annotated[Optional[str], Names("project"), Spelled(cli=("--project", "-p"), metavar="PROJECT",
                                                                complete="projects", surfaces=LIBRARY_AND_CLI), Field(
        description="Only this project's memories.")] = None


class StructureRequest(OwnedRequest):
    """structure: type the untyped memories already stored (the kind and fields their words state)."""

    dry_run: Annotated[bool, Spelled(surfaces=LIBRARY_AND_CLI), Field(
        description="List what would be typed; change nothing.")] = False
    llm: Annotated[Optional[str], Spelled(metavar="COMMAND", surfaces=LIBRARY_AND_CLI), Field(
        description="Type with this LLM command (prompt on stdin, JSON Lines on stdout; default: MEMCTL_LLM); "
                    "never run by a server.")] = None
    offline: Annotated[bool, Spelled(surfaces=LIBRARY_AND_CLI), Field(
        description="Use the offline recognisers even when MEMCTL_LLM names a command.")] = False


OPS = ("count", "sum", "latest", "earliest", "list")


class QueryRequest(Request):
    """query: an exact answer over typed fields (count, sum, latest, earliest or list of a kind)."""

    codes: ClassVar[dict[str, str]] = {"op": "bad_query", "kind": "bad_kind", "user": "bad_name",
                                       "project": "bad_name", "at": "bad_time"}

    op: Annotated[str, OneOf(OPS, "query"), Spelled(cli=("",), metavar="OP", choices=OPS), Field(
        description="count, sum (of field), latest or earliest (by field), list.")]
    kind: Annotated[str, NotBlank, Spelled(cli=("--kind", "-k"), metavar="KIND", complete="kinds"), Field(
        description="The kind asked about: trip, expense, passport...")]
    where: Annotated[list[str], Listed, Spelled(cli=("--where", "-w"), metavar="CONDITION"), Field(
        description="Conditions that must all hold: 'departs in 2025', 'international = true', "
                    "'amount > 100 EUR', 'expires within 90 days'.", default_factory=list)]
    field: Annotated[Optional[str], Spelled(cli=("--field", "-f"), metavar="FIELD"), Field(
        description="What sum adds, and what latest/earliest/list order by (default: the kind's first date).")] = None
    user: Annotated[Optional[str], Names("user"), Spelled(cli=("--user", "-u"), metavar="USER", complete="users"),
                    Field(description="Only this user's memories (default: the server's --user).")] = None
    project: Annotated[Optional[str], Names("project"), Spelled(cli=("--project", "-p"), metavar="PROJECT",
                                                                complete="projects"), Field(
        description="Only this project's memories (default: the server's --project).")] = None
    at: Annotated[Optional[str], Spelled(metavar="DATE"), Field(
        description="The day `today` means (default: today).")] = None


class CheckRequest(OwnedRequest):
    """check: run every check (shipped, checks/*.toml, [checks]) over the typed memories."""

    codes: ClassVar[dict[str, str]] = {**OwnedRequest.codes, "at": "bad_time"}

    at: Annotated[Optional[str], Spelled(metavar="DATE", surfaces=LIBRARY_AND_CLI), Field(
        description="The day `today` means (default: today).")] = None


class StatsRequest(OwnedRequest):
    """stats: counts by status, type, scope and owner; broken files."""
