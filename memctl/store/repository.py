"""The storage seam: what every backend offers the services above it.

Services reach stored memories only through a `Repository`, so a second backend (PostgreSQL) or a
second folder layout (Claude Code's) is a new implementation of this protocol, never an `if` in a
service. `FileRepository` (store/filerepo.py) is the Markdown-directory implementation,
`PostgresRepository` (store/postgres/repo.py) the database one.

Write methods assume the caller holds `locked()`: the decision and the write happen under one lock
(a flock for files, a transaction with an advisory lock for a database).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Collection, Mapping, Protocol, Sequence, runtime_checkable

from memctl.core.models import JournalEntry, Memory
from memctl.store.filters import MemoryFilter


class RecordStore(Protocol):
    """Compaction records: a plan, what is done, the originals (see services/compact.py)."""

    def save(self, record: dict[str, Any]) -> None:
        """Store a record (replacing the one with its plan_id)."""
        ...

    def last(self) -> dict[str, Any] | None:
        """The newest record, or None."""
        ...


class Transcripts(Protocol):
    """Conversation transcripts and their extraction watermarks (see store/transcripts.py)."""

    def raw(self, user: str, session: str) -> bytes | None: ...

    def count(self, user: str, session: str) -> int: ...

    def append(self, user: str, session: str, message: dict[str, Any]) -> None: ...

    def read_state(self, user: str, session: str) -> dict[str, Any]: ...

    def write_state(self, user: str, session: str, state: dict[str, Any]) -> None: ...


class Memories(Protocol):
    """Reading stored memories: by id, by filter (the backend applies it), and where they live."""

    @property
    def root(self) -> Path | None:
        """The memory directory (for a database: the folder holding memctl.toml, or None when a
        server runs on the database with no folder at all)."""
        ...

    @property
    def cache(self) -> Path | None:
        """This user's folder for caches derived from the memories (rebuildable, outside the memory
        folder: store/cachedir.py); None with no folder."""
        ...

    @property
    def kind(self) -> str:
        """The backend: "files", "postgres"."""
        ...

    def all_memories(self) -> list[Memory]:
        """Every readable memory, active and archived."""
        ...

    def active(self, at: datetime | None = None, owner: str | None = None) -> list[Memory]:
        """Active memories that have not expired at `at` (default now); only one scope folder's
        (`users/alice`) when `owner` is given (a database reads just those)."""
        ...

    def is_active(self, memory: Memory) -> bool:
        """True for a memory that is in force (not archived)."""
        ...

    def get(self, memory_id: str) -> Memory:
        """A memory by id or unique id prefix; NotFound / UsageError(ambiguous_id) otherwise."""
        ...

    def candidates(self, flt: MemoryFilter, now: datetime) -> Mapping[str, str]:
        """id -> handle of the memories a recall with this filter may see (a database answers with
        its filter, which its SearchIndex runs in SQL, rather than every id)."""
        ...

    def select(self, flt: MemoryFilter, now: datetime, order: str | None = None, newest_first: bool = False,
               limit: int = 0, offset: int = 0) -> list[Memory]:
        """The memories passing the filter (its scope and filters applied by the backend: SQL for a
        database), in `order` (filters.ORDERS; None: as stored), reversed when `newest_first`, from
        `offset`, at most `limit` (0: all)."""
        ...

    def load(self, handle: str) -> Memory:
        """The memory behind a handle returned by `candidates`."""
        ...

    def wholes(self) -> frozenset[str]:
        """Ids that some memory names as its `part_of` (the inverse link, computed, never stored)."""
        ...

    def owners(self) -> list[str]:
        """Every scope folder with active memories (`users/alice`, `projects/shop`)."""
        ...

    def command(self) -> AbstractContextManager[None]:
        """One command's reads (re-entrant): they see one consistent state of the store (a folder is
        checked at the command's first read, and again only after this process wrote)."""
        ...


class NewIds(Protocol):
    """Ids for new memories (building one names it before it is written)."""

    def new_id(self) -> str:
        """A fresh id no stored memory uses."""
        ...


class Locks(Protocol):
    """The write lock, and locks of their own for long jobs."""

    def locked(self, timeout: float = 30.0) -> AbstractContextManager[None]:
        """The write lock; on entry the repository re-reads what other writers changed."""
        ...

    def named_lock(self, name: str, timeout: float = 600.0) -> AbstractContextManager[None]:
        """A lock of its own for a long job (an extraction per session), not the write lock."""
        ...

    @property
    def repaired(self) -> list[str]:
        """What the last entry into `locked()` repaired (leftovers of interrupted writes; doctor --fix
        reports them)."""
        ...


class MemoryWrites(NewIds, Locks, Protocol):
    """Writing memories under the write lock: create, rewrite, archive, restore, and undo. Each
    write names its `actor` (journaled with it; None: no one in particular)."""

    def create(self, memory: Memory, op: str = "add", *, actor: str | None = None, **detail: Any) -> Memory:
        """Store a new memory and journal it."""
        ...

    def put(self, memory: Memory, op: str = "import", *, actor: str | None = None, **detail: Any) -> Memory:
        """Store a memory exactly as given (id, dates, status, links): an import of memctl's own records."""
        ...

    def rewrite(self, memory: Memory, op: str, *, actor: str | None = None, **detail: Any) -> Memory:
        """Replace a stored memory in place, journaling the content before and after."""
        ...

    def archive(self, memory: Memory, status: str, reason: str | None, op: str, *, actor: str | None = None, **links: Any) -> Memory:
        """Move an active memory to the archive with why; it exists exactly once throughout."""
        ...

    def unarchive(self, memory: Memory, op: str = "restore", *, actor: str | None = None) -> Memory:
        """Bring an archived memory back, as it was before archiving."""
        ...

    def relocate(self, memory: Memory, op: str, *, actor: str | None = None, **detail: Any) -> Memory:
        """Store a memory whose owner changed (a promotion) in its new place."""
        ...

    def original(self, memory: Memory) -> dict[str, str]:
        """What `put_back` needs to restore a memory byte for byte: {"path", "text"}."""
        ...

    def put_back(self, current: Memory | None, original: dict[str, str], op: str, *, actor: str | None = None, **detail: Any) -> None:
        """Restore a memory saved by `original` (compaction undo)."""
        ...

    def delete_created(self, memory: Memory, op: str, *, actor: str | None = None, **detail: Any) -> None:
        """Delete a memory memctl created itself (a compaction summary being undone)."""
        ...

    def drain_touched(self) -> set[str]:
        """The scope folders (`users/alice`) written since the last call."""
        ...


class Journal(Protocol):
    """What happened to memories, and the writes the rate limit and extraction count."""

    def history(self, memory_id: str) -> list[JournalEntry]:
        """Journal entries about one memory, oldest first."""
        ...

    def auto_writes(self, session: str | None, since: str, until: str, owner: str | None = None) -> int:
        """Automatic writes within (since, until]: of `owner`'s session (the session's owner, e.g.
        users/alice: the same session name of someone else is not it), or (session None) of `owner`
        with no session."""
        ...

    def session_writes(self, session: str, since: str, owner: str) -> list[tuple[str, int | None]]:
        """(time, turn_at) of the explicit (not automatic) writes made in `owner`'s session from `since`
        on (extract skips their turns); turn_at: how many messages the transcript held when it was made."""
        ...


class UsageLog(Protocol):
    """How often and when each memory was recalled (importance, compaction)."""

    def record_usage(self, ids: Sequence[str], at: datetime, session: str | None) -> None:
        """Count one use of each id (recall never rewrites a memory)."""
        ...

    def usage(self) -> dict[str, dict[str, Any]]:
        """Usage statistics by id: count, last_used, sessions."""
        ...


class IndexFiles(Protocol):
    """MEMORY.md of each scope folder, and a directory's own copies of shipped texts."""

    def read_memory_md(self, owner: str) -> str | None:
        """The current MEMORY.md of a scope folder, or None."""
        ...

    def write_memory_md(self, owner: str, text: str) -> None:
        """Replace the MEMORY.md of a scope folder."""
        ...

    def text(self, name: str) -> str:
        """A directory's own copy of a shipped text (MEMORY.md.template, extract_prompt.md)."""
        ...


class Health(Protocol):
    """What went wrong reading the stored memories, and the repository's own caches."""

    def warnings(self) -> list[str]:
        """Problems met while reading (broken files skipped...), since the last call."""
        ...

    def broken(self, flt: MemoryFilter | None = None) -> list[tuple[str, str]]:
        """(path, why) of the stored memories that do not read (with a scope: those in it)."""
        ...

    def problems(self, fix: bool = False) -> tuple[list[dict[str, str]], list[str]]:
        """What is wrong with the stored memories (kind, path, detail), and what `fix` repaired."""
        ...

    def drop_caches(self) -> None:
        """Forget every cache the repository keeps itself (the next read rebuilds it)."""
        ...


class KeepsCompactions(Protocol):
    """Where compaction records are kept."""

    @property
    def compactions(self) -> RecordStore:
        """Where compaction records are kept."""
        ...


class KeepsTranscripts(Protocol):
    """Where conversation transcripts are kept."""

    @property
    def transcripts(self) -> Transcripts:
        """Where conversation transcripts are kept."""
        ...


class Records(KeepsCompactions, KeepsTranscripts, Protocol):
    """Where compaction records and conversation transcripts are kept."""


class Repository(Memories, MemoryWrites, Journal, UsageLog, IndexFiles, Health, Records, Protocol):
    """Every part a backend offers; a service types against the parts it uses (a recall reads
    memories and counts their use: `Memories` and `UsageLog`)."""


class ReadsAndUsage(Memories, UsageLog, Protocol):
    """What a recall and the importance scores read: memories and how they were used."""


class ReadsAndIndexes(Memories, IndexFiles, Protocol):
    """What a MEMORY.md refresh reads and writes."""


class ReadsAndHealth(Memories, Health, Protocol):
    """What stats read: memories and the files that do not read."""


class ReadsAndWrites(Memories, MemoryWrites, Protocol):
    """What edit, forget, restore, dedupe and a migration read and write: memories alone."""


class CompactionStore(Memories, MemoryWrites, UsageLog, KeepsCompactions, Protocol):
    """What compaction reads and writes: memories, how they were used (importance), and its records
    (resume, undo)."""


class WriteStore(Memories, MemoryWrites, Journal, KeepsTranscripts, Protocol):
    """What a write reads and writes: memories, the journal (the rate limit), the transcript's length
    (the turn a write is made at)."""


class ExtractionStore(Memories, Locks, Journal, IndexFiles, KeepsTranscripts, Protocol):
    """What extraction from transcripts reads: memories, transcripts, their writes, the prompt text."""


class ContentState(Protocol):
    """One consistent state of the stored memories as a search cache syncs from it: each memory's
    content hash and place, and the memory behind a place (store/catalog.Snapshot for a folder)."""

    @property
    def order(self) -> Sequence[str]:
        """The places (relative paths) of the readable memories."""
        ...

    @property
    def hashes(self) -> dict[str, str]:
        """Content hash of each memory, by id (shared: never changed by a reader)."""
        ...

    def paths(self) -> dict[str, str]:
        """The place of each memory, by id (shared: never changed by a reader)."""
        ...

    def memory(self, rel: str) -> Memory:
        """The memory at a place of `order`."""
        ...


class Snapshots(Protocol):
    """What the engine over a folder's caches (search/engine.py) reads: the current state of the
    memories and where caches go."""

    @property
    def cache(self) -> Path:
        """The folder's own cache folder (store/cachedir.py)."""
        ...

    def snapshot(self, refresh: bool = False) -> ContentState:
        """The memories as they are now (within a command: as the command first read them)."""
        ...


# -- optional capabilities: a backend offers them or not (isinstance tells) ----------------------
@runtime_checkable
class NativeSearch(Protocol):
    """A backend that searches itself (SQL on PostgreSQL) instead of the engine over the caches."""

    def search_index(self, embedder: Callable[[], Any], keyword: Any) -> Any: ...


@runtime_checkable
class Watchable(Protocol):
    """A backend that follows changes on disk by the kernel's notices instead of stat scans (a warm
    server's folder); False when it cannot."""

    def watch(self) -> bool: ...


@runtime_checkable
class FillsLater(Protocol):
    """A search some of whose vectors are filled after the build (a second model's, lazily):
    `pending` counts the memories still waiting, `fill` embeds them now."""

    def pending(self) -> int: ...

    def fill(self, progress: Callable[[str, int], None] | None = None) -> int: ...


@runtime_checkable
class Flushable(Protocol):
    """A part that saves some caches only now and then while warm (a server's folder and engine):
    `flush` writes them now."""

    def flush(self) -> None: ...


@runtime_checkable
class Pingable(Protocol):
    """A backend behind a connection that can be checked before serving (a database)."""

    def ping(self) -> None: ...


@runtime_checkable
class SecondModel(Protocol):
    """A search that fuses a second model beside the write model (search/fused.TwoModelSearch):
    `second_text_similarities` is `text_similarities` by that model (the write decision's pair model
    reads it when it is the multilingual one)."""

    def second_text_similarities(self, pairs: Sequence[tuple[str, str]]) -> tuple[str, list[float]]: ...


@runtime_checkable
class LineSearch(Protocol):
    """A search that scores the lines of a query one by one (search/engine.Engine, TwoModelSearch):
    recall reads a dialogue's lines so (policy/relevance.py); a database's search does not."""

    def line_runs(self, lines: Sequence[str], ids: Sequence[str], identities: Collection[str]
                  ) -> list[tuple[str, dict[str, list[float]]]]:
        """(model identity, id -> each line's cosine) for each model of `identities`."""
        ...


class SearchIndex(Protocol):
    """Keyword and semantic search over a repository's memories (search/engine.Engine for files;
    a database searches in SQL). Results are (id, raw score) pairs, best first."""

    def keyword_search(self, query: str, limit: int, allowed: Collection[str] | None) -> list[tuple[str, float]]:
        """BM25-style keyword scores among `allowed` ids (None: every memory)."""
        ...

    def semantic_search(self, query: str, limit: int, allowed: Collection[str] | None) -> list[tuple[str, float]]:
        """Cosine similarity to the query's embedding among `allowed` ids."""
        ...

    def semantic_runs(self, query: str, limit: int,
                      allowed: Collection[str] | None) -> list[tuple[str, list[tuple[str, float]]]]:
        """(model identity, cosine run) for every embedding model recall fuses, the primary first."""
        ...

    def hybrid_runs(self, query: str, limit: int, allowed: Collection[str] | None
                    ) -> tuple[list[tuple[str, float]], list[tuple[str, list[tuple[str, float]]]]]:
        """`keyword_search` and `semantic_runs` of one query, together (a database runs them at once)."""
        ...

    def keyword_coverage(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """The IDF-weighted share (0-1) of the query's terms each of `ids` contains."""
        ...

    def query_coverage(self, query: str, plain: bool = False) -> float:
        """The IDF-weighted share (0-1) of the query's terms that some memory contains (1: no term);
        `plain`: every term weighed by its IDF alone (common words as much as names)."""
        ...

    def similarities(self, text: str, ids: Sequence[str]) -> dict[str, float]:
        """Cosine of `text` to each of `ids` that has a vector."""
        ...

    def pair_similarities(self, ids: Sequence[str], threshold: float, sync: bool = True) -> dict[tuple[str, str], float]:
        """Cosine of every pair of `ids` at or above `threshold` (sync=False: cached vectors only)."""
        ...

    def text_similarities(self, pairs: Sequence[tuple[str, str]]) -> tuple[str, list[float]]:
        """The write path's model (its identity) and the cosine of each pair of texts, both embedded as
        documents (the write decision compares statements' frames so)."""
        ...

    def rebuild(self, vectors: bool = True, progress: Callable[[str, int], None] | None = None) -> int:
        """Rebuild the search caches from the memories; returns how many memories were embedded."""
        ...

    def prepare(self, text: str | None = None) -> None:
        """Load the model, sync the vectors and embed `text` now (before a caller takes the write lock)."""
        ...

    def warm_up(self) -> None:
        """Load the model and bring the caches up to date."""
        ...
