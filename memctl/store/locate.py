"""Which memory directory a command line means, asked before anything heavy is imported.

The CLI asks this to decide whether a warm server can answer a command; a forwarded command must
not pay for pydantic, so this imports nothing of the config or the models. It mirrors
`store.directory.find_root` (`--dir`, else MEMCTL_DIR, else the nearest ancestor holding
memctl.toml) but returns None where find_root raises: the in-process run reports the error in its
own words. A test checks that the two agree.
"""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_NAME = "memctl.toml"  # as store.layout names them (a test checks they agree)
CACHE_DIR = ".memctl"


def locate_root(explicit: str | os.PathLike[str] | None, env: str | None, cwd: Path) -> Path | None:
    """The directory find_root would return, or None when it would raise."""
    for given in (explicit, env):
        if given:
            path = Path(given).expanduser()
            return path.resolve() if (path / CONFIG_NAME).is_file() else None
    for folder in (cwd, *cwd.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder
    return None
