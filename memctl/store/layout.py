"""Where things live in a memory directory (the `memctl` layout: users/, projects/, archive/)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Protocol

from memctl.core.models import Memory

CONFIG_NAME = "memctl.toml"
CACHE_DIR = ".memctl"
ACTIVE_DIRS = ("users", "projects")
ARCHIVE_DIR = "archive"
INDEX_FILE = "MEMORY.md"
TEMPLATE_NAME = "MEMORY.md.template"
PROMPT_NAME = "extract_prompt.md"
TRANSCRIPTS_DIR = "transcripts"
RULE_DIRS = ("schemas", "checks", "recognisers")  # kinds, checks, recognisers: TOML, read as data
_SLUG_WORD = re.compile(r"[a-z0-9]+")
_RECORD_PATH = re.compile(r"(archive/)?(users|projects)/[A-Za-z0-9][A-Za-z0-9._@-]*/[A-Za-z0-9][A-Za-z0-9._@-]*\.md")


def slugify(text: str, fallback: str) -> str:
    """Up to six ASCII words of the content, for readable file names."""
    words = _SLUG_WORD.findall(text.lower())[:6]
    while words and len("-".join(words)) > 40:
        words.pop()
    slug = "-".join(words)
    return slug if any(c.isalpha() for c in slug) else fallback


def is_archived(rel: str | None) -> bool:
    """True for a path under archive/."""
    return (rel or "").startswith(ARCHIVE_DIR + "/")


class Layout(Protocol):
    """Where a folder layout keeps memories, their archive and their MEMORY.md (paths only, no I/O)."""

    name: str
    root: Path

    def relative(self, path: Path) -> str: ...

    def new_path(self, memory: Memory, archived: bool = False) -> Path: ...

    def archive_path(self, active: Path) -> Path: ...

    def active_path(self, archived: Path) -> Path: ...

    def index_path(self, owner: str) -> Path: ...

    def folder_of(self, rel: str) -> str: ...

    def place(self, memory: Memory) -> Path: ...


class MemctlLayout:
    """Paths of the default layout: `<users|projects>/<name>/<slug>-<id>.md`, mirrored under archive/."""

    name = "memctl"

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache = root / CACHE_DIR

    def relative(self, path: Path) -> str:
        """A path relative to the root, with forward slashes."""
        return path.relative_to(self.root).as_posix()

    def new_path(self, memory: Memory, archived: bool = False) -> Path:
        """Where a new memory goes: `<scope folder>/<slug>-<id>.md`."""
        return self.root / new_record_path(memory, archived)

    def archive_path(self, active: Path) -> Path:
        """The archive location that mirrors an active file's path."""
        return self.root / ARCHIVE_DIR / self.relative(active)

    def active_path(self, archived: Path) -> Path:
        """The active location that mirrors an archived file's path."""
        return self.root / self.relative(archived).removeprefix(ARCHIVE_DIR + "/")

    def index_path(self, owner: str) -> Path:
        """The MEMORY.md of a scope folder such as `users/alice`."""
        return self.root / owner / INDEX_FILE

    def folder_of(self, rel: str) -> str:
        """The scope folder a memory file sits in (`archive/users/a/x.md` -> `users/a`)."""
        return rel.removeprefix(ARCHIVE_DIR + "/").rsplit("/", 1)[0]

    def place(self, memory: Memory) -> Path:
        """Where a memory brought in whole (an import of memctl's own records) goes: its own relative
        path when that fits its owner and status and is free, else where a new one would go."""
        rel = memory.path or ""
        if record_path_fits(memory) and not (self.root / rel).exists():
            return self.root / rel
        return self.new_path(memory, memory.status != "active")


def record_path_fits(memory: Memory) -> bool:
    """True when a memory brought in whole can keep its relative path in the memctl layout: the path
    is a memory file's, in its owner's folder, under archive/ exactly when it is not active."""
    rel = memory.path or ""
    return (_RECORD_PATH.fullmatch(rel) is not None and is_archived(rel) == (memory.status != "active")
            and rel.removeprefix(ARCHIVE_DIR + "/").rsplit("/", 1)[0] == memory.owner
            and not rel.endswith("/" + INDEX_FILE))


def new_record_path(memory: Memory, archived: bool = False) -> str:
    """The relative path of a new memory in the memctl layout: `[archive/]<scope folder>/<slug>-<id>.md`."""
    name = f"{slugify(memory.body, memory.type)}-{memory.id}.md"
    return f"{ARCHIVE_DIR + '/' if archived else ''}{memory.owner}/{name}"
