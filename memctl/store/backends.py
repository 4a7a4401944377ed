"""Which repository keeps a directory's memories: the backend a URL's scheme names (`[store] url`,
or MEMCTL_STORE: `postgresql://` is memctl's own, others come from installed plugins registered as
`memctl.backends` entry points, core/plugins.py), else the folder itself in its `[layout]` (or
what the folder looks like)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Union, cast

from memctl.config import Config, LayoutSettings
from memctl.errors import ConfigError, UsageError
from memctl.store.filerepo import FileRepository
from memctl.store.layout import ACTIVE_DIRS

if TYPE_CHECKING:  # psycopg and the PostgreSQL code load only for a database store
    from memctl.store.postgres.repo import PostgresRepository

STORE_ENV = "MEMCTL_STORE"
AnyRepository = Union[FileRepository, "PostgresRepository"]


def scheme_of(url: str) -> str:
    """A store URL's scheme (`postgresql` of `postgresql://host/db`), "" when it has none."""
    scheme, sep, _ = url.partition("://")
    return scheme.lower() if sep and scheme.replace("+", "").replace("-", "").replace(".", "").isalnum() else ""


def backend(url: str, root: Path | None = None) -> Callable[..., Any] | None:
    """The factory `(url, root)` of the backend the URL's scheme names; None when none is registered
    (plugins from installed packages only, never from the memory folder `root`)."""
    from memctl.core.plugins import BACKENDS, load

    scheme = scheme_of(url)
    return load(BACKENDS, scheme, [root] if root is not None else []) if scheme else None


def _known(url: str, root: Path | None) -> bool:
    return backend(url, root) is not None


def store_url(config: Config, environ: Mapping[str, str] = os.environ, root: Path | None = None) -> str:
    """The store URL memories are kept in: MEMCTL_STORE, else `[store] url`; "" for the folder."""
    url = environ.get(STORE_ENV, "").strip() or config.store.url
    if url and not _known(url, root):
        raise ConfigError(f"{STORE_ENV} or [store] url: no backend for {_shown(url)!r} (postgresql://..., or "
                          "the scheme of an installed plugin)", code="bad_store")
    if url and config.layout.kind == "claude":
        raise ConfigError("a database store keeps the memctl layout; [layout] kind = \"claude\" is for a folder",
                          code="bad_store")
    return url


def _shown(url: str) -> str:
    from memctl.store.postgres.connect import redact  # no psycopg: the lean helpers only

    return redact(url)


def database_config(url: str | None, config: Config, environ: Mapping[str, str] = os.environ) -> Config:
    """The settings of a store with no folder: `config` with its `[store] url` made the database
    named by `url`, else MEMCTL_STORE, else the one it names itself; a UsageError when none is, or
    when it is no postgresql:// URL (the caller named it: bad input)."""
    given = (url or "").strip() or environ.get(STORE_ENV, "").strip() or config.store.url
    if not given:
        raise UsageError(f"no database to serve: pass --store postgresql://... or set {STORE_ENV}", code="bad_store")
    if not _known(given, None):
        raise UsageError(f"no backend for {_shown(given)!r} (it must start with postgresql://, or the scheme of an "
                         "installed plugin)", code="bad_store")
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
    """The repository for `root` (config.layout resolved): the backend of the store URL's scheme when
    one is set (PostgresRepository for postgresql://), else FileRepository or ClaudeRepository. With
    no folder (root None) the store is the one `[store] url` names, as given (see `database_config`)."""
    url = config.store.url if root is None else store_url(config, root=root)
    if url or root is None:
        factory = backend(url, root)
        if factory is None:
            raise ConfigError(f"no backend for {_shown(url)!r}", code="bad_store")
        return cast(AnyRepository, factory(url, root))
    if config.layout.kind == "claude":
        from memctl.core.claudefile import TopicDefaults
        from memctl.store.claude import ClaudeRepository

        return ClaudeRepository(root, TopicDefaults(project=config.layout.project, type=config.default_type))
    return FileRepository(root)
