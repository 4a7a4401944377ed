"""Names in a memory directory for shell completion: memory ids, users, projects, configured types.

Read from folder and file names only (`users/<user>/<slug>-<id>.md`), never from a memory file, so
a Tab costs one directory listing per scope folder; imports nothing but the standard library (a
Tab must answer in well under 150 ms). A hostile folder can at worst offer odd names: each is
checked to look like what it stands for before it is offered.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_ID = re.compile(r"[0-9a-f]{8,32}")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
MAX_NAMES = 2000  # more is no help at a prompt, and a huge folder must not stall a Tab


def owners(root: Path, kind: str) -> list[str]:
    """The user (`kind` users) or project (`projects`) folders of the directory."""
    try:
        entries = sorted(e.name for e in os.scandir(root / kind) if e.is_dir(follow_symlinks=False))
    except OSError:
        return []
    return [name for name in entries if _NAME.fullmatch(name)][:MAX_NAMES]


def memory_ids(root: Path, prefix: str = "") -> list[str]:
    """Ids of the active memories, by their file names (`<slug>-<id>.md`), those starting with `prefix`."""
    out: list[str] = []
    for kind in ("users", "projects"):
        for owner in owners(root, kind):
            try:
                names = [e.name for e in os.scandir(root / kind / owner) if e.name.endswith(".md")]
            except OSError:
                continue
            for name in names:
                memory_id = name[:-3].rpartition("-")[2]
                if _ID.fullmatch(memory_id) and memory_id.startswith(prefix):
                    out.append(memory_id)
            if len(out) >= MAX_NAMES:
                return sorted(out)[:MAX_NAMES]
    return sorted(out)


def configured_types(root: Path, presets: dict[str, list[str]]) -> list[str]:
    """The types memctl.toml configures ([memory] types, else its preset's), read as TOML (never run)."""
    import tomllib

    try:
        with open(root / "memctl.toml", "rb") as handle:
            memory = tomllib.load(handle).get("memory", {})
    except (OSError, ValueError):
        return list(presets["default"])
    types = memory.get("types") if isinstance(memory, dict) else None
    if isinstance(types, list) and all(isinstance(t, str) for t in types) and types:
        return [t for t in types if _NAME.fullmatch(t)]
    preset = memory.get("preset", "default") if isinstance(memory, dict) else "default"
    return list(presets.get(preset, presets["default"]))
