"""Finding, creating and reading the fixed files of a memory directory (config, templates, .gitignore)."""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path

from memctl.config import DEFAULT_CONFIG_TOML, PRESETS, Config, parse_config
from memctl.errors import ConfigError, NoDirectory, UsageError
from memctl.store.files import read_bounded, write_atomic
from memctl.store.layout import (
    ACTIVE_DIRS,
    ARCHIVE_DIR,
    CACHE_DIR,
    CONFIG_NAME,
    PROMPT_NAME,
    RULE_DIRS,
    TEMPLATE_NAME,
    TRANSCRIPTS_DIR,
)

MAX_TEXT_BYTES = 256 * 1024  # a template or a prompt a folder keeps: larger is not one


def find_root(explicit: str | os.PathLike[str] | None, env: str | None, cwd: Path) -> Path:
    """`--dir`, else MEMCTL_DIR, else the nearest ancestor holding memctl.toml."""
    for given in (explicit, env):
        if given:
            path = Path(given).expanduser()
            if not path.is_dir():
                raise NoDirectory(f"memory directory {str(path)!r} does not exist (run `memctl init {path}`)")
            if not (path / CONFIG_NAME).is_file():
                raise NoDirectory(f"{str(path)!r} is not a memory directory: it has no {CONFIG_NAME} "
                                  f"({_init_hint(path)})")
            return path.resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder
    raise NoDirectory("no memory directory found: pass --dir, set MEMCTL_DIR, or run `memctl init`")


def _init_hint(path: Path) -> str:
    from memctl.store.claudelayout import looks_like_claude

    if looks_like_claude(path):
        return (f"it looks like a Claude Code memory folder: run `memctl init --preset claude {path}` "
                "to adopt it in place")
    return f"run `memctl init {path}` to make it one"


def packaged_text(name: str) -> str:
    """A file shipped in memctl/data (the default template and extraction prompt)."""
    return files("memctl").joinpath("data", name).read_text(encoding="utf-8")


def init_directory(path: str | os.PathLike[str], preset: str | None = None) -> list[str]:
    """Create a memory directory (config, MEMORY.md template, extraction prompt, .gitignore, folders);
    idempotent, never overwrites a file. Returns what it created.

    `preset` picks the types (default, claude, categories). A Claude Code memory folder (asked for
    with preset "claude", or recognised when no preset is given) is adopted in place: only
    memctl.toml is written, and the caches go under .memctl/."""
    root = Path(path)
    if root.exists() and not root.is_dir():
        raise UsageError(f"{str(root)!r} exists and is not a folder", code="not_a_directory")
    if preset is not None and preset not in PRESETS:
        raise UsageError(f"unknown preset {preset!r} (choose from {', '.join(PRESETS)})", code="bad_preset")
    if (root / CONFIG_NAME).is_file():
        config = _existing_config(root, preset)
        if _is_claude(root, config):
            return []
    elif (preset == "claude" and not any((root / d).is_dir() for d in ACTIVE_DIRS)) or (
            preset is None and root.is_dir() and _looks_like_claude(root)):
        return _adopt_claude(root)
    created: list[str] = []
    root.mkdir(parents=True, exist_ok=True)
    for folder in (*ACTIVE_DIRS, ARCHIVE_DIR, TRANSCRIPTS_DIR):
        if not (root / folder).is_dir():
            (root / folder).mkdir()
            created.append(folder + "/")
    texts = {CONFIG_NAME: _config_for(preset), TEMPLATE_NAME: packaged_text(TEMPLATE_NAME),
             PROMPT_NAME: packaged_text(PROMPT_NAME),
             ".gitignore": f"# memctl's locks and journal: this checkout's, never commit them\n{CACHE_DIR}/\n"}
    for name, text in texts.items():
        if not (root / name).exists():
            write_atomic(root / name, text)
            created.append(name)
    return created


def _looks_like_claude(root: Path) -> bool:
    from memctl.store.claudelayout import looks_like_claude

    return looks_like_claude(root)


def _config_for(preset: str | None) -> str:
    """memctl.toml for a new directory of the memctl layout with this preset."""
    if preset in (None, "default"):
        return DEFAULT_CONFIG_TOML
    from memctl.store.configfile import set_values

    return set_values(DEFAULT_CONFIG_TOML, {"memory.preset": preset})


def _existing_config(root: Path, preset: str | None) -> Config:
    """The config of a directory initialised before; a different preset asked for is refused, not applied."""
    config = read_config(root)
    if preset is not None and config.memory.preset != preset:
        raise UsageError(f"{root} is already a memory directory with preset {config.memory.preset!r}; change it "
                         f"with `memctl -d {root} config set memory.preset {preset}`", code="preset_conflict")
    return config


def _is_claude(root: Path, config: Config) -> bool:
    if config.layout.kind == "auto":
        return not any((root / d).is_dir() for d in ACTIVE_DIRS) and _looks_like_claude(root)
    return config.layout.kind == "claude"


def _adopt_claude(root: Path) -> list[str]:
    """Adopt a Claude Code memory folder in place: memctl.toml (claude preset and layout, the folder's
    project), and .memctl/ for its lock and journal (git-ignored from inside); no other file is written."""
    from memctl.store.claudelayout import default_project
    from memctl.store.configfile import set_values

    root.mkdir(parents=True, exist_ok=True)
    text = set_values(DEFAULT_CONFIG_TOML, {"memory.preset": "claude", "layout.kind": "claude",
                                            "layout.project": default_project(root)})
    write_atomic(root / CONFIG_NAME, text)
    write_atomic(root / CACHE_DIR / ".gitignore", "# memctl's locks and journal: this checkout's, never commit them\n*\n")
    return [CONFIG_NAME, f"{CACHE_DIR}/"]


def read_config(root: Path) -> Config:
    """`<root>/memctl.toml`, validated; a missing file means the defaults."""
    path = root / CONFIG_NAME
    if not path.exists():
        return Config()
    return read_config_file(path)


def read_config_file(path: Path) -> Config:
    """A memctl.toml the user named (`serve --config FILE`), validated; a missing file is bad input."""
    if not path.is_file():
        raise UsageError(f"config file {str(path)!r} does not exist", code="no_config")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it as UTF-8 text ({exc})") from None
    return parse_config(text, str(path))


def read_text_file(root: Path, name: str) -> str:
    """A directory's own copy of a shipped file (template, prompt), else the shipped one."""
    path = root / name
    if not (path.is_file() or path.is_symlink()):
        return packaged_text(name)
    try:  # the folder is shared: never through a link (it could name any file), never a FIFO, bounded
        return read_bounded(path, MAX_TEXT_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise UsageError(f"{path}: cannot read it ({why}; a symbolic link is never followed)",
                         code="bad_template") from None


def linked_files(root: Path) -> list[str]:
    """The folder's own files and folders (config, template, prompt, `.memctl/` and its journal,
    transcript folders and files, the rule folders and their files) that are symbolic links: memctl never reads or writes through
    them, so the commands that need them refuse; doctor says which."""
    names = [CONFIG_NAME, TEMPLATE_NAME, PROMPT_NAME, CACHE_DIR, f"{CACHE_DIR}/journal.jsonl", TRANSCRIPTS_DIR]
    for rules in RULE_DIRS:  # a link there is skipped (store/kinds.py): doctor says which
        names.append(rules)
        if (root / rules).is_dir() and not (root / rules).is_symlink():
            names += [f"{rules}/{f.name}" for f in sorted((root / rules).glob("*.toml"))[:10_000]]
    transcripts = root / TRANSCRIPTS_DIR
    if transcripts.is_dir() and not transcripts.is_symlink():
        for folder in sorted(transcripts.iterdir())[:10_000]:
            names.append(f"{TRANSCRIPTS_DIR}/{folder.name}")
            if folder.is_dir() and not folder.is_symlink():
                names += [f"{TRANSCRIPTS_DIR}/{folder.name}/{f.name}" for f in sorted(folder.iterdir())[:10_000]]
    return [name for name in dict.fromkeys(names) if (root / name).is_symlink()]
