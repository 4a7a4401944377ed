"""Claude Code's memory folder as a memctl directory: flat topic files and one MEMORY.md, adopted in place.

memctl writes `memctl.toml` and caches under `.memctl/`, never rewrites a file it only reads, and
edits a topic file by changing only the keys that changed (core/claudefile.py). `ClaudeRepository`
is the `FileRepository` of the flat layout (store/claudelayout.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memctl.core import jsonsafe
from memctl.core.claudefile import (
    TopicDefaults,
    derive_description,
    derive_name,
    derived_id,
    edit_topic_text,
    new_topic_text,
)
from memctl.core.models import Memory
from memctl.errors import StoreError
from memctl.store.claudelayout import ClaudeLayout
from memctl.store.filerepo import FileRepository
from memctl.store.files import own_folder, read_text_nofollow, write_atomic

INDEX_RECORD = "claude-index.json"  # the MEMORY.md lines memctl wrote itself (under .memctl/)
MAX_RECORD_BYTES = 1024 * 1024  # MEMORY.md is within 25 KB; the record of its lines is read bounded


def with_claude_names(memory: Memory) -> Memory:
    """A memory with the `name` and `description` Claude Code needs, derived from its text if missing."""
    if not memory.name:
        memory.name = derive_name(memory.body)
    if not memory.description:
        memory.description = derive_description(memory.body)
    return memory


class ClaudeRepository(FileRepository):
    """A Claude Code memory folder: the FileRepository of the flat layout."""

    def __init__(self, root: Path, defaults: TopicDefaults) -> None:
        layout = ClaudeLayout(Path(root), defaults)
        super().__init__(root, layout=layout, scan=layout)
        self.defaults = defaults

    def render(self, memory: Memory, path: Path) -> str:
        """A new file in Claude's form; an existing one edited in place (only changed keys touched)."""
        rel = self.layout.relative(path)
        if not path.exists():
            return new_topic_text(memory, rel, self.defaults)
        text = path.read_text(encoding="utf-8")
        as_read = self.scan.parse(text, rel, path.stat().st_mtime_ns)
        return edit_topic_text(text, as_read, memory, rel)

    def create(self, memory: Memory, op: str = "add", *, actor: str | None = None, **detail: Any) -> Memory:
        """A new topic file `<type>_<slug>.md` with `name`, `description`, `type` first."""
        return super().create(with_claude_names(memory), op, actor=actor, **detail)

    def put(self, memory: Memory, op: str = "import", *, actor: str | None = None, **detail: Any) -> Memory:
        """A memory brought in whole, as a topic file (named, described) under its own name if free."""
        return super().put(with_claude_names(memory), op, actor=actor, **detail)

    def implied_id(self, rel: str) -> str | None:
        """A topic file that names no id has the one its file name gives."""
        return derived_id(rel)

    def problems(self, fix: bool = False) -> tuple[list[dict[str, str]], list[str]]:
        """As for any directory, less `misplaced`: a flat folder holds every owner's memories."""
        problems, removed = super().problems(fix)
        return [p for p in problems if p["kind"] != "misplaced"], removed

    # -- what memctl wrote into MEMORY.md ----------------------------------------------------------
    def index_lines(self) -> set[str]:
        """The MEMORY.md lines memctl wrote last time (every other line is someone else's)."""
        try:
            data = jsonsafe.loads(read_text_nofollow(own_folder(self.state, create=False) / INDEX_RECORD, MAX_RECORD_BYTES))
        except (OSError, ValueError, StoreError):
            return set()
        return {line for line in data.get("lines", []) if isinstance(line, str)} if isinstance(data, dict) else set()

    def write_index(self, text: str, generated: list[str]) -> None:
        """Write MEMORY.md, then record which of its lines memctl generated."""
        write_atomic(self.layout.index_path(""), text)
        write_atomic(own_folder(self.state) / INDEX_RECORD, json.dumps({"lines": generated}, ensure_ascii=False) + "\n",
                     durable=False)

    def missing(self, targets: Iterable[str]) -> list[str]:
        """The folder-relative paths among `targets` no file answers to (one outside the folder, or
        through `..`, counts as missing: Claude Code reads only the folder)."""
        root = self.root.resolve()
        out = []
        for target in targets:
            path = (root / target).resolve()
            if ".." in Path(target).parts or not path.is_relative_to(root) or not path.is_file():
                out.append(target)
        return out
