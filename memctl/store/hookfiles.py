"""The files of the Claude Code hooks outside any memory folder: a settings file, a transcript, the log.

A settings file (`.claude/settings.json`, `~/.claude/settings.json`) is read as JSON and written
back atomically (the rest of it kept as it was); a transcript (JSON Lines at the `transcript_path`
Claude Code hands a hook) is read bounded; the hooks' log (`hooks.log` in the user's memctl cache
directory) is where a hook that could not do its work says why, since it never fails Claude Code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memctl.core import jsonsafe
from memctl.errors import UsageError
from memctl.store.cachedir import cache_base
from memctl.store.files import append_line, read_bounded, write_atomic

MAX_SETTINGS_BYTES = 4 << 20
MAX_TRANSCRIPT_BYTES = 64 << 20


def read_settings(path: Path) -> dict[str, Any]:
    """A settings file's JSON object ({} when there is none yet); UsageError when it is not one."""
    try:
        data = read_bounded(path, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}", code="bad_settings") from None
    try:
        settings = jsonsafe.loads(data.decode("utf-8")) if data.strip() else {}
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path} is not JSON ({exc}); fix or move it first", code="bad_settings") from None
    if not isinstance(settings, dict):
        raise UsageError(f"{path} does not hold a JSON object", code="bad_settings")
    return settings


def write_settings(path: Path, settings: dict[str, Any]) -> None:
    """Write a settings file atomically (its folder created if need be)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")


def read_transcript(path: str) -> str:
    """A transcript's text, bounded; OSError when it cannot be read."""
    return read_bounded(Path(path), MAX_TRANSCRIPT_BYTES).decode("utf-8", "replace")


def log_path() -> Path:
    """Where the hooks write why they did nothing."""
    return cache_base() / "hooks.log"


def append_log(line: str) -> None:
    """One line to the hooks' log; a log that cannot be written is given up silently (a hook must
    never fail for its log)."""
    try:
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        append_line(path, line.replace("\n", " ")[:2000], durable=False)
    except Exception:  # OSError, or a link in the log's place (StoreError)
        pass
