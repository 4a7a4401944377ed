"""The library API: `MemoryStore`, one method per capability. The CLI, MCP and HTTP are thin clients.

Each method validates its input and raises only `memctl.errors.MemctlError` subclasses. The store
wires the services (services/) to a repository (store/) and a search index (search/); commands
that change memories then keep existing MEMORY.md files current (`[index] auto_refresh`).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, List, TypeVar, cast

from memctl import clock
from memctl.config import Config
from memctl.core.access import Access, access_view, can_read, write_refusal
from memctl.core.byid import EditRequest, ForgetRequest, HistoryRequest, RestoreRequest, ShowRequest
from memctl.core.declare import check_keywords, declared, declared_filters, request_of, unknown_argument
from memctl.core.models import JournalEntry, Memory, id_arg, name_arg
from memctl.core.requests import (
    AddRequest,
    CheckRequest,
    ContextRequest,
    GateRequest,
    ListRequest,
    QueryRequest,
    RecallRequest,
    StatsRequest,
    StructureRequest,
)
from memctl.errors import Forbidden, NoDirectory, NotFound, StoreError, UsageError
from memctl.store.backends import STORE_ENV, database_config, open_repository, resolve_layout
from memctl.store.directory import find_root, init_directory, read_config, read_config_file

if TYPE_CHECKING:  # the services and search import pydantic models, numpy, whoosh: loaded on first use
    from memctl.search.embedders import Embedder
    from memctl.search.fused import ModelSearch
    from memctl.services.checks import CheckReport, CheckService
    from memctl.services.claude_index import ClaudeIndexService
    from memctl.services.compact import CompactService, Similarity
    from memctl.services.context import ContextService
    from memctl.services.dedupe import DedupeReport, DedupeService, OpenConflict
    from memctl.services.edit import EditService
    from memctl.services.grouped import GroupCommit
    from memctl.services.imports import ImportReport, ImportService
    from memctl.services.memory_md import MemoryMdService
    from memctl.services.migrate import MigrationReport, MigrationService
    from memctl.services.query import QueryResult, QueryService
    from memctl.services.recall import RecallResult, RecallService
    from memctl.services.signals import Lexicon
    from memctl.services.structure import StructureReport
    from memctl.services.transcripts import ExtractResult, Message, TranscriptService
    from memctl.services.write import WriteResult, WriteService
    from memctl.store.filters import MemoryFilter
    from memctl.store.kinds import KindFiles
    from memctl.store.repository import SearchIndex

__all__ = ["MemoryStore", "init_directory"]
F = TypeVar("F", bound=Callable[..., Any])


def _commands(cls: type) -> type:
    """Every public method of `cls` is one command of its repository: its reads share one snapshot
    of the folder (a slow machine never makes one recall walk 10,000 files again and again)."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(member) and not getattr(member, "_setting", False):
            setattr(cls, name, _command(member))
    return cls


def _setting(method: F) -> F:
    """A method that only sets how the store works (no read, no write): not a command."""
    cast(Any, method)._setting = True
    return method


def _command(method: F) -> F:
    @functools.wraps(method)
    def wrapper(self: "MemoryStore", *args: Any, **kwargs: Any) -> Any:
        with self.repo.command():
            return method(self, *args, **kwargs)

    return cast(F, wrapper)


@_commands
@check_keywords
class MemoryStore:
    """One memory directory (or a database with no folder: `on_database`): everything memctl can do with it."""

    def __init__(self, root: str | os.PathLike[str] | None, config: Config | None = None,
                 embedder: "Embedder | None" = None, actor: str | None = None) -> None:
        self.root = Path(root) if root is not None else None
        self._config_file: Path | None = None
        if self.root is None:  # a database named by the config as given, else by MEMCTL_STORE
            self.config = config if config is not None and config.store.url else database_config(None, config or Config())
        else:
            config = config or read_config(self.root)
            self.config = config.model_copy(update={"layout": resolve_layout(self.root, config.layout)})
        self.repo = open_repository(self.root, self.config)
        self._embedder = embedder
        self.actor = name_arg(actor, "actor") if actor else None
        self.access = Access.of(self.actor, self.config.members) if self.actor else None
        self._lexicon: "tuple[Any, Lexicon] | None" = None  # (the schemas it was built from, the words)
        self._group: "GroupCommit | None" = None  # a server's: concurrent adds written together

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, *, config: Config | None = None,
             embedder: "Embedder | None" = None, actor: str | None = None) -> "MemoryStore":
        """Open `path`, else MEMCTL_DIR, else the nearest ancestor holding memctl.toml; the actor is
        `actor=`, else MEMCTL_ACTOR, else none (nothing restricted)."""
        actor = actor if actor is not None else (os.environ.get("MEMCTL_ACTOR") or None)
        try:
            root = find_root(path, os.environ.get("MEMCTL_DIR"), Path.cwd())
        except NoDirectory:
            if path or os.environ.get("MEMCTL_DIR") or not os.environ.get(STORE_ENV, "").strip():
                raise
            # MEMCTL_STORE and no folder anywhere: the database alone
            return cls.on_database(config=config, embedder=embedder, actor=actor)
        return cls(root, config, embedder, actor)

    @classmethod
    def on_database(cls, url: str | None = None, config_file: str | os.PathLike[str] | None = None, *,
                    config: Config | None = None, embedder: "Embedder | None" = None,
                    actor: str | None = None) -> "MemoryStore":
        """A store with no folder at all: the PostgreSQL database at `url` (else MEMCTL_STORE, else the
        `[store] url` of `config_file`), with the settings of `config_file` (a memctl.toml anywhere) or
        the defaults (or `config`, given instead of a file). It connects now, so a bad URL or an
        unreachable database is a UsageError here (one line, no password), not a failure at the first
        request. Nothing is read from or written to disk but `config_file`."""
        config_path = Path(config_file).expanduser() if config_file else None
        settings = config if config is not None else read_config_file(config_path) if config_path else Config()
        store = cls(None, database_config(url, settings), embedder, actor)
        store._config_file = config_path
        try:
            from memctl.store.repository import Pingable

            if isinstance(store.repo, Pingable):
                store.repo.ping()
        except StoreError as exc:
            raise UsageError(exc.message, code=exc.code) from None
        return store

    def as_actor(self, actor: str | None) -> "MemoryStore":
        """The same store (shared caches and model) acting for another person: what a server does
        for each authenticated request."""
        view = object.__new__(MemoryStore)
        view.root, view.repo, view.config, view._embedder = self.root, self.repo, self.config, self._embedder
        view._config_file, view._lexicon, view._group = self._config_file, self._lexicon, self._group
        view.actor = name_arg(actor, "actor") if actor else None
        view.access = Access.of(view.actor, self.config.members) if view.actor else None
        view.__dict__["search"] = self.search
        return view

    def _visible(self, memory: Memory) -> bool:
        return can_read(self.access, access_view(memory))

    # -- wiring (each collaborator is built on first use) ---------------------------------------
    @cached_property
    def search(self) -> "SearchIndex":
        """The keyword + vector search over this directory's memories (with a second model's
        vectors when `[embedding] second_model` names one, or "auto" finds the multilingual extra)."""
        from memctl.search.embedders import get_embedder, recall_uses_primary, second_model_name

        primary = self._search_with(self._make_embedder, "vectors")
        settings = self.config.embedding
        second = None if self._embedder is not None else second_model_name(settings.second_model, settings.model)
        if second is None:
            return primary
        from memctl.search.fused import TwoModelSearch

        cache = self._models_dir()
        engine = self._search_with(lambda: get_embedder(second, cache, settings.batch_size), "vectors-second")
        from memctl.core.text import text_language

        # The models are chosen per query, by its language (a mixed store: each query gets the right ones).
        return TwoModelSearch(primary, engine, lambda query: recall_uses_primary(settings.model, second, text_language(query)))

    def _search_with(self, embedder: "Callable[[], Embedder]", vectors: str) -> "ModelSearch":
        """One model's search: the store's own when it has one (a database searches in SQL and keys
        its vectors by the model's identity), else the engine over the folder's caches."""
        from memctl.store.repository import NativeSearch

        if isinstance(self.repo, NativeSearch):
            from memctl.search.native import keyword_spec

            return cast("ModelSearch", self.repo.search_index(embedder, keyword_spec()))
        from memctl.search.engine import Engine

        return Engine(self.repo, embedder, vectors=vectors)

    def _make_embedder(self) -> "Embedder":
        if self._embedder is not None:
            return self._embedder
        from memctl.search.embedders import get_embedder

        settings = self.config.embedding
        return get_embedder(settings.model, self._models_dir(), settings.batch_size)

    def _models_dir(self) -> Path | None:
        """Where downloaded models are kept: the folder's cache; with no folder, fastembed's own."""
        return self.repo.cache / "models" if self.repo.cache is not None else None

    @cached_property
    def _writer(self) -> "WriteService":
        from memctl.services.write import WriteService

        return WriteService(self.repo, self.search, self.config, self.access, self._kinds)

    @cached_property
    def _recaller(self) -> "RecallService":
        from memctl.services.recall import RecallService

        return RecallService(self.repo, self.search, self.config, self.access, lambda: self._checks,
                             lambda: self._kind_words, lambda: self._topic_words)

    @cached_property
    def _editor(self) -> "EditService":
        from memctl.services.edit import EditService

        return EditService(self.repo, self.config, self.access, self._kinds)

    @cached_property
    def _topic_words(self) -> "Lexicon":
        """The words that name everyday topics, as recall matches them (the shipped file's)."""
        from memctl.services.signals import topic_lexicon

        return topic_lexicon(self.repo.cache)

    @property
    def _kind_words(self) -> "Lexicon":
        """The words that name each kind, as recall matches them (read again when the kinds change)."""
        from memctl.services.signals import kind_lexicon
        from memctl.store.kindwords import signature

        key = signature(self.root, self.config.schemas)
        if self._lexicon is None or self._lexicon[0] != key:
            self._lexicon = (key, kind_lexicon(self.repo.cache, self.root, self.config.schemas))
        return self._lexicon[1]

    @cached_property
    def _kinds(self) -> "KindFiles":
        from memctl.store.kinds import KindFiles  # TOML files of kinds and checks: read on first use

        return KindFiles(self.root, self.config, self._config_file)

    @cached_property
    def _checks(self) -> "CheckService":
        from memctl.services.checks import CheckService

        return CheckService(self.repo, self._kinds, self.config, self.access)

    @cached_property
    def _queries(self) -> "QueryService":
        from memctl.services.query import QueryService

        return QueryService(self.repo, self._kinds, self.config, self.access)

    @cached_property
    def _importer(self) -> "ImportService":
        from memctl.services.imports import ImportService

        return ImportService(self._writer)

    @cached_property
    def _migrator(self) -> "MigrationService":
        from memctl.services.migrate import MigrationService

        return MigrationService(self.repo, self._importer, self.access)

    @cached_property
    def _transcripts(self) -> "TranscriptService":
        from memctl.services.transcripts import TranscriptService

        return TranscriptService(self.repo, self.config, self._importer, self.access)

    @cached_property
    def _compactor(self) -> "CompactService":
        from memctl.services.compact import CompactService

        return CompactService(self.repo, self.search, self.config, self.access)

    @cached_property
    def _deduper(self) -> "DedupeService":
        from memctl.services.dedupe import DedupeService

        return DedupeService(self.repo, self.search, self.config, self.access)

    @cached_property
    def _memory_md(self) -> "MemoryMdService | ClaudeIndexService":
        from memctl.store.claude import ClaudeRepository

        if isinstance(self.repo, ClaudeRepository):  # a flat folder has one index, merged with hand edits
            from memctl.services.claude_index import ClaudeIndexService

            return ClaudeIndexService(self.repo, self.repo, self.config)
        from memctl.services.memory_md import MemoryMdService

        return MemoryMdService(self.repo, self.config)

    @cached_property
    def _contexts(self) -> "ContextService":
        from memctl.services.context import ContextService

        return ContextService(self.repo, self.config, self._recaller, self.access, lambda: self._checks)

    def _changed(self) -> list[str]:
        """After a command that wrote: refresh the existing MEMORY.md files of the folders it touched."""
        touched = self.repo.drain_touched()
        if not touched or not self.config.index.auto_refresh:
            return []
        refreshed = self._memory_md.refresh(touched)
        self.repo.drain_touched()  # MEMORY.md is not a memory: nothing more to refresh
        return refreshed

    # -- reading ---------------------------------------------------------------------------
    @declared(ShowRequest)
    def get(self, memory_id: str) -> Memory:
        """A memory by id or unique id prefix (at least 4 characters); one the actor may not see is
        not found."""
        memory = self.repo.get(id_arg(memory_id))
        if not self._visible(memory):
            raise NotFound(f"no memory with id {memory_id!r}")
        return memory

    def by_key(self, key: str, *, user: str | None = None, project: str | None = None) -> Memory | None:
        """The active memory with this `key` that lives in `user`'s folder (their own, not their
        projects') or in `project`'s, the newest if several; None when there is none. A filter on the
        catalog (a folder) or in SQL (PostgreSQL): only the match is loaded."""
        if (user is None) == (project is None):
            raise UsageError("by_key takes a user or a project (one of them)")
        flt = self._scope([user], [project], scopes=("user",) if user else ("project",), fields=(("key", (key,)),))
        found = self.repo.select(flt, clock.now(), "created", True, 1)
        return found[0] if found else None

    def active(self) -> list[Memory]:
        """Active memories that have not expired (those the actor may see)."""
        return self.repo.select(self._scope(), clock.now())

    def is_active(self, memory: Memory) -> bool:
        """True for a memory in force (status active, not in the archive)."""
        return self.repo.is_active(memory)

    @declared(ListRequest)
    def list(self, *, user: str | None = None, project: str | None = None, type: str | None = None,
             status: str | None = "active", tag: str | None = None, session: str | None = None,
             sort: str = "created", limit: int = 0, subtype: str | None = None, offset: int = 0,
             newest_first: bool = False) -> List[Memory]:
        """Memories matching every given filter (core/requests.py: ListRequest; whose memories:
        store/filters.py), sorted (importance: most important first; `newest_first` reverses), from
        `offset`, at most `limit` (0: all); in SQL on PostgreSQL."""
        q = request_of(ListRequest, locals(), "list")
        flt = self._scope([q.user], [q.project], q.session, status=q.status or "all", expired=True,
                          types=(q.type,) if q.type else (), tags=(q.tag,) if q.tag else (),
                          fields=declared_filters(q))
        if q.sort != "importance":
            return self.repo.select(flt, clock.now(), q.sort, q.newest_first, q.limit, q.offset)
        out = self._sorted(self.repo.select(flt, clock.now()), q.sort)
        out = (out[::-1] if q.newest_first else out)[q.offset:]
        return out[:q.limit] if q.limit else out

    def _scope(self, users: Iterable[str | None] = (), projects: Iterable[str | None] = (),
               session: str | None = None, **filters: Any) -> "MemoryFilter":
        """The filter of whose memories a command reads (store/filters.py: one definition for every
        command), seen as the actor may see them."""
        from memctl.store.filters import scope_filter

        return scope_filter(self.config.members, [u for u in users if u], [p for p in projects if p], session,
                            access=self.access, **filters)

    def tree(self, *, user: str | None = None, project: str | None = None) -> dict[str, dict[str, List[Memory]]]:
        """A user's or a project's active memories grouped by type, then subtype ("" for none), oldest first."""
        if bool(user) == bool(project):
            raise UsageError("say whose tree: a user or a project", code="no_owner")
        grouped: dict[str, dict[str, List[Memory]]] = {}
        for memory in self.list(user=user, project=project):
            grouped.setdefault(memory.type, {}).setdefault(memory.subtype or "", []).append(memory)
        return grouped

    def owners(self) -> List[str]:
        """Every scope folder with active memories: `users/<name>` and `projects/<name>`."""
        return self.repo.owners()

    def memory_md(self, *, user: str | None = None, project: str | None = None) -> str:
        """The MEMORY.md of a user or a project as it renders now from the memories (nothing written)."""
        if bool(user) == bool(project):
            raise UsageError("say whose MEMORY.md: a user or a project", code="no_owner")
        owner = f"users/{name_arg(user, 'user')}" if user else f"projects/{name_arg(project or '', 'project')}"
        return self._memory_md.text(owner)

    def _sorted(self, memories: List[Memory], sort: str) -> List[Memory]:
        if sort == "importance":
            scores = self.importance_scores(memories)
            return sorted(memories, key=lambda m: (-scores.get(m.id, 0.0), m.id))
        keys: dict[str, Callable[[Memory], Any]] = {
            "created": lambda m: (m.created, m.id), "updated": lambda m: (m.updated, m.id),
            "type": lambda m: (m.type, m.created, m.id), "id": lambda m: m.id,
            "confidence": lambda m: (-m.confidence, m.id), "user": lambda m: (m.user or "", m.created)}
        return sorted(memories, key=keys[sort])

    def importance_scores(self, memories: Iterable[Memory]) -> dict[str, float]:
        """Importance of each memory in [0, 1] (see README: usage recency, frequency, uniqueness)."""
        from memctl.services.importance import importance_scores

        return importance_scores(self.repo, self.search, self.config, memories)

    @declared(ShowRequest)
    def show(self, memory_id: str) -> dict[str, Any]:
        """One memory as JSON-ready data, with its importance score."""
        memory = self.get(request_of(ShowRequest, locals(), "show").memory_id)
        data = memory.to_public()
        data["importance_score"] = round(self.importance_scores([memory]).get(memory.id, 0.0), 4)
        return data

    @declared(HistoryRequest)
    def history(self, memory_id: str) -> List[JournalEntry]:
        """Every journal entry about this memory, oldest first."""
        memory_id = request_of(HistoryRequest, locals(), "history").memory_id
        try:
            memory_id = self.get(memory_id).id
        except NotFound:
            if self.access is not None:
                raise  # an actor sees the history of memories they may see, nothing else
        return self.repo.history(memory_id)

    @declared(StatsRequest)
    def stats(self, *, user: str | None = None, project: str | None = None) -> dict[str, Any]:
        """Counts by status, type, scope and owner (of the user's and the project's memories, when
        given: whose memories as everywhere, store/filters.py); broken files."""
        from memctl.services.maintenance import stats

        q = request_of(StatsRequest, locals(), "stats")
        return stats(self.repo, self._scope([q.user], [q.project]))

    @declared(RecallRequest)
    def recall(self, query: str, *, users: Sequence[str] = (), projects: Sequence[str] = (), session: str | None = None,
               types: Sequence[str] = (), subtypes: Sequence[str] = (), tags: Sequence[str] = (),
               sources: Sequence[str] = (), since: "datetime | str | None" = None,
               until: "datetime | str | None" = None, status: str = "active", k: int | None = None,
               mode: str | None = None, scopes: Sequence[str] = (), min_relevance: float | None = None,
               record_usage: bool = True) -> "RecallResult":
        """Hybrid recall (core/requests.py: RecallRequest says what each argument means). Hits carry a
        calibrated `relevance`; k and mode default to `[recall]`."""
        return self._recaller.recall(request_of(RecallRequest, locals(), "recall"))

    @declared(ContextRequest)
    def context(self, query: str, *, user: str | None = None, project: str | None = None,
                session: str | None = None, budget: int = 800, format: str = "markdown") -> dict[str, Any]:
        """The block an agent prepends to its prompt: profile + recalled memories within `budget` tokens
        (core/requests.py: ContextRequest)."""
        q = request_of(ContextRequest, locals(), "context")
        return self._contexts.build(q.query, user=q.user, project=q.project, session=q.session, budget=q.budget,
                                    fmt=q.format)

    # -- typed memories ------------------------------------------------------------------------
    @declared(QueryRequest)
    def query(self, op: str, kind: str, *, where: Sequence[str] = (), field: str | None = None,
              user: str | None = None, project: str | None = None, at: str | None = None) -> "QueryResult":
        """An exact answer over typed fields: count, sum, latest, earliest or list of the `kind`
        memories matching every `where` condition (`departs in 2025`, `international = true`);
        `field` is what sum adds and latest/earliest order by; `at` (a day) is what `today` means
        (core/requests.py: QueryRequest)."""
        q = request_of(QueryRequest, locals(), "query")
        return self._queries.query(q.op, q.kind, q.where, q.field, q.user, q.project, _day(q.at))

    @declared(CheckRequest)
    def check(self, *, user: str | None = None, project: str | None = None, at: str | None = None) -> "CheckReport":
        """Run every check (shipped, checks/*.toml, [checks]) on `at` (a day; default today) over the
        memories of the user and the project (whose memories: store/filters.py), else everyone's the
        actor may see: the findings, and the rules that could not be read (`file:line: what`)."""
        q = request_of(CheckRequest, locals(), "check")
        return self._checks.check(_day(q.at), q.user, q.project)

    @declared(StructureRequest)
    def structure(self, *, user: str | None = None, project: str | None = None, dry_run: bool = False,
                  llm: str | None = None, offline: bool = False) -> "StructureReport":
        """Type the untyped memories already stored (of `user` / `project`, else every one the actor may
        change): with the LLM command (`llm`, else MEMCTL_LLM) unless `offline`, else the offline
        recognisers; `dry_run` lists what would be typed."""
        from memctl.services.llm import configured_llm
        from memctl.services.structure import StructureService

        request = request_of(StructureRequest, locals(), "structure")
        command = None if request.offline else (request.llm or configured_llm())
        service = StructureService(self.repo, self.config, self._kinds, self.access)
        try:
            return service.structure(users=[request.user] if request.user else [],
                                     projects=[request.project] if request.project else [],
                                     dry_run=request.dry_run, llm=command)
        finally:
            self._changed()

    def kinds(self) -> dict[str, Any]:
        """The kinds typed memories may have, with their fields (and problems reading them or the
        recognisers that type plain statements)."""
        schemas = self._kinds.schemas
        _ = self._kinds.typing  # read, so a recogniser file that does not parse is reported here too
        return {"kinds": {name: s.model_dump(exclude={"name"}) for name, s in schemas.items()},
                "problems": self._kinds.drain_problems()}

    # -- writing -------------------------------------------------------------------------------
    @declared(AddRequest)
    def add(self, text: str, *, type: str | None = None, subtype: str | None = None, kind: str | None = None,
            fields: dict[str, Any] | None = None, user: str | None = None, project: str | None = None,
            session: str | None = None, confidence: float | None = None, source: str | None = None,
            tags: Sequence[str] = (), key: str | None = None, ttl: str | None = None, expires: str | None = None,
            importance: float | None = None, occurred: str | None = None, state: str | None = None,
            valid_until: str | None = None, part_of: str | None = None, name: str | None = None,
            description: str | None = None, visibility: str | None = None, source_ids: Sequence[str] = (),
            redact: bool | None = None, infer: bool | None = None, llm: str | None = None, rate_session: str | None = None,
            trusted_source: bool = True) -> "WriteResult":
        """Gate, decide and write one memory (Refused when the gate says no); core/requests.py:
        AddRequest says what each argument means. `rate_session`: the conversation an explicit write
        comes from (`extract` skips that turn; automatic writes count against its rate limit).
        `trusted_source` False (a server's client it does not trust) records the write as `ai`,
        whatever `source` it claims (policy/gate.py claimed_source)."""
        request = request_of(AddRequest, locals(), "add")
        try:
            if self._group is not None:
                return self._group.add(self._writer, request.text, _given(request, "text"))
            return self._writer.add(request.text, **_given(request, "text"))
        finally:
            self._changed()

    @declared(GateRequest)
    def gate(self, text: str, *, type: str | None = None, subtype: str | None = None, kind: str | None = None,
             fields: dict[str, Any] | None = None, user: str | None = None, project: str | None = None,
             session: str | None = None, confidence: float | None = None, source: str | None = None,
             tags: Sequence[str] = (), key: str | None = None, ttl: str | None = None, expires: str | None = None,
             importance: float | None = None, occurred: str | None = None, state: str | None = None,
             valid_until: str | None = None, part_of: str | None = None, name: str | None = None,
             description: str | None = None, visibility: str | None = None, source_ids: Sequence[str] = (),
             redact: bool | None = None, infer: bool | None = None, llm: str | None = None, rate_session: str | None = None,
             trusted_source: bool = True, overrides: dict[str, Any] | None = None) -> "WriteResult":
        """What `add` would do, changing nothing; `overrides` may set gate thresholds."""
        request = request_of(GateRequest, locals(), "gate")
        return self._writer.add(request.text, dry_run=True, **_given(request, "text"))

    def add_raw(self, text: str, **fields: Any) -> Memory:
        """Write a memory with no gate and no write decision (trusted data, tests): any of a memory's
        own fields, and ttl; a name that is none of them is a UsageError."""
        for name in fields:
            if name not in Memory.model_fields and name != "ttl":
                raise unknown_argument("add_raw", name, [*Memory.model_fields, "ttl"])
        memory = self._writer.add_raw(text, **fields)
        self._changed()
        return memory

    def import_text(self, text: str, *, user: str | None = None, project: str | None = None,
                    session: str | None = None, source: str = "import", llm: str | None = None,
                    second_fit: bool = False) -> "ImportReport":
        """Import JSON Lines or `[type:subtype] content` lines, each through the gate and the decision
        (with the shipped model's pair fit unless `second_fit`: the second model's pair cosines cost
        about five times the shipped model's embedding per pair, more than a bulk import affords)."""
        from memctl.services.imports import ImportDefaults

        defaults = ImportDefaults(user=user, project=project, session=session, source=source, second_fit=second_fit)
        try:
            return self._importer.import_text(text, defaults, llm)
        finally:
            self._changed()

    def import_from(self, source: str, path: str | None = None, *, text: str | None = None, user: str | None = None,
                    project: str | None = None, session: str | None = None, llm: str | None = None) -> "MigrationReport":
        """Import another store: mem0 (its get_all / export JSON), memoryservice (a SQLite file with the
        structured_memories table, or its rows as JSON), claude (a Claude Code folder), jsonl or folder
        (memctl's own exports, restored whole). Idempotent; source timestamps kept."""
        from memctl.services.imports import ImportDefaults
        from memctl.services.migrate import SOURCES

        if source not in SOURCES:
            raise UsageError(f"unknown source {source!r} (choose from {', '.join(SOURCES)})", code="bad_source")
        user, project, session = (name_arg(v, w) if v else None for v, w in
                                  ((user, "user"), (project, "project"), (session, "session")))
        defaults = ImportDefaults(user=user, project=project, session=session, source="import")
        try:
            return self._migrator.import_from(source, path, text, defaults, llm)
        finally:
            self._changed()

    def export_records(self, *, user: str | None = None, project: str | None = None) -> List[str]:
        """Every memory (active and archived; of the user's and the project's memories, when given) as
        a JSON Lines record that `import --from jsonl` restores."""
        flt = self._scope([user], [project])
        return self._migrator.records(flt.users, flt.projects)

    def export_folder(self, target: str | os.PathLike[str], layout: str = "memctl", *, user: str | None = None,
                      project: str | None = None) -> dict[str, Any]:
        """Every memory as files in a new or empty folder, in the memctl layout (same relative paths and
        bytes as a canonical directory) or Claude Code's (topic files and a MEMORY.md)."""
        from memctl.services.migrate import LAYOUTS

        if layout not in LAYOUTS:
            raise UsageError(f"unknown layout {layout!r} (choose from {', '.join(LAYOUTS)})", code="bad_layout")
        flt = self._scope([user], [project])
        return self._migrator.export_folder(str(target), layout, flt.users, flt.projects)

    @declared(EditRequest)
    def edit(self, memory_id: str, sets: dict[str, str] | None = None, body: str | None = None, *,
             type: str | None = None, subtype: str | None = None, confidence: float | None = None,
             key: str | None = None, tags: Sequence[str] | None = None, importance: float | None = None,
             expires: str | None = None, visibility: str | None = None, agent: bool = False) -> Memory:
        """Change fields (the typed ones, and any other in `sets`: `field=value`, YAML-typed) and/or the
        body; validated before saving and through the gate (a person's edit; `agent`: an agent's
        correction, memory_update, whose new text is also a claim at the memory's confidence).
        Refused (exit 3) as the gate words it (core/byid.py: EditRequest)."""
        q = request_of(EditRequest, locals(), "edit")
        memory = self._editor.edit(q.memory_id, q.changes(), q.body, q.agent)
        self._changed()
        return memory

    @declared(ForgetRequest)
    def forget(self, memory_id: str, *, reason: str | None = None, with_parts: bool = False) -> Memory:
        """Archive a memory with status forgotten (`with_parts`: its active parts too); `restore`
        brings it back."""
        return self.forget_all(memory_id, reason=reason, with_parts=with_parts)[0]

    @declared(ForgetRequest)
    def forget_all(self, memory_id: str, *, reason: str | None = None, with_parts: bool = False) -> List[Memory]:
        """Forget a memory and, `with_parts`, the active memories that are part of it (a trip's
        bookings): every memory forgotten, the one named first."""
        q = request_of(ForgetRequest, locals(), "forget")
        try:
            return self._editor.forget(q.memory_id, q.reason, q.with_parts)
        finally:
            self._changed()

    @declared(RestoreRequest)
    def restore(self, memory_id: str, *, with_parts: bool = False) -> Memory:
        """Bring an archived memory back to its active folder, as it was before archiving."""
        return self.restore_all(memory_id, with_parts=with_parts)[0]

    @declared(RestoreRequest)
    def restore_all(self, memory_id: str, *, with_parts: bool = False) -> List[Memory]:
        """Restore a memory and, `with_parts`, its forgotten parts: every memory restored, the one
        named first."""
        q = request_of(RestoreRequest, locals(), "restore")
        try:
            return self._editor.restore(q.memory_id, q.with_parts)
        finally:
            self._changed()

    def parts(self, memory_id: str) -> List[Memory]:
        """The memories that are part of this one (`part_of` it), active or archived."""
        return self._editor.parts(id_arg(memory_id))

    # -- transcripts ---------------------------------------------------------------------------
    def log(self, user: str, session: str, content: str, role: str = "user", keep_secrets: bool = False) -> "Message":
        """Append one message to a session's transcript, secrets masked unless `keep_secrets`."""
        return self._transcripts.log(user, session, content, role, keep_secrets)

    def transcript(self, user: str, session: str) -> "List[Message]":
        """The messages of a session's transcript, oldest first (none when it has none yet)."""
        return self._transcripts.messages(user, session)

    def extract(self, user: str, session: str, llm: str, *, every: int = 1,
                transcript: str | None = None) -> "ExtractResult":
        """Turn the session's messages not yet extracted into memories through an LLM command
        (`transcript`: JSON Lines messages to read instead of the session's stored transcript)."""
        from memctl.services.transcripts import parse_messages

        messages = parse_messages(transcript, session, "transcript") if transcript is not None else None
        try:
            return self._transcripts.extract(user, session, llm, every=every, messages=messages)
        finally:
            self._changed()

    # -- lifecycle -------------------------------------------------------------------------------
    def compact(self, *, user: str | None = None, project: str | None = None, dry_run: bool = False,
                llm: str | None = None, similarity: "Similarity | None" = None) -> dict[str, Any]:
        """Expire, supersede by key, promote, consolidate, archive unimportant memories (resumable);
        `similarity`: the cosine of each pair of ids to consolidate by (default: from the vectors)."""
        user, project = (name_arg(v, w) if v else None for v, w in ((user, "user"), (project, "project")))
        try:
            return self._compactor.compact(user=user, project=project, dry_run=dry_run, llm=llm, similarity=similarity)
        finally:
            self._changed()

    def undo_compaction(self) -> dict[str, Any]:
        """Put back every memory the last compaction touched, byte for byte."""
        try:
            return self._compactor.undo_last()
        finally:
            self._changed()

    def dedupe(self, *, user: str | None = None, project: str | None = None, threshold: float | None = None,
               dry_run: bool = False, resolve: str | None = None, llm: str | None = None) -> "DedupeReport":
        """Merge repeats already stored; list conflicts (superseded only with resolve="newest" or llm)."""
        user, project = (name_arg(v, w) if v else None for v, w in ((user, "user"), (project, "project")))
        try:
            return self._deduper.dedupe(user=user, project=project, threshold=threshold, dry_run=dry_run,
                                        resolve=resolve, llm=llm)
        finally:
            self._changed()

    def conflicts(self, user: str | None = None, project: str | None = None) -> "List[OpenConflict]":
        """Open possibly-conflicting pairs of active memories, newest first."""
        return self._deduper.open_conflicts(user, project)

    # -- MEMORY.md and maintenance ---------------------------------------------------------------
    def write_memory_md(self, users: Iterable[str] = (), projects: Iterable[str] = (),
                        all: bool = False) -> List[dict[str, Any]]:
        """Regenerate MEMORY.md for users, projects, or every scope folder (`all`; with an actor, every
        folder the actor may write)."""
        chosen_users, chosen_projects, everything = [*users], [*projects], all
        if self.access is not None:
            self._may_write_indexes(chosen_users, chosen_projects)
            if everything:
                owners = [o for o in self.repo.owners() if self._may_write_owner(o)]
                chosen_users += [o.split("/", 1)[1] for o in owners if o.startswith("users/")]
                chosen_projects += [o.split("/", 1)[1] for o in owners if o.startswith("projects/")]
                if not (chosen_users or chosen_projects):
                    return []
                everything = False
        return self._memory_md.render(chosen_users, chosen_projects, everything)

    def _may_write_owner(self, owner: str) -> bool:
        kind, name = owner.split("/", 1)
        record = {"scope": "user", "user": name} if kind == "users" else {"scope": "project", "project": name}
        return write_refusal(self.access, "create", record) is None

    def _may_write_indexes(self, users: List[str], projects: List[str]) -> None:
        for owner in [f"users/{u}" for u in users] + [f"projects/{p}" for p in projects]:
            if not self._may_write_owner(owner):
                raise Forbidden(f"{self.actor} may not write {owner}/MEMORY.md")

    def reindex(self, vectors: bool = True, progress: Callable[[str, int], None] | None = None,
                full: bool = False) -> dict[str, Any]:
        """Rebuild every cache (catalog, keyword index, vectors) from the memories; a second model's
        vectors are filled lazily (recall fuses it once they cover every memory) unless `full`."""
        from memctl.services.maintenance import reindex

        return reindex(self.repo, self.search, vectors, progress, full)

    def doctor(self, fix: bool = False) -> dict[str, Any]:
        """Check the stored memories; with fix, repair what needs no person: leftovers of interrupted
        writes, an interrupted compaction (finished), temp files."""
        from memctl.services.maintenance import doctor

        repaired: list[str] = []
        if fix:
            with self.repo.locked():  # entering the lock repairs leftovers of interrupted writes
                repaired = list(self.repo.repaired)
                resumed = self._compactor.resume()
                repaired += [f"finished compaction {resumed}"] if resumed else []
            self._changed()
        report = doctor(self.repo)
        report["problems"] += self._memory_md.problems()
        report["removed"] = repaired
        return report

    def get_setting(self, key: str) -> Any:
        """The effective value of one setting (`section.name`, e.g. `memory.preset`)."""
        from memctl.store.configfile import get_setting

        return get_setting(self.config, key)

    def set_setting(self, key: str, value: str) -> Any:
        """Change one setting in memctl.toml (value as TOML, else a word), keeping the file's comments;
        validated before it is written. Returns the value stored; it applies to stores opened later."""
        from memctl.store.configfile import write_setting

        if self.root is None:
            raise UsageError("this store has no folder, so no memctl.toml to change", code="no_folder")
        _, stored = write_setting(self.root, self.config, key, value)
        return stored

    def warm_up(self) -> None:
        """Load the model, bring the caches up to date and ready the write path (servers do this before
        serving); a folder store then follows changes on disk by the kernel's notices instead of stat scans."""
        from memctl.store.repository import Watchable

        if isinstance(self.repo, Watchable):
            self.repo.watch()
        self.search.warm_up()
        self._writer.warm_up()

    def flush(self) -> None:
        """Write the caches a warm store saves only now and then (servers do this as they stop)."""
        from memctl.store.repository import Flushable

        for part in (self.repo, self.search):
            if isinstance(part, Flushable):
                with contextlib.suppress(OSError):  # caches: the next process rebuilds what is missing
                    part.flush()

    @_setting
    def group_adds(self, lock: Any) -> None:
        """Write the adds of threads that take turns on `lock` (a server's requests) in groups: the
        adds arriving within a few milliseconds are embedded together and written under one lock
        hold, each decided as it would be alone (services/grouped.py). The caller of `add` holds `lock`."""
        from memctl.services.grouped import GroupCommit

        self._group = GroupCommit(lock)

    def drain_warnings(self) -> List[str]:
        """Warnings gathered while reading (broken files skipped...) since the last call."""
        return self.repo.warnings()


def _day(value: str | None) -> "date | None":
    """A day given as `2026-01-20` (or a full ISO time); UsageError otherwise."""
    from memctl import clock

    return clock.parse_timestamp(value).date() if value else None


def _given(request: Any, *skip: str) -> dict[str, Any]:
    """A request's arguments the caller gave (not None, not an empty list): the rest take the
    service's defaults."""
    return {k: v for k, v in request.model_dump(exclude=set(skip)).items() if v is not None and v != []}


def git_setup(root: str | os.PathLike[str], required: bool = True) -> dict[str, Any] | None:
    """Install memctl's git merge driver for the memory folder `root` (`memctl git setup`); when
    not `required`, None for a folder in no git repository (what `init` does)."""
    from memctl.store.git import repo_top
    from memctl.store.gitsetup import setup_git

    folder = Path(root)
    if not required and repo_top(folder) is None:
        return None
    return setup_git(folder, MemoryStore(folder).config.layout.kind)


def git_merge_file(base: str, ours: str, theirs: str, path: str) -> dict[str, Any]:
    """The merge driver (`memctl git merge-file %O %A %B %P`): merge the three versions git wrote,
    the result over `ours`, their clashing side as a second memory beside `path`. `clean` is False
    only when a version is unreadable or too big (git then reports the conflict itself)."""
    from memctl.services.gitmerge import MAX_BYTES, merge_file
    from memctl.store.git import read_version, write_beside, write_result

    texts = [read_version(p, MAX_BYTES) for p in (base, ours, theirs)]  # git's own temp copies
    if any(t is None for t in texts):
        return {"clean": False, "path": path, "conflicts": ["unreadable"], "copy": None}
    merged = merge_file(texts[0] or "", texts[1] or "", texts[2] or "", path)
    copy = write_beside(path, *merged.copy) if merged.copy else None
    write_result(ours, merged.text)
    return {"clean": True, "path": path, "conflicts": list(merged.conflicts), "copy": copy}
