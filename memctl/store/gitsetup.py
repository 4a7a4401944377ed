"""`memctl git setup`: make a memory folder in a git repository merge without conflict markers.

It writes (or completes) the folder's `.gitattributes`, routing memory files to the `memctl` merge
driver, registers the driver in the repository's own config, and, in the memctl layout, keeps the
generated MEMORY.md files out of git (.gitignore): they are written whole from the memories, so a
committed one could only ever conflict; `memctl index --all` writes them in any clone.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

from memctl.errors import UsageError
from memctl.store.files import write_atomic
from memctl.store.git import repo_top, set_config, tracked

DRIVER = "memctl"
MARK = "# memctl: memory files merge field by field, never with conflict markers (`memctl git setup`)"
ATTRIBUTES = {
    "memctl": ["users/**/*.md merge=memctl", "projects/**/*.md merge=memctl", "archive/**/*.md merge=memctl"],
    "claude": ["*.md merge=memctl", "archive/*.md merge=memctl"],
}
IGNORED_INDEXES = ["users/*/MEMORY.md", "projects/*/MEMORY.md"]
IGNORE_MARK = "# memctl: MEMORY.md is generated from the memories (`memctl index --all`), never committed"


def driver_command() -> str:
    """How git runs the driver: this Python running memctl (the path git stores is absolute, so it
    does not depend on PATH when git runs it)."""
    return f"{shlex.quote(sys.executable)} -m memctl git merge-file %O %A %B %P"


def setup_git(root: Path, layout: str) -> dict[str, Any]:
    """Install the merge driver for the memory folder `root` (of `layout`); UsageError when `root` is
    in no git repository. Idempotent; returns what it wrote and what is left for the user."""
    top = repo_top(root)
    if top is None:
        raise UsageError(f"{root} is not in a git repository (run `git init` first)", code="not_in_git")
    set_config(top, f"merge.{DRIVER}.name", "memctl: memories merged field by field")
    set_config(top, f"merge.{DRIVER}.driver", driver_command())
    written = [name for name, lines, mark in _files(layout) if _complete(root / name, mark, lines)]
    report: dict[str, Any] = {"repository": str(top), "driver": driver_command(), "written": written,
                              "tracked_indexes": []}
    if layout == "memctl":
        prefix = root.resolve().relative_to(top.resolve()).as_posix()
        patterns = [f"{prefix}/{p}" if prefix != "." else p for p in IGNORED_INDEXES]
        report["tracked_indexes"] = tracked(top, patterns)
    return report


def _files(layout: str) -> list[tuple[str, list[str], str]]:
    files = [(".gitattributes", ATTRIBUTES["claude" if layout == "claude" else "memctl"], MARK)]
    if layout != "claude":  # Claude Code reads MEMORY.md from the checkout: there it stays committed
        files.append((".gitignore", IGNORED_INDEXES, IGNORE_MARK))
    else:  # this checkout's locks, journal and index record: never committed
        files.append((".gitignore", [".memctl/"], "# memctl: this checkout's own state, never committed"))
    return files


def _complete(path: Path, mark: str, lines: list[str]) -> bool:
    """Add the lines `path` lacks (under `mark`), keeping what it says; True when it was written."""
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
    except (OSError, UnicodeDecodeError):
        raise UsageError(f"{path} is unreadable: fix or remove it, then run `memctl git setup` again",
                         code="unreadable_file") from None
    have = set(text.splitlines())
    missing = [line for line in lines if line not in have]
    if not missing:
        return False
    block = ([mark] if mark not in have else []) + missing
    write_atomic(path, text + ("\n" if text and not text.endswith("\n") else "") + "\n".join(block) + "\n")
    return True
