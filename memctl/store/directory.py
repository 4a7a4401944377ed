"""Finding, creating and reading the fixed files of a memory directory (config, templates, .gitignore)."""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path

from memctl.config import DEFAULT_CONFIG_TOML, Config, parse_config
from memctl.errors import ConfigError, NoDirectory, UsageError
from memctl.store.files import write_atomic
from memctl.store.layout import (
    ACTIVE_DIRS,
    ARCHIVE_DIR,
    CACHE_DIR,
    CONFIG_NAME,
    PROMPT_NAME,
    TEMPLATE_NAME,
    TRANSCRIPTS_DIR,
)


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


def packaged_text(name: str) -> str:
    """A file shipped in memctl/data (the default template and extraction prompt)."""
    return files("memctl").joinpath("data", name).read_text(encoding="utf-8")


def init_directory(path: str | os.PathLike[str]) -> list[str]:
    """Create a memory directory (config, MEMORY.md template, extraction prompt, .gitignore, folders);
    idempotent, never overwrites a file. Returns what it created."""
    root = Path(path)
    if root.exists() and not root.is_dir():
        raise UsageError(f"{str(root)!r} exists and is not a folder", code="not_a_directory")
    created: list[str] = []
    root.mkdir(parents=True, exist_ok=True)
    for folder in (*ACTIVE_DIRS, ARCHIVE_DIR, TRANSCRIPTS_DIR):
        if not (root / folder).is_dir():
            (root / folder).mkdir()
            created.append(folder + "/")
    texts = {CONFIG_NAME: DEFAULT_CONFIG_TOML, TEMPLATE_NAME: packaged_text(TEMPLATE_NAME),
             PROMPT_NAME: packaged_text(PROMPT_NAME),
             ".gitignore": f"# memctl caches: rebuildable, never commit them\n{CACHE_DIR}/\n"}
    for name, text in texts.items():
        if not (root / name).exists():
            write_atomic(root / name, text)
            created.append(name)
    return created


def read_config(root: Path) -> Config:
    """`<root>/memctl.toml`, validated; a missing file means the defaults."""
    path = root / CONFIG_NAME
    if not path.exists():
        return Config()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it as UTF-8 text ({exc})") from None
    return parse_config(text, str(path))


def read_text_file(root: Path, name: str) -> str:
    """A directory's own copy of a shipped file (template, prompt), else the shipped one."""
    path = root / name
    try:
        return path.read_text(encoding="utf-8") if path.is_file() else packaged_text(name)
    except (OSError, UnicodeDecodeError):
        raise UsageError(f"{path}: cannot read it as UTF-8 text", code="bad_template") from None
