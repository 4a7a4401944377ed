"""PostgresRepository: the memories as rows of one PostgreSQL database (the Repository protocol).

Writes happen in one transaction per `locked()` section: the write decision reads and the write
commit together. Locks are PostgreSQL advisory locks, taken on first need within the transaction:
a read or write of one scope folder (`users/alice`) takes that folder's lock (and a shared lock on
the whole store); a read of everything (`all_memories`, `active()` without an owner) takes the
whole store exclusively. So writers of different users never wait for each other, two writers of
one user are serialised, and a compaction or an import sees a store nobody else is changing.

Each memory keeps the relative path its file has in the folder layout, so `memctl export --to
folder` writes every memory where a folder store would have it, byte for byte.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memctl import clock
from memctl.core.access import unknown_visibility, visibility_problem
from memctl.core.models import JournalEntry, Memory
from memctl.errors import InvalidMemory, MemctlError, NotFound, UsageError
from memctl.store.cachedir import folder_cache, private_folder
from memctl.store.directory import packaged_text, read_text_file
from memctl.store.filters import ORDERS, MemoryFilter
from memctl.store.layout import ARCHIVE_DIR, is_archived, new_record_path, record_path_fits
from memctl.store.postgres import rows
from memctl.store.postgres.candidates import CandidatePool
from memctl.store.postgres.connect import pool, redact, translate
from memctl.store.postgres.records import PostgresCompactions, PostgresJournal, PostgresTranscripts, PostgresUsage
from memctl.store.postgres.sqlfilter import ACTIVE, where

ARCHIVE_FIELDS = ("archived_reason", "archived_at", "superseded_by", "merged_into")
ARCHIVE_PREFIX = ARCHIVE_DIR + "/"
ORDER = 'ORDER BY (m.path LIKE \'archive/%%\'), m.path COLLATE "C"'  # as a folder lists them
LOCK_KEY = "SELECT {fn}(hashtextextended('memctl:' || current_schema() || ':' || %s, 0))"
EVERYTHING = "*"
ID_BATCH = 32  # new ids drawn and checked in one query
_KEY = "hashtextextended('memctl:' || current_schema() || ':' || %s, 0)"
FIRST_LOCKS = f"SELECT pg_advisory_xact_lock_shared({_KEY}), pg_advisory_xact_lock({_KEY})"  # evaluated left to right
# The columns `select` orders by (text in code point order, as Python compares strings).
_ORDER_COLUMNS = {"created": "m.created", "updated": "m.updated", "confidence": "m.confidence",
                  "id": 'm.id COLLATE "C"', "type": 'm.type COLLATE "C"', "user": 'COALESCE(m."user", \'\') COLLATE "C"'}
_FOLDER_ORDER = [("(m.path LIKE 'archive/%%')", False), ('m.path COLLATE "C"', False)]  # ORDER's keys


class _Transaction(threading.local):
    """The open write transaction of this thread: its connection and the locks it holds."""

    def __init__(self) -> None:
        self.conn: Any = None
        self.depth = 0
        self.owners: set[str] = set()
        self.mode: str | None = None  # None, "shared" (some owners locked) or "exclusive" (everything)


def _in_transaction() -> Any:
    from psycopg.pq import TransactionStatus

    return TransactionStatus.INTRANS


def _roll_back(conn: Any) -> None:
    """End a failed transaction (a broken connection is left to the pool, which drops it)."""
    with contextlib.suppress(Exception):
        conn.execute("ROLLBACK")


def folder_of(rel: str) -> str:
    """The scope folder of a relative path (`archive/users/a/x.md` -> `users/a`)."""
    return rel.removeprefix(ARCHIVE_PREFIX).rsplit("/", 1)[0]


class PostgresRepository:
    """One memory store in a PostgreSQL database (with pgvector)."""

    kind = "postgres"

    def __init__(self, url: str, root: Path | None) -> None:
        self.url = url
        self.root = Path(root) if root is not None else None  # None: no folder at all (serve --store)
        # models only, in this user's cache folder (store/cachedir.py): nothing goes into the folder
        self.cache = private_folder(folder_cache(self.root)) if self.root else None
        self.repaired: list[str] = []  # nothing is ever left half-written: a transaction commits or not
        self._txn = _Transaction()
        self._touched: set[str] = set()
        self._warnings: dict[str, None] = {}
        self._broken: dict[str, str] = {}  # path -> why its row does not validate
        self._pool: CandidatePool | None = None
        self._ids: list[str] = []  # drawn and checked, not handed out yet (new_id)
        self._ids_pid, self._ids_lock = os.getpid(), threading.Lock()
        # The search's vector for a memory's text when it has one already (its vector table, the text's
        # hash, the vector), set by PostgresSearch: a write stores it at once instead of queueing it.
        self.known_vector: Callable[[Memory], tuple[str, str, Any] | None] | None = None
        self.journal = PostgresJournal(self.connection)
        self.usage_table = PostgresUsage(self.connection)
        self.compactions = PostgresCompactions(self.connection)
        self.transcripts = PostgresTranscripts(self.connection)

    def __repr__(self) -> str:
        return f"PostgresRepository({redact(self.url)!r})"

    # -- connections and locks -----------------------------------------------------------------
    @contextlib.contextmanager
    def connection(self) -> Iterator[Any]:
        """The open transaction's connection, else a pooled one (autocommit: each statement commits)."""
        if self._txn.conn is not None:
            with translate(self.url):
                yield self._txn.conn
            return
        with translate(self.url), pool(self.url).connection() as conn:
            yield conn

    def command(self) -> contextlib.AbstractContextManager[None]:
        """Nothing to hold: every read asks the database, which is always current."""
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def locked(self, timeout: float = 30.0) -> Iterator[None]:
        """A transaction: what happens inside commits together or not at all (re-entrant). Locks are
        taken as the transaction reads and writes (see the module docstring); a lock not granted
        within `timeout` seconds is a LockTimeout, a deadlock a Conflict (nothing written)."""
        txn = self._txn
        if txn.conn is not None:
            txn.depth += 1
            try:
                yield
            finally:
                txn.depth -= 1
            return
        answer: MemctlError | None = None
        with translate(self.url), pool(self.url).connection() as conn:
            # BEGIN and the lock timeout in one round trip (a simple query: no parameters)
            conn.execute(f"BEGIN; SET LOCAL lock_timeout = '{max(int(timeout * 1000), 1)}ms'")
            txn.conn, txn.owners, txn.mode, txn.depth = conn, set(), None, 1
            try:
                yield
            except MemctlError as exc:
                # A refusal is an answer, not a failure: what was written before it (a repeat
                # reinforcing the stored memory) stays, as it does in a folder. A database error
                # has aborted the transaction: that rolls back.
                if conn.info.transaction_status != _in_transaction():
                    _roll_back(conn)
                    raise
                answer = exc
            except BaseException:
                _roll_back(conn)
                raise
            finally:
                txn.conn, txn.owners, txn.mode, txn.depth = None, set(), None, 0
            conn.execute("COMMIT")
        if answer is not None:
            raise answer

    def _pipelined(self) -> contextlib.AbstractContextManager[Any]:
        """Within the transaction, statements whose results nobody reads sent together (psycopg's
        pipeline mode: one round trip; an error surfaces at its end, and aborts the transaction)."""
        conn = self._txn.conn
        return conn.pipeline() if conn is not None else contextlib.nullcontext()

    def in_transaction(self) -> bool:
        """Whether this thread has a write transaction open (its reads must use its connection)."""
        return self._txn.conn is not None

    def _lock_owner(self, owner: str) -> bool:
        """Within a transaction, the lock of one scope folder; True when it was taken just now."""
        txn = self._txn
        if txn.conn is None or txn.mode == "exclusive" or owner in txn.owners:
            return False
        if txn.mode is None:  # the whole store shared, then the folder: one round trip, in that order
            txn.conn.execute(FIRST_LOCKS, (EVERYTHING, owner))
            txn.mode = "shared"
        else:
            txn.conn.execute(LOCK_KEY.format(fn="pg_advisory_xact_lock"), (owner,))
        txn.owners.add(owner)
        return True

    def _lock_everything(self) -> None:
        """Within a transaction, the whole store: no other writer until it commits."""
        txn = self._txn
        if txn.conn is not None and txn.mode != "exclusive":
            txn.conn.execute(LOCK_KEY.format(fn="pg_advisory_xact_lock"), (EVERYTHING,))
            txn.mode = "exclusive"

    def named_lock(self, name: str, timeout: float = 600.0) -> contextlib.AbstractContextManager[None]:
        """A lock of its own for a long job (an extraction per session), held on its own connection."""
        return self._session_lock(f"job:{name}", timeout)

    @contextlib.contextmanager
    def _session_lock(self, name: str, timeout: float) -> Iterator[None]:
        with translate(self.url), pool(self.url).connection() as conn:
            conn.execute(f"SET lock_timeout = '{max(int(timeout * 1000), 1)}ms'")
            try:
                conn.execute(LOCK_KEY.format(fn="pg_advisory_lock"), (name,))
            finally:
                conn.execute("RESET lock_timeout")
            try:
                yield
            finally:
                conn.execute(LOCK_KEY.format(fn="pg_advisory_unlock"), (name,))

    # -- reading -----------------------------------------------------------------------------
    def _select(self, condition: str, params: Sequence[Any] | dict[str, Any] = (), tail: str = ORDER) -> list[Memory]:
        with self.connection() as conn:
            found = conn.execute(f"SELECT {rows.SELECT_COLUMNS} FROM memctl_memories m WHERE {condition} {tail}",
                                 params).fetchall()
        return self.valid(found)

    def valid(self, found: Sequence[tuple[Any, ...]]) -> list[Memory]:
        """The memories of rows; a row that does not validate is reported (warnings) and skipped."""
        out = []
        for row in found:
            try:
                memory = rows.from_row(row)
            except InvalidMemory as exc:
                path = str(row[rows.COLUMNS.index("path")])
                self._broken[path] = str(exc).removeprefix(f"{path}: ")
                self._warnings[f"skipped invalid row {exc}"] = None
                continue
            if unknown_visibility(memory.visibility):
                self._warnings[visibility_problem(str(memory.path), memory.visibility)] = None
            out.append(memory)
        return out

    def all_memories(self) -> list[Memory]:
        """Every memory, active and archived (in a transaction: with the whole store locked)."""
        self._lock_everything()
        return self._select("TRUE")

    def active(self, at: datetime | None = None, owner: str | None = None) -> list[Memory]:
        """Active memories not expired at `at`, of one scope folder when `owner` is given."""
        if owner is None:
            self._lock_everything()
            return self._select(f"{ACTIVE} AND (m.expires IS NULL OR m.expires > %s)", (at or clock.now(),))
        self._lock_owner(owner)
        return self._select(f"{ACTIVE} AND (m.expires IS NULL OR m.expires > %s) AND m.owner = %s",
                            (at or clock.now(), owner))

    def is_active(self, memory: Memory) -> bool:
        """Active means: status active, not in the archive."""
        return memory.status == "active" and not is_archived(memory.path)

    def get(self, memory_id: str) -> Memory:
        """A memory by id or unique id prefix; in a transaction its folder is locked and it is read again."""
        prefix = re.sub(r"([\\%_])", r"\\\1", memory_id)
        found = self._select("m.id LIKE %s", (prefix + "%",), 'ORDER BY m.id COLLATE "C" LIMIT 2')
        if not found:
            raise NotFound(f"no memory with id {memory_id!r}")
        if len(found) > 1:
            raise UsageError(f"id prefix {memory_id!r} matches more than one memory; give more characters",
                             code="ambiguous_id")
        if self._lock_owner(found[0].owner):
            return self._exact(found[0].id) or found[0]
        return found[0]

    def _exact(self, memory_id: str) -> Memory | None:
        found = self._select("m.id = %s", (memory_id,), "")
        return found[0] if found else None

    def candidates(self, flt: MemoryFilter, now: datetime) -> CandidatePool:
        """The memories a recall with this filter may see, as a filter the search runs in SQL."""
        condition, params = where(flt, now)
        self._pool = CandidatePool(self.connection, condition, params)
        return self._pool

    def select(self, flt: MemoryFilter, now: datetime, order: str | None = None, newest_first: bool = False,
               limit: int = 0, offset: int = 0) -> list[Memory]:
        """The memories passing the filter, ordered, offset and limited in SQL (in a transaction: with
        the whole store locked, as a read of many owners)."""
        self._lock_everything()
        condition, params = where(flt, now)
        keys = [(_ORDER_COLUMNS[name], descending) for name, descending in ORDERS[order]] if order else _FOLDER_ORDER
        tail = "ORDER BY " + ", ".join(f"{column} {'DESC' if descending != newest_first else 'ASC'}"
                                       for column, descending in keys)
        if limit:
            tail += f" LIMIT {int(limit)}"
        if offset:
            tail += f" OFFSET {int(offset)}"
        return self._select(condition, params, tail)

    def load(self, handle: str) -> Memory:
        """The memory behind a handle (its id): from the rows the last search fetched, else the database."""
        if self._pool is not None and handle in self._pool.rows:
            return self._pool.rows[handle]
        memory = self._exact(handle)
        if memory is None:
            raise NotFound(f"no memory with id {handle!r}")
        return memory

    def wholes(self) -> frozenset[str]:
        """Ids that some memory names as its `part_of`."""
        with self.connection() as conn:
            found = conn.execute("SELECT DISTINCT part_of FROM memctl_memories WHERE part_of IS NOT NULL").fetchall()
        return frozenset(str(whole) for (whole,) in found)

    def owners(self) -> list[str]:
        """Every scope folder with active memories."""
        with self.connection() as conn:
            found = conn.execute(f"SELECT DISTINCT owner FROM memctl_memories m WHERE {ACTIVE}").fetchall()
        return sorted(owner for (owner,) in found)

    def new_id(self) -> str:
        """A random 8-hex id no stored memory uses (never all digits: YAML would read a number). Ids
        are drawn and checked ID_BATCH at a time, one query for that many adds; a forked process
        draws its own (it must not hand out its parent's). Another writer drawing one of them
        meanwhile (a chance of about one in 2**32 an add) meets the table's primary key, as it
        would between a check and the insert."""
        if self._ids_pid != os.getpid():
            self._ids, self._ids_pid, self._ids_lock = [], os.getpid(), threading.Lock()
        with self._ids_lock:  # a server's threads share the repository
            while not self._ids:
                self._ids = self._draw_ids()
            return self._ids.pop()

    def _draw_ids(self) -> list[str]:
        drawn = {c for c in (secrets.token_hex(4) for _ in range(ID_BATCH)) if not c.isdigit()}
        with self.connection() as conn:
            taken = {row[0] for row in conn.execute("SELECT id FROM memctl_memories WHERE id = ANY(%s)",
                                                    (sorted(drawn),)).fetchall()}
        return sorted(drawn - taken)

    def _taken(self, column: str, value: str) -> str | None:
        """The id of the memory whose `column` is `value`, or None."""
        with self.connection() as conn:
            row = conn.execute(f"SELECT id FROM memctl_memories WHERE {column} = %s", (value,)).fetchone()
        return row[0] if row else None

    # -- writing -----------------------------------------------------------------------------
    def _stored(self, memory_id: str) -> tuple[str, str, str]:
        """(path, owner, content hash) of a stored memory, its folder locked; NotFound otherwise."""
        with self.connection() as conn:
            row = conn.execute("SELECT path, owner, content_hash FROM memctl_memories WHERE id = %s",
                               (memory_id,)).fetchone()
        if row is None:
            raise NotFound(f"no memory with id {memory_id!r}")
        self._lock_owner(row[1])
        return row[0], row[1], row[2]

    def _save(self, memory: Memory, path: str, new: bool) -> str:
        """Insert or update the row, queue the search's derived data; returns the content hash."""
        row = rows.to_row(memory, path)
        with self.connection() as conn:
            conn.execute(rows.insert_sql() if new else rows.update_sql(), row)
            known = self.known_vector(memory) if self.known_vector is not None else None
            if known is None:
                self._queue(conn, memory.id, str(row["content_hash"]))
            else:
                self._queue_known(conn, memory.id, str(row["content_hash"]), *known)
        memory.path = path
        self._touched.add(memory.owner)
        return str(row["content_hash"])

    @staticmethod
    def _queue(conn: Any, memory_id: str, digest: str) -> None:
        """Ask the search to re-derive a memory's terms and its vector in every vector table (digest
        "": it is gone). A table added meanwhile fills itself once this transaction has ended."""
        conn.execute("INSERT INTO memctl_index_queue VALUES (%s, %s) ON CONFLICT (id) "
                     "DO UPDATE SET content_hash = excluded.content_hash", (memory_id, digest))
        conn.execute("INSERT INTO memctl_embed_queue SELECT name, %s, %s FROM memctl_vector_tables "
                     "ON CONFLICT (vectors, id) DO UPDATE SET content_hash = excluded.content_hash", (memory_id, digest))

    @staticmethod
    def _queue_known(conn: Any, memory_id: str, digest: str, table: str, text_hash: str, vector: Any) -> None:
        """`_queue`, with the vector the search already has for the memory's text stored in its table
        now, in the write's transaction (one statement): no other process embeds it again, and
        the next query finds nothing to derive for it."""
        conn.execute(
            "WITH terms AS (INSERT INTO memctl_index_queue VALUES (%(id)s, %(digest)s) ON CONFLICT (id) "
            "DO UPDATE SET content_hash = excluded.content_hash), "
            f"vector AS (INSERT INTO {table} VALUES (%(id)s, %(text_hash)s, %(vector)s) ON CONFLICT (id) "
            "DO UPDATE SET text_hash = excluded.text_hash, embedding = excluded.embedding) "
            "INSERT INTO memctl_embed_queue SELECT name, %(id)s, %(digest)s FROM memctl_vector_tables "
            "WHERE name <> %(table)s ON CONFLICT (vectors, id) DO UPDATE SET content_hash = excluded.content_hash",
            {"id": memory_id, "digest": digest, "table": table, "text_hash": text_hash, "vector": vector})

    def _free(self, rel: str, memory_id: str) -> str:
        """`rel`, or a fresh `<stem>-<id>.md` beside it when another memory has that path."""
        taken = self._taken("path", rel)
        if taken is None or taken == memory_id:
            return rel
        stem = rel.removesuffix(".md")
        stem = f"{stem}-{memory_id}" if memory_id not in stem.rsplit("/", 1)[-1] else f"{stem}-{secrets.token_hex(2)}"
        return self._free(stem + ".md", memory_id)

    def create(self, memory: Memory, op: str = "add", *, actor: str | None = None, **detail: Any) -> Memory:
        """Store a new memory and journal it."""
        with self.locked():
            self._lock_owner(memory.owner)
            path = self._free(new_record_path(memory), memory.id)
            with self._pipelined():  # the row, its queue entries and the journal's: one round trip
                after = self._save(memory, path, new=True)
                self.journal.append(op, memory.id, None, after, path_after=memory.path, actor=actor, **detail)
        return memory

    def put(self, memory: Memory, op: str = "import", *, actor: str | None = None, **detail: Any) -> Memory:
        """Store a memory exactly as given, at its own relative path when that fits and is free."""
        with self.locked():
            self._lock_owner(memory.owner)
            fits = record_path_fits(memory) and self._taken("path", str(memory.path)) is None
            path = str(memory.path) if fits else self._free(new_record_path(memory, memory.status != "active"), memory.id)
            after = self._save(memory, path, new=True)
            self.journal.append(op, memory.id, None, after, path_after=memory.path, actor=actor, **detail)
        return memory

    def rewrite(self, memory: Memory, op: str, *, actor: str | None = None, **detail: Any) -> Memory:
        """Replace a stored memory in place, journaling the content hashes before and after."""
        with self.locked():
            self._lock_owner(memory.owner)
            path, _, before = self._stored(memory.id)
            after = self._save(memory, str(memory.path or path), new=False)
            detail.setdefault("path_before", memory.path)
            self.journal.append(op, memory.id, before, after, path_after=memory.path, actor=actor, **detail)
        return memory

    def archive(self, memory: Memory, status: str, reason: str | None, op: str, *, actor: str | None = None, **links: Any) -> Memory:
        """Mark an active memory archived with why, under archive/ in the folder layout."""
        if not self.is_active(memory):
            raise UsageError(f"memory {memory.id} is already archived ({memory.status})", code="not_active")
        with self.locked():
            path, _, before = self._stored(memory.id)
            data = memory.model_dump(exclude={"path"})
            data.update(status=status, archived_reason=reason, archived_at=clock.now(), **links)
            archived = Memory(**data)
            after = self._save(archived, self._free(ARCHIVE_PREFIX + path.removeprefix(ARCHIVE_PREFIX), memory.id), new=False)
            self.journal.append(op, memory.id, before, after, path_before=path, path_after=archived.path,
                                reason=reason, actor=actor, **links)
        return archived

    def unarchive(self, memory: Memory, op: str = "restore", *, actor: str | None = None) -> Memory:
        """Bring an archived memory back, as it was before archiving."""
        with self.locked():
            path, _, before = self._stored(memory.id)
            data = memory.model_dump(exclude={"path", *ARCHIVE_FIELDS})
            data["status"] = "active"
            restored = Memory(**data)
            after = self._save(restored, self._free(path.removeprefix(ARCHIVE_PREFIX), memory.id), new=False)
            self.journal.append(op, memory.id, before, after, path_before=path, path_after=restored.path, actor=actor)
        return restored

    def relocate(self, memory: Memory, op: str, *, actor: str | None = None, **detail: Any) -> Memory:
        """Store a memory whose owner changed (a promotion) in its new folder."""
        with self.locked():
            path, owner, _ = self._stored(memory.id)
            self._lock_owner(memory.owner)
            self._touched.add(owner)
            target = new_record_path(memory)
            if target.rsplit("/", 1)[0] != path.rsplit("/", 1)[0]:
                detail.setdefault("path_before", path)
                memory.path = self._free(target, memory.id)
            return self.rewrite(memory, op, actor=actor, **detail)

    def original(self, memory: Memory) -> dict[str, str]:
        """The stored memory's path and the exact text of its file."""
        stored = self._exact(memory.id)
        if stored is None:
            raise NotFound(f"no memory with id {memory.id!r}")
        return {"path": str(stored.path), "text": rows.file_text(stored)}

    def put_back(self, current: Memory | None, original: dict[str, str], op: str, *, actor: str | None = None, **detail: Any) -> None:
        """Restore a memory saved by `original`: its path and the fields its text holds."""
        from memctl.core.fileformat import parse_memory

        restored = parse_memory(original["text"], original["path"])
        with self.locked():
            self._lock_owner(restored.owner)
            taken = self._taken("path", original["path"])
            if taken is not None and taken != restored.id:
                raise UsageError(f"cannot undo: {original['path']} is taken again", code="undo_conflict")
            stored = self._exact(restored.id)
            if stored is not None:
                self._stored(restored.id)
                self._touched.add(stored.owner)
            self._touched.add(folder_of(original["path"]))
            if stored is not None and stored.path == original["path"] and rows.file_text(stored) == original["text"]:
                return
            after = self._save(restored, original["path"], new=stored is None)
            self.journal.append(op, current.id if current else restored.id, None, after,
                                path_after=original["path"], actor=actor, **detail)

    def delete_created(self, memory: Memory, op: str, *, actor: str | None = None, **detail: Any) -> None:
        """Delete a memory memctl created itself (a compaction summary being undone)."""
        with self.locked(), self.connection() as conn:
            self._lock_owner(memory.owner)
            conn.execute("DELETE FROM memctl_memories WHERE id = %s", (memory.id,))
            self._queue(conn, memory.id, "")
            self._touched.add(memory.owner)
            self.journal.append(op, memory.id, None, None, actor=actor, **detail)

    def drain_touched(self) -> set[str]:
        """The scope folders written since the last call."""
        out, self._touched = self._touched, set()
        return out

    # -- journal and usage ---------------------------------------------------------------------
    def history(self, memory_id: str) -> list[JournalEntry]:
        """Journal entries about one memory (or naming it), oldest first."""
        return self.journal.read(memory_id)

    def auto_writes(self, session: str | None, since: str, until: str, owner: str | None = None) -> int:
        """Automatic writes (source auto/ai) in (since, until]: of `owner`'s session, or (session None)
        of `owner` with no session."""
        return self.journal.auto_writes(session, since, until, owner)

    def session_writes(self, session: str, since: str, owner: str) -> list[tuple[str, int | None]]:
        """(time, turn_at) of the explicit (not automatic) writes made in `owner`'s session from `since` on."""
        return self.journal.session_writes(session, since, owner)

    def record_usage(self, ids: Sequence[str], at: datetime, session: str | None) -> None:
        """Count one use of each id."""
        self.usage_table.record(ids, at, session)

    def usage(self) -> dict[str, dict[str, Any]]:
        """Usage statistics by id."""
        return self.usage_table.read()

    # -- MEMORY.md and fixed texts ----------------------------------------------------------
    def read_memory_md(self, owner: str) -> str | None:
        """The MEMORY.md of a scope folder (kept in the database), or None."""
        with self.connection() as conn:
            row = conn.execute("SELECT text FROM memctl_memory_md WHERE owner = %s", (owner,)).fetchone()
        return row[0] if row else None

    def write_memory_md(self, owner: str, text: str) -> None:
        """Replace the MEMORY.md of a scope folder."""
        with self.connection() as conn:
            conn.execute("INSERT INTO memctl_memory_md VALUES (%s, %s) ON CONFLICT (owner) "
                         "DO UPDATE SET text = excluded.text", (owner, text))

    def text(self, name: str) -> str:
        """The folder's own MEMORY.md.template or extract_prompt.md, else (or with no folder) the shipped one."""
        return read_text_file(self.root, name) if self.root else packaged_text(name)

    # -- health ---------------------------------------------------------------------------
    def warnings(self) -> list[str]:
        """Rows skipped because they do not validate, since the last call."""
        out = list(self._warnings)
        self._warnings.clear()
        return out

    def broken(self, flt: MemoryFilter | None = None) -> list[tuple[str, str]]:
        """(path, why) of the rows that do not validate (with a filter: among the rows it lets through)."""
        condition, params = where(flt, clock.now()) if flt is not None else ("TRUE", {})
        self._broken.clear()
        self._select(condition, params)
        return sorted(self._broken.items())

    def problems(self, fix: bool = False) -> tuple[list[dict[str, str]], list[str]]:
        """Rows that do not validate, and memories whose path disagrees with their owner or status.
        Nothing needs repairing after a crash (a transaction commits or not), so `fix` repairs nothing."""
        self._broken.clear()
        memories = self.all_memories()
        problems = [{"kind": "broken", "path": path, "detail": why} for path, why in sorted(self._broken.items())]
        for m in memories:
            if folder_of(str(m.path)) != m.owner:
                problems.append({"kind": "misplaced", "path": str(m.path), "detail": f"its fields say it belongs in {m.owner}/"})
            if is_archived(m.path) == (m.status == "active"):
                problems.append({"kind": "status_location", "path": str(m.path), "detail": f"status {m.status} in this folder"})
        return problems, []

    def ping(self) -> None:
        """Connect now (and migrate the schema): a bad URL or an unreachable database is a StoreError
        here, not at the first request."""
        with self.connection() as conn:
            conn.execute("SELECT 1")

    def drop_caches(self) -> None:
        """Nothing to forget: every read asks the database (the search's derived tables are rebuilt by
        its `rebuild`)."""
        self._pool = None

    # -- search ---------------------------------------------------------------------------
    def search_index(self, embedder: Callable[[], Any], keyword: Any) -> Any:
        """The SearchIndex that answers in SQL over this store (see store/postgres/search.py)."""
        from memctl.store.postgres.search import PostgresSearch

        return PostgresSearch(self, embedder, keyword)
