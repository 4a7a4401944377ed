"""Which repository keeps a directory's memories: a PostgreSQL database (`[store] url`, or
MEMCTL_STORE), else the folder itself in its `[layout]` (or what the folder looks like)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Union

from memctl.config import Config, LayoutSettings
from memctl.errors import ConfigError, UsageError
from memctl.store.filerepo import FileRepository
from memctl.store.layout import ACTIVE_DIRS

if TYPE_CHECKING:  # psycopg and the PostgreSQL code load only for a database store
    from memctl.store.postgres.repo import PostgresRepository

STORE_ENV = "MEMCTL_STORE"
AnyRepository = Union[FileRepository, "PostgresRepository"]


def store_url(config: Config, environ: Mapping[str, str] = os.environ) -> str:
    """The database URL memories are kept in: MEMCTL_STORE, else `[store] url`; "" for the folder."""
    url = environ.get(STORE_ENV, "").strip() or config.store.url
    if url and not url.startswith(("postgresql://", "postgres://")):
        raise ConfigError(f"{STORE_ENV} must be a postgresql:// URL", code="bad_store")
    if url and config.layout.kind == "claude":
        raise ConfigError("a PostgreSQL store keeps the memctl layout; [layout] kind = \"claude\" is for a folder",
                          code="bad_store")
    return url


def database_config(url: str | None, config: Config, environ: Mapping[str, str] = os.environ) -> Config:
    """The settings of a store with no folder: `config` with its `[store] url` made the database
    named by `url`, else MEMCTL_STORE, else the one it names itself; a UsageError when none is, or
    when it is no postgresql:// URL (the caller named it: bad input)."""
    given = (url or "").strip() or environ.get(STORE_ENV, "").strip() or config.store.url
    if not given:
        raise UsageError(f"no database to serve: pass --store postgresql://... or set {STORE_ENV}", code="bad_store")
    if not given.startswith(("postgresql://", "postgres://")):
        from memctl.store.postgres.connect import redact  # no psycopg: the lean helpers only

        raise UsageError(f"not a PostgreSQL URL: {redact(given)!r} (it must start with postgresql://)", code="bad_store")
    return config.model_copy(update={"store": config.store.model_copy(update={"url": given}),
                                     "layout": LayoutSettings(kind="memctl")})


def resolve_layout(root: Path, settings: LayoutSettings) -> LayoutSettings:
    """`auto` made definite (a folder of Claude Code topic files is `claude`, anything else `memctl`),
    and the claude layout's project filled in from the folder's name when not set."""
    kind = settings.kind
    if kind == "auto":
        if any((root / folder).is_dir() for folder in ACTIVE_DIRS):
            kind = "memctl"  # the common case, settled by a stat: no Claude Code module loaded
        else:
            from memctl.store.claudelayout import looks_like_claude

            kind = "claude" if looks_like_claude(root) else "memctl"
    project = settings.project
    if kind == "claude" and not project:
        from memctl.store.claudelayout import default_project

        project = default_project(root)
    return LayoutSettings(kind=kind, project=project)


def open_repository(root: Path | None, config: Config) -> AnyRepository:
    """The repository for `root` (config.layout resolved): PostgresRepository when a database URL is
    set, else FileRepository or ClaudeRepository. With no folder (root None) the store is the
    database `[store] url` names, as given (see `database_config`)."""
    if root is None:
        from memctl.store.postgres.repo import PostgresRepository

        return PostgresRepository(config.store.url, None)
    url = store_url(config)
    if url:
        from memctl.store.postgres.repo import PostgresRepository

        return PostgresRepository(url, root)
    if config.layout.kind == "claude":
        from memctl.core.claudefile import TopicDefaults
        from memctl.store.claude import ClaudeRepository

        return ClaudeRepository(root, TopicDefaults(project=config.layout.project, type=config.default_type))
    return FileRepository(root)
