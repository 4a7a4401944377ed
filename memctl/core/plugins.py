"""Plugins: the backends (by URL scheme) and embedders (by model name) other packages register
through entry points, `memctl.backends` and `memctl.embedders`; memctl's own are declared the same
way in its pyproject.toml.

Only installed packages count: the distributions on `sys.path` less the working directory (where
`python -m memctl` puts it first) and any folder the caller names (the memory folder), which are
attacker-controlled; a name in memctl.toml can choose a plugin, never bring one. An entry point is
imported only when its name is asked for.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from importlib.metadata import EntryPoint, distributions
from pathlib import Path
from typing import Any, Iterable

from memctl.errors import ConfigError

BACKENDS = "memctl.backends"
EMBEDDERS = "memctl.embedders"
# memctl's own, as its pyproject.toml declares them (tests/test_plugins.py keeps the two equal):
# found here too when the installed metadata is older than the source (an editable install).
SHIPPED: dict[str, dict[str, str]] = {
    BACKENDS: {"postgresql": "memctl.store.postgres.repo:PostgresRepository",
               "postgres": "memctl.store.postgres.repo:PostgresRepository"},
    EMBEDDERS: {"memctl/all-MiniLM-L6-v2-int8": "memctl.search.embedders:fastembed_factory",
                "hashing": "memctl.search.embedders:hashing_factory",
                "multilingual-e5-small": "memctl.search.embedders:multilingual_factory"},
}


class PluginError(ConfigError):
    """A plugin that cannot be loaded (its package is broken, or its entry point names nothing)."""

    code = "bad_plugin"


def installed_paths(exclude: Iterable[str | os.PathLike[str]] = ()) -> list[str]:
    """The `sys.path` entries plugins are read from: not the working directory, not within `exclude`."""
    banned = [Path(p).resolve() for p in (os.getcwd(), *exclude)]
    out = []
    for entry in sys.path:
        if not entry:
            continue
        where = Path(entry).resolve()
        if not any(where == b or b in where.parents for b in banned):
            out.append(entry)
    return out


@lru_cache(maxsize=8)
def _installed(group: str, paths: tuple[str, ...]) -> dict[str, EntryPoint]:
    out: dict[str, EntryPoint] = {}
    for dist in distributions(path=list(paths)):
        for point in dist.entry_points:
            if point.group == group:
                out.setdefault(point.name, point)
    return out


def entry_points(group: str, exclude: Iterable[str | os.PathLike[str]] = ()) -> dict[str, EntryPoint]:
    """name -> entry point of a group: memctl's own first (a plugin cannot take their names), then
    those of the installed packages."""
    shipped = {name: EntryPoint(name, value, group) for name, value in SHIPPED.get(group, {}).items()}
    return {**_installed(group, tuple(installed_paths(exclude))), **shipped}


def load(group: str, name: str, exclude: Iterable[str | os.PathLike[str]] = ()) -> Any | None:
    """The object the entry point `name` of `group` names (None: no package registers it)."""
    point = entry_points(group, exclude).get(name)
    if point is None:
        return None
    try:
        return point.load()
    except Exception as exc:  # a broken plugin is a configuration problem, not a crash
        raise PluginError(f"plugin {name!r} ({group}: {point.value}) cannot be loaded: "
                          f"{type(exc).__name__}: {exc}") from None
