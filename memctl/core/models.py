"""Pydantic models: the memory itself and the results the library returns."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from memctl.clock import format_timestamp
from memctl.core.dates import normalise_occurred
from memctl.errors import InvalidId, UsageError

STATUSES = ("active", "superseded", "merged", "expired", "forgotten", "archived")
SCOPES = ("user", "project", "session")
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
# Names that Windows reserves in any folder (with or without an extension): a user called `con`
# would make the directory impossible to check out there.
RESERVED_NAMES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))})
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
MAX_LABEL = 128
ID_RE = re.compile(r"^[0-9a-f]{8,32}$")
KIND_RE = re.compile(r"[a-z][a-z0-9_]{0,39}")

# Frontmatter key order: canonical, so serialisation is deterministic and git diffs stay small.
FIELD_ORDER = (
    "id", "type", "subtype", "kind", "scope", "user", "project", "session", "confidence", "source", "sources",
    "status", "importance", "created", "updated", "expires", "occurred", "state", "valid_until", "fields", "tags", "key",
    "entities", "name", "description", "author", "visibility", "part_of", "supersedes", "superseded_by",
    "merged_from", "merged_into", "conflicts_with", "source_ids", "archived_reason", "archived_at",
)
TIME_FIELDS = ("created", "updated", "expires", "valid_until", "archived_at")
LIST_FIELDS = ("sources", "tags", "entities", "merged_from", "conflicts_with", "source_ids")


def check_name(value: str, what: str) -> str:
    """A user, project or session name: one safe path component on every common filesystem
    (letters, digits, . _ @ -; no control characters, no `..`, no reserved device names)."""
    if (not isinstance(value, str) or not NAME_RE.fullmatch(value) or ".." in value
            or value.split(".")[0].lower() in RESERVED_NAMES or value.endswith(".")):
        raise ValueError(f"invalid {what} name {value!r} (letters, digits, . _ @ -; no slashes, "
                         "no reserved names such as con or nul)")
    return value


def check_label(value: str, what: str) -> str:
    """A tag, key, subtype or source: free text, but one line of at most 128 characters without
    control characters (they would reach terminals, prompts and file names)."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_LABEL or CONTROL.search(value):
        raise ValueError(f"invalid {what} {value!r} (one line of 1-{MAX_LABEL} characters, no control characters)")
    return value


def name_arg(value: str, what: str) -> str:
    """A name given by a caller: checked like a stored one, refused as a usage error (exit 2)."""
    try:
        return check_name(value, what)
    except ValueError as exc:
        raise UsageError(str(exc), code="bad_name") from None


def session_key(session: str | None, owner: str | None) -> str | None:
    """One session of one owner (`users/alice/chat1`) as usage records it; names have no `/`, so
    the key is unambiguous. The bare session when no owner is known (one person's directory)."""
    if session is None:
        return None
    return f"{owner}/{session}" if owner else session


def id_arg(value: str) -> str:
    """An id argument: hex only, so it can never name a path outside the directory."""
    if not isinstance(value, str) or not re.fullmatch(r"[0-9a-f]{4,32}", value):
        raise InvalidId(f"invalid memory id {value!r} (expected 4-32 lowercase hex characters)")
    return value


class Memory(BaseModel):
    """One memory: the frontmatter fields, the Markdown body, and unknown keys kept verbatim."""

    id: str
    type: str
    subtype: str | None = None
    kind: str | None = None  # a schema's name (passport, trip): the memory's `fields` follow it
    scope: Literal["user", "project", "session"] = "user"
    user: str | None = None
    project: str | None = None
    session: str | None = None
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: str = "user"
    sources: list[str] = Field(default_factory=list)
    status: Literal["active", "superseded", "merged", "expired", "forgotten", "archived"] = "active"
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    created: datetime
    updated: datetime
    expires: datetime | None = None
    occurred: str | None = None  # when the event happens or happened: a day or a range of days
    state: str | None = None  # active, inactive, planned, done, cancelled (configurable); None = active
    valid_until: datetime | None = None  # in force until then (unlike `expires`, nothing is archived)
    fields: dict[str, Any] = Field(default_factory=dict)  # typed values (core/typed.py), read by kind
    tags: list[str] = Field(default_factory=list)
    key: str | None = None
    entities: list[str] = Field(default_factory=list)
    name: str | None = None
    description: str | None = None
    author: str | None = None
    visibility: str | None = None
    part_of: str | None = None  # id of the whole this memory is a part of (a trip's flight)
    supersedes: str | None = None
    superseded_by: str | None = None
    merged_from: list[str] = Field(default_factory=list)
    merged_into: str | None = None
    conflicts_with: list[str] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)
    archived_reason: str | None = None
    archived_at: datetime | None = None
    body: str
    extra: dict[str, Any] = Field(default_factory=dict)
    path: str | None = Field(default=None, exclude=True)

    @field_validator("id")
    @classmethod
    def _check_id(cls, value: str) -> str:
        if not ID_RE.match(value):
            raise ValueError(f"invalid id {value!r} (8-32 lowercase hex characters)")
        return value

    @field_validator("part_of")
    @classmethod
    def _check_link(cls, value: str | None) -> str | None:
        if value is not None and not ID_RE.match(value):
            raise ValueError(f"invalid part_of id {value!r} (8-32 lowercase hex characters)")
        return value

    @field_validator("kind")
    @classmethod
    def _check_kind(cls, value: str | None) -> str | None:
        if value is not None and not KIND_RE.fullmatch(value):
            raise ValueError(f"invalid kind {value!r} (lowercase letters, digits and _)")
        return value

    @field_validator("fields", mode="before")
    @classmethod
    def _check_fields(cls, value: Any) -> Any:
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(isinstance(k, str) and k for k in value):
            raise ValueError("fields must be a mapping of field names to values")
        return value

    @field_validator("occurred", mode="before")
    @classmethod
    def _check_occurred(cls, value: Any) -> str | None:
        if value is None:
            return None
        try:
            return normalise_occurred(value)
        except UsageError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("created", "updated", "expires", "valid_until", "archived_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        # One canonical zone, so stored times compare as text and serialise identically.
        if value is None:
            return None
        try:
            return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)
        except OverflowError:  # 0001-01-01T00:00+05:00 is before year 1 in UTC
            raise ValueError("a time outside the years 1-9999 in UTC") from None

    @field_validator("user", "project", "session")
    @classmethod
    def _check_names(cls, value: str | None, info: Any) -> str | None:
        return None if value is None else check_name(value, info.field_name)

    @field_validator("sources", "tags", "entities", "merged_from", "conflicts_with", "source_ids", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, (str, int, float)):
            return [str(value)]
        return [str(v) for v in value] if isinstance(value, list) else value

    @field_validator("subtype", "key", "source", "state")
    @classmethod
    def _check_labels(cls, value: str | None, info: Any) -> str | None:
        return None if value is None else check_label(value, info.field_name)

    @field_validator("tags", "sources")
    @classmethod
    def _check_label_lists(cls, value: list[str], info: Any) -> list[str]:
        return [check_label(v, info.field_name.rstrip("s")) for v in value]

    @field_validator("body")
    @classmethod
    def _check_body(cls, value: str) -> str:
        """The body without surrounding whitespace and with one kind of line ending (files are LF)."""
        value = re.sub(r"\r\n?", "\n", value or "")
        if not value.strip():
            raise ValueError("the memory has no content")
        return value.strip()

    @model_validator(mode="after")
    def _check_scope(self) -> "Memory":
        owner = {"user": self.user, "project": self.project, "session": self.session}[self.scope]
        if owner is None:
            raise ValueError(f"scope {self.scope} needs a {self.scope} field")
        if self.scope == "session" and not (self.user or self.project):
            raise ValueError("a session memory needs a user or a project")
        return self

    @property
    def content(self) -> str:
        """The memory text (the Markdown body)."""
        return self.body

    @property
    def owner(self) -> str:
        """The scope folder this memory lives in, e.g. `users/alice` or `projects/shop`."""
        if self.scope == "project" or (self.scope == "session" and not self.user):
            return f"projects/{self.project}"
        return f"users/{self.user}"

    @property
    def session_owner(self) -> str:
        """Whose conversation a write made during a session belongs to: the memory's user, else its
        project. Per-session state (the rate limit, extract's skip, usage) is keyed by this and the
        session, so two people's sessions of the same name never share it."""
        return f"users/{self.user}" if self.user else f"projects/{self.project}"

    def is_expired(self, at: datetime) -> bool:
        """True once `expires` has passed."""
        return self.expires is not None and self.expires <= at

    def frontmatter(self) -> dict[str, Any]:
        """The frontmatter mapping in canonical key order (unknown keys last, as read)."""
        data = self.model_dump(exclude={"body", "extra", "path"})
        out: dict[str, Any] = {}
        for key in FIELD_ORDER:
            value = data.get(key)
            if value is None or (key in LIST_FIELDS and not value) or (key == "fields" and not value):
                continue
            out[key] = format_timestamp(value) if key in TIME_FIELDS else value
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    def to_public(self) -> dict[str, Any]:
        """JSON-ready view for `--json` output: frontmatter, content and path."""
        data = self.frontmatter()
        data["content"] = self.body
        data["path"] = self.path
        return data


class Hit(BaseModel):
    """One recall result."""

    id: str
    path: str | None
    type: str
    scope: str
    user: str | None
    project: str | None = None
    session: str | None = None
    content: str
    score: float
    relevance: float | None = None  # calibrated, comparable across queries (policy/relevance.py)
    created: datetime | None = None
    occurred: str | None = None
    date: str | None = None  # the day it happened (occurred, else updated): set when the query asks when
    state: str | None = None
    in_force: bool = True  # False: a state not in force, or past valid_until (ranked lower)
    part_of: str | None = None
    linked_to: str | None = None  # set on a hit that came along as a part (or the whole) of that hit
    constraint: str | None = None  # set on a constraint that came along with the request: the domains it bites in
    components: dict[str, float] = Field(default_factory=dict)
    memory: Memory | None = Field(default=None, exclude=True)


class JournalEntry(BaseModel):
    """One line of the append-only journal."""

    op: str
    id: str
    time: str
    before: str | None = None
    after: str | None = None
    path_before: str | None = None
    path_after: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)

    def mentions(self) -> set[str]:
        """The values its detail names (a list's items one by one: a link entry's `also`), as text:
        the entry is in the history of each memory id among them."""
        out: set[str] = set()
        for value in self.detail.values():
            if isinstance(value, (list, tuple)):
                out.update(str(v) for v in value)
            else:
                out.add(str(value))
        return out
