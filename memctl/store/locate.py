"""Where the memory directory is: `--dir`, else MEMCTL_DIR, else the nearest ancestor holding memctl.toml.

Lean on purpose (no config, no models): the CLI asks it before deciding whether a warm server can
answer a command, and a forwarded command must not pay for pydantic.
"""

from __future__ import annotations

import os
from pathlib import Path

from memctl.errors import NoDirectory

CONFIG_NAME = "memctl.toml"
CACHE_DIR = ".memctl"  # caches only, git-ignored


def find_root(explicit: str | os.PathLike[str] | None, env: str | None, cwd: Path) -> Path:
    """`--dir`, else MEMCTL_DIR, else the nearest ancestor holding memctl.toml."""
    for given in (explicit, env):
        if given:
            path = Path(given).expanduser()
            if not path.is_dir():
                raise NoDirectory(f"memory directory {str(path)!r} does not exist (run `memctl init {path}`)")
            if not (path / CONFIG_NAME).is_file():
                raise NoDirectory(f"{str(path)!r} is not a memory directory: it has no {CONFIG_NAME} "
                                  f"(run `memctl init {path}` to make it one)")
            return path.resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder
    raise NoDirectory("no memory directory found: pass --dir, set MEMCTL_DIR, or run `memctl init`")
