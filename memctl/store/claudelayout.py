"""The flat layout of a Claude Code memory folder: where its topic files are, and how to recognise one.

Every `*.md` at the top of the folder but MEMORY.md (and memctl's own extract_prompt.md, should one
be put there) is a memory, and its file name is its handle;
an archived one moves to `archive/` under the same name. Paths and scanning only: the repository
that writes them is store/claude.py.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timezone
from pathlib import Path

from memctl.core.claudefile import CLAUDE_KEYS, TopicDefaults, parse_topic
from memctl.core.models import Memory
from memctl.store.catalog import ScanResult, scan_files
from memctl.store.layout import ACTIVE_DIRS, ARCHIVE_DIR, INDEX_FILE, PROMPT_NAME, is_archived

_WORD = re.compile(r"[a-z0-9]+")
_TOPIC_PATH = re.compile(r"(archive/)?[A-Za-z0-9][A-Za-z0-9._@-]*\.md")
_NOT_MEMORIES = (INDEX_FILE, PROMPT_NAME)  # the index, and memctl's editable extraction prompt
_DETECT_FILES = 20  # topic files read (their first 2 KB) to recognise a Claude Code folder


def default_project(root: Path) -> str:
    """The project a Claude Code folder's memories belong to: `~/.claude/projects/<project>/memory`
    gives <project>, any other folder its own name (made a safe name)."""
    folder = root.resolve()
    name = folder.parent.name if folder.name == "memory" and folder.parent.name else folder.name
    clean = re.sub(r"\.{2,}", ".", re.sub(r"[^A-Za-z0-9._@-]+", "-", name))
    clean = re.sub(r"^[^A-Za-z0-9]+", "", clean)[:64].rstrip("-.")
    return clean or "claude"


def _has_topic_frontmatter(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            head = handle.read(2048)
    except OSError:
        return False
    if not head.lstrip("\ufeff").startswith("---"):
        return False
    keys = {line.split(":", 1)[0].strip() for line in head.splitlines()[1:] if ":" in line}
    return len(keys & set(CLAUDE_KEYS)) >= 2


def looks_like_claude(root: Path) -> bool:
    """True for a folder kept the way Claude Code keeps memory: no users/ or projects/ folders, and a
    MEMORY.md at the top or topic files with `name`/`description`/`type` frontmatter."""
    if any((root / folder).is_dir() for folder in ACTIVE_DIRS):
        return False
    if (root / INDEX_FILE).is_file():
        return True
    topics = sorted(p for p in root.glob("*.md") if p.name not in _NOT_MEMORIES)
    return any(_has_topic_frontmatter(p) for p in topics[:_DETECT_FILES])


def topic_name(memory: Memory, fallback: str) -> str:
    """`<type>_<slug>.md`, the slug from the memory's name (else its text) in snake_case."""
    kind = "_".join(_WORD.findall(memory.type.lower())) or "memory"
    words = _WORD.findall((memory.name or memory.body).lower())[:6]
    while words and len("_".join(words)) > 40:
        words.pop()
    slug = "_".join(words) if any(c.isalpha() for c in "".join(words)) else fallback
    return f"{kind}_{slug}"


class ClaudeLayout:
    """Paths and scanning of the flat layout: `<name>.md` at the top, `archive/<name>.md` when archived."""

    name = "claude"
    tops: tuple[str, ...] = ("", ARCHIVE_DIR)
    deep = False  # the catalog never looks below the tops

    def __init__(self, root: Path, defaults: TopicDefaults) -> None:
        self.root = root
        self.defaults = defaults
        key = hashlib.sha256(f"{defaults.project}\0{defaults.type}".encode()).hexdigest()[:8]
        self.catalog_name = f"catalog-claude-{key}.bin"  # what reading fills in depends on the defaults

    def relative(self, path: Path) -> str:
        """A path relative to the root, with forward slashes."""
        return path.relative_to(self.root).as_posix()

    def new_path(self, memory: Memory, archived: bool = False) -> Path:
        """`<type>_<slug>.md`, with `_2`, `_3`... when that name is taken (active or archived)."""
        stem = topic_name(memory, memory.id)
        candidate, n = stem, 1
        while (self.root / f"{candidate}.md").exists() or (self.root / ARCHIVE_DIR / f"{candidate}.md").exists():
            n += 1
            candidate = f"{stem}_{n}"
        return self.root / (ARCHIVE_DIR if archived else "") / f"{candidate}.md"

    def archive_path(self, active: Path) -> Path:
        """archive/<name>: the same file name, so the handle (and a derived id) stays."""
        return self.root / ARCHIVE_DIR / active.name

    def active_path(self, archived: Path) -> Path:
        return self.root / archived.name

    def index_path(self, owner: str) -> Path:
        """The folder's one MEMORY.md, whatever the owner."""
        return self.root / INDEX_FILE

    def folder_of(self, rel: str) -> str:
        """Every memory sits in the one folder, the folder's project."""
        return f"projects/{self.defaults.project}"

    def place(self, memory: Memory) -> Path:
        """A whole memory brought in keeps its file name when that is a free topic-file name."""
        archived = memory.status != "active"
        rel = memory.path or ""
        name = rel.rsplit("/", 1)[-1]
        if _TOPIC_PATH.fullmatch(rel) and name not in _NOT_MEMORIES and is_archived(rel) == archived:
            target = self.root / (ARCHIVE_DIR if archived else "") / name
            if not target.exists() and not (self.root / name).exists() and not (self.root / ARCHIVE_DIR / name).exists():
                return target
        return self.new_path(memory, archived)

    # -- the catalog's scan ----------------------------------------------------------------------
    def stat_files(self, root: Path, folders: tuple[str, ...] | None = None) -> ScanResult:
        """The topic files at the top and in archive/ (never deeper; `folders`: only those), and the
        folders' mtimes; links out of the folder, non-regular and oversized files are set aside as in
        the memctl layout."""
        return scan_files(root, self.tops if folders is None else folders,
                          accept=lambda name: name.endswith(".md") and name not in _NOT_MEMORIES, deep=False)

    def parse(self, text: str, rel: str, mtime_ns: int) -> Memory:
        """A topic file as a Memory, with what it leaves out filled in."""
        mtime = datetime.fromtimestamp(mtime_ns / 1e9, tz=timezone.utc).replace(microsecond=0)
        return parse_topic(text, rel, mtime, self.defaults)
