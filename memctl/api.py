"""The library API: open a memory directory and manage its memories. The CLI is a thin client."""

from __future__ import annotations

import os
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from pydantic import ValidationError

from memctl import clock
from memctl.store.catalog import Snapshot, folders_unchanged, load_snapshot
from memctl.config import CONFIG_NAME, DEFAULT_CONFIG_TOML, Config, load_config
from memctl.errors import InvalidMemory, NotFound, UsageError
from memctl.core.models import JournalEntry, Memory
from memctl.store.files import (ACTIVE_DIRS, ARCHIVE_DIR, CACHE_DIR, TEMPLATE_NAME, Directory, check_id, content_hash,
                            find_root, write_atomic)

IMMUTABLE_FIELDS = {"id", "created", "scope", "user", "project", "session", "path"}
ARCHIVE_FIELDS = ("archived_reason", "archived_at", "superseded_by", "merged_into")
_PENDING_WARNINGS: dict[str, None] = {}
RESCAN_SECONDS = 1.0  # a long-running process re-stats every file at least this often


def drain_warnings() -> list[str]:
    """Warnings gathered since the last call (broken files...), for the CLI to print on stderr."""
    out = list(_PENDING_WARNINGS)
    _PENDING_WARNINGS.clear()
    return out


def _package_template(name: str = TEMPLATE_NAME) -> str:
    from importlib.resources import files

    return files("memctl").joinpath("data", name).read_text(encoding="utf-8")


def init_directory(path: str | os.PathLike) -> list[str]:
    """Create a memory directory (config, MEMORY.md template, extraction prompt, .gitignore, folders);
    idempotent, never overwrites a file. Returns what it created."""
    path = Path(path)
    created: list[str] = []
    path.mkdir(parents=True, exist_ok=True)
    for folder in (*ACTIVE_DIRS, ARCHIVE_DIR, "transcripts"):
        if not (path / folder).is_dir():
            (path / folder).mkdir()
            created.append(folder + "/")
    files = {CONFIG_NAME: DEFAULT_CONFIG_TOML, TEMPLATE_NAME: _package_template(),
             "extract_prompt.md": _package_template("extract_prompt.md"),
             ".gitignore": f"# memctl caches: rebuildable, never commit them\n{CACHE_DIR}/\n"}
    for name, text in files.items():
        if not (path / name).exists():
            write_atomic(path / name, text)
            created.append(name)
    return created


class MemoryStore:
    """One memory directory: everyday operations over its Markdown files."""

    def __init__(self, root: Path, config: Config | None = None, embedder: Any = None) -> None:
        self.root = Path(root)
        self.dir = Directory(self.root)
        self.config = config or load_config(self.root)
        self._embedder = embedder
        self._snapshot: Snapshot | None = None
        self._stale = True
        self._scanned_at = 0.0
        self.warnings: list[str] = []

    @classmethod
    def open(cls, path: str | os.PathLike | None = None, **kwargs: Any) -> "MemoryStore":
        """Open `path`, else MEMCTL_DIR, else the nearest ancestor holding memctl.toml."""
        return cls(find_root(path, os.environ.get("MEMCTL_DIR"), Path.cwd()), **kwargs)

    # -- caches --------------------------------------------------------------
    def engine(self):  # -> memctl.search.engine.Engine (imported lazily: whoosh and numpy are heavy)
        """The keyword and vector caches of this directory."""
        if getattr(self, "_engine", None) is None:
            from memctl.search.engine import Engine

            self._engine = Engine(self.root, self.config.embedding.model, self._embedder)
        return self._engine

    def usage(self):  # -> memctl.store.usage.UsageLog
        from memctl.store.usage import UsageLog

        return UsageLog(self.dir.cache)

    def recall(self, query: str, **options: Any):  # -> memctl.services.recall.RecallResult
        """Hybrid recall; see memctl.services.recall.RecallQuery for the options."""
        from memctl.services.recall import RecallQuery, recall

        return recall(self, RecallQuery(query=query, **options))

    # -- reading -----------------------------------------------------------
    def snapshot(self, refresh: bool = False) -> Snapshot:
        """The directory as it is now.

        A full stat scan (re-parsing only changed files) runs when asked, after this store wrote,
        when any folder's mtime moved (files added, removed, renamed or atomically saved), or when
        the last scan is older than RESCAN_SECONDS (in-place edits in a long-running process).
        """
        snap = self._snapshot
        if (refresh or snap is None or self._stale or time.monotonic() - self._scanned_at > RESCAN_SECONDS
                or not folders_unchanged(self.dir, snap.folders)):
            self._scanned_at = time.monotonic()
            self._snapshot = load_snapshot(self.dir, previous=snap)
            self._stale = False
            self.warnings = [f"skipped broken file {msg}" for _, msg in self._snapshot.broken]
            self.warnings += [f"duplicate id in {b} (also in {a}); skipped" for a, b in self._snapshot.duplicates]
            _PENDING_WARNINGS.update(dict.fromkeys(self.warnings))
        return self._snapshot

    def is_active(self, memory: Memory) -> bool:
        """Active means: in an active folder and status active."""
        return memory.status == "active" and not (memory.path or "").startswith(ARCHIVE_DIR + "/")

    def active(self, at: datetime | None = None) -> list[Memory]:
        """Active memories that have not expired."""
        at = at or clock.now()
        return [m for m in self.snapshot().memories if self.is_active(m) and not m.is_expired(at)]

    def get(self, memory_id: str) -> Memory:
        """A memory by id or unique id prefix (at least 4 characters)."""
        check_id(memory_id)
        found = [m for m in self.snapshot().memories if m.id.startswith(memory_id)]
        if not found:
            raise NotFound(f"no memory with id {memory_id!r}")
        if len(found) > 1:
            raise UsageError(f"id prefix {memory_id!r} matches {len(found)} memories; give more characters",
                             code="ambiguous_id")
        return found[0]

    def list(self, *, user: str | None = None, project: str | None = None, type: str | None = None,
             status: str | None = "active", tag: str | None = None, session: str | None = None,
             sort: str = "created") -> list[Memory]:
        """Memories matching every given filter, sorted (created, updated, type, confidence, importance, id)."""
        out = [m for m in self.snapshot().memories if _matches(m, user, project, type, tag, session)]
        if status and status != "all":
            out = [m for m in out if m.status == status and (status != "active" or self.is_active(m))]
        return self.sort(out, sort)

    def sort(self, memories: list[Memory], sort: str) -> list[Memory]:
        """Sort for listing; importance sorts most important first."""
        if sort == "importance":
            scores = self.importance_scores(memories)
            return sorted(memories, key=lambda m: (-scores.get(m.id, 0.0), m.id))
        keys = {"created": lambda m: (m.created, m.id), "updated": lambda m: (m.updated, m.id),
                "type": lambda m: (m.type, m.created, m.id), "id": lambda m: m.id,
                "confidence": lambda m: (-m.confidence, m.id), "user": lambda m: (m.user or "", m.created)}
        if sort not in keys:
            raise UsageError(f"unknown sort {sort!r} (choose from {', '.join([*keys, 'importance'])})",
                             code="bad_sort")
        return sorted(memories, key=keys[sort])

    def importance_scores(self, memories: Iterable[Memory]) -> dict[str, float]:
        """Importance of each memory (see memctl.policy.importance)."""
        from memctl.services.compact import importance_scores

        return importance_scores(self, list(memories))

    def history(self, memory_id: str) -> list[JournalEntry]:
        """Every journal entry about this memory, oldest first."""
        check_id(memory_id)
        try:
            memory_id = self.get(memory_id).id
        except NotFound:
            pass
        return [e for e in self.dir.read_journal()
                if e.id == memory_id or memory_id in {str(v) for v in e.detail.values()}]

    def stats(self) -> dict[str, Any]:
        """Counts by status, type, scope, owner; broken files; cache sizes."""
        snap = self.snapshot()
        active = [m for m in snap.memories if self.is_active(m)]
        archived = [m for m in snap.memories if not self.is_active(m)]
        now = clock.now()
        return {
            "root": str(self.root), "total": len(snap.memories), "active": len(active),
            "archived": len(archived), "expired": sum(m.is_expired(now) for m in active),
            "broken": len(snap.broken),
            "by_type": dict(sorted(Counter(m.type for m in active).items())),
            "by_scope": dict(sorted(Counter(m.scope for m in active).items())),
            "by_owner": dict(sorted(Counter(m.owner for m in active).items())),
            "by_status": dict(sorted(Counter(m.status for m in snap.memories).items())),
        }

    # -- writing -------------------------------------------------------------
    def check_type(self, type_: str) -> str:
        """A type must be one of the configured types."""
        if type_ not in self.config.types:
            raise InvalidMemory(f"unknown type {type_!r} (configured: {', '.join(self.config.types)})",
                                code="unknown_type")
        return type_

    def build_memory(self, text: str, *, type: str, user: str | None = None, project: str | None = None,
                     session: str | None = None, ttl: str | None = None, expires: str | None = None,
                     **fields: Any) -> Memory:
        """Validate caller input into a new Memory (not yet written)."""
        if not text or not text.strip():
            raise InvalidMemory("empty content: nothing to remember", code="empty_content")
        if not (user or project):
            raise UsageError("say whose memory this is: --user or --project", code="no_owner")
        self.check_type(type)
        now = clock.now()
        scope = "session" if session else "project" if project else "user"
        when = now + clock.parse_duration(ttl) if ttl else clock.parse_timestamp(expires) if expires else None
        fields = {k: v for k, v in fields.items() if v is not None}
        fields.setdefault("created", now)
        fields.setdefault("updated", fields["created"])
        taken = {m.id for m in self.snapshot().memories}
        try:
            return Memory(id=self.dir.new_id(taken), type=type, scope=scope, user=user, project=project,
                          session=session, expires=when, body=text, **fields)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "memory"
            raise InvalidMemory(f"{where}: {str(err['msg']).removeprefix('Value error, ')}") from None

    def write_new(self, memory: Memory, op: str = "add", **detail: Any) -> Memory:
        """Write a new memory file and journal it (caller holds the lock)."""
        path = self.dir.new_path(memory)
        after = self.dir.save(memory, path)
        self.dir.journal(op, memory.id, None, after, path_after=memory.path, **detail)
        self._stale = True
        return memory

    def add_raw(self, text: str, **kwargs: Any) -> Memory:
        """Write a memory with no gate and no write decision (imports of trusted data, tests)."""
        with self.dir.lock():
            self.snapshot(refresh=True)
            return self.write_new(self.build_memory(text, **kwargs))

    def rewrite(self, memory: Memory, op: str, **detail: Any) -> Memory:
        """Replace an existing file in place (never renamed), journaling before/after hashes."""
        path = self.root / memory.path
        before = content_hash(path.read_bytes()) if path.exists() else None
        after = self.dir.save(memory, path)
        detail.setdefault("path_before", memory.path)
        self.dir.journal(op, memory.id, before, after, path_after=memory.path, **detail)
        self._stale = True
        return memory

    def after_change(self, touched: Iterable[str] | None = None) -> list[str]:
        """Keep existing MEMORY.md files of the touched scope folders current (`index.auto_refresh`)."""
        if not self.config.index.auto_refresh:
            return []
        from memctl.services.memory_md import refresh_indexes

        return refresh_indexes(self, touched)

    def add(self, text: str, **fields: Any):  # -> memctl.services.write.WriteResult
        """Gate, decide and write one memory (see memctl.services.write.add_memory)."""
        from memctl.services.write import add_memory

        return add_memory(self, text, **fields)

    def edit(self, memory_id: str, sets: dict[str, str] | None = None, body: str | None = None) -> Memory:
        """Change fields (`field=value`, YAML-typed) and/or the body; validated before saving."""
        with self.dir.lock():
            self.snapshot(refresh=True)
            memory = self.get(memory_id)
            updated = apply_edits(memory, sets or {}, body, self)
            from memctl.core.fileformat import serialise_memory

            if serialise_memory(updated) == serialise_memory(memory):
                return memory
            updated.updated = clock.now()
            result = self.rewrite(updated, "edit", fields=",".join(sorted((sets or {}).keys())) or None,
                                  previous_body=memory.body if updated.body != memory.body else None)
        self.after_change([result.owner])
        return result

    def archive(self, memory: Memory, status: str, reason: str | None, op: str, **links: Any) -> Memory:
        """Move an active memory to archive/ (rename first: it exists exactly once), then mark why."""
        if not self.is_active(memory):
            raise UsageError(f"memory {memory.id} is already archived ({memory.status})", code="not_active")
        source = self.root / memory.path
        before = content_hash(source.read_bytes())
        target = self.dir.archive_path(source)
        self.dir.move(source, target)
        data = memory.model_dump(exclude={"path"})
        data.update(status=status, archived_reason=reason, archived_at=clock.now(), **links)
        archived = Memory(**data)
        after = self.dir.save(archived, target)
        self.dir.journal(op, memory.id, before, after, path_before=memory.path, path_after=archived.path,
                         reason=reason, **links)
        self._stale = True
        return archived

    def forget(self, memory_id: str, reason: str | None = None) -> Memory:
        """Archive a memory with status forgotten; `restore` brings it back."""
        with self.dir.lock():
            self.snapshot(refresh=True)
            result = self.archive(self.get(memory_id), "forgotten", reason, "forget")
        self.after_change([result.owner])
        return result

    def restore(self, memory_id: str) -> Memory:
        """Bring an archived memory back to its active folder, as it was before archiving."""
        with self.dir.lock():
            self.snapshot(refresh=True)
            memory = self.get(memory_id)
            if not (memory.path or "").startswith(ARCHIVE_DIR + "/"):
                raise UsageError(f"memory {memory.id} is not archived", code="not_archived")
            result = self.unarchive(memory)
        self.after_change([result.owner])
        return result

    def unarchive(self, memory: Memory, op: str = "restore") -> Memory:
        """Move an archived memory back and drop the archive fields (caller holds the lock)."""
        source = self.root / memory.path
        before = content_hash(source.read_bytes())
        target = self.dir.active_path(source)
        if target.exists():
            target = self.dir.new_path(memory)
        self.dir.move(source, target)
        data = memory.model_dump(exclude={"path", *ARCHIVE_FIELDS})
        data["status"] = "active"
        restored = Memory(**data)
        after = self.dir.save(restored, target)
        self.dir.journal(op, memory.id, before, after, path_before=memory.path, path_after=restored.path)
        self._stale = True
        return restored


def _matches(m: Memory, user: str | None, project: str | None, type_: str | None, tag: str | None,
             session: str | None) -> bool:
    return ((user is None or m.user == user) and (project is None or m.project == project)
            and (type_ is None or m.type == type_) and (tag is None or tag in m.tags)
            and (session is None or m.session == session))


def apply_edits(memory: Memory, sets: dict[str, str], body: str | None, store: MemoryStore) -> Memory:
    """A copy of `memory` with edits applied and fully validated (round-tripped through the file format)."""
    import yaml

    from memctl.core.fileformat import _Loader, parse_memory

    front = memory.frontmatter()
    for field, raw in sets.items():
        if field in IMMUTABLE_FIELDS:
            raise UsageError(f"field {field!r} cannot be edited", code="immutable_field")
        if not field or not field.replace("_", "").replace("-", "").replace(".", "").isalnum():
            raise UsageError(f"invalid field name {field!r}", code="bad_field")
        try:
            value = yaml.load(raw, Loader=_Loader) if raw != "" else None
        except yaml.YAMLError:
            raise UsageError(f"cannot read the value of {field!r} as YAML", code="bad_value") from None
        if field in ("body", "content"):
            body = str(value)
        elif value is None:
            front.pop(field, None)
        else:
            front[field] = value
    if body is not None and not body.strip():
        raise InvalidMemory("empty content: the body cannot be empty", code="empty_content")
    new = parse_memory(_compose(front, body if body is not None else memory.body), memory.path)
    store.check_type(new.type)
    new.path = memory.path
    return new


def _compose(front: dict[str, Any], body: str) -> str:
    import yaml

    from memctl.core.fileformat import _Dumper

    return "---\n" + yaml.dump(front, Dumper=_Dumper, sort_keys=False, allow_unicode=True) + "---\n" + body + "\n"
