"""The tables around the memories: the append-only journal, usage counts, compaction records and
conversation transcripts (each the database form of its file in store/)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from memctl.clock import format_timestamp, now
from memctl.core.models import JournalEntry

Connect = Callable[[], AbstractContextManager[Any]]  # a connection: the open transaction's, else a pooled one
WRITE_OPS = ("add", "update", "supersede")
AUTO_SOURCES = ("auto", "ai")
_JOURNAL_COLUMNS = "op, memory_id, time, before, after, path_before, path_after, detail"


def _json(value: Any) -> Any:
    from psycopg.types.json import Jsonb

    return Jsonb(value, dumps=lambda v: json.dumps(v, ensure_ascii=False, default=str))


class PostgresJournal:
    """One row per mutation, never updated or deleted (a trigger refuses both)."""

    def __init__(self, connect: Connect) -> None:
        self._connect = connect

    def append(self, op: str, memory_id: str, before: str | None, after: str | None, *,
               actor: str | None = None, **detail: Any) -> JournalEntry:
        """Record one mutation by `actor` (in the caller's transaction, when there is one)."""
        paths = {k: detail.pop(k) for k in ("path_before", "path_after") if k in detail}
        detail["actor"] = actor
        entry = JournalEntry(op=op, id=memory_id, time=format_timestamp(now()), before=before, after=after,
                             detail={k: v for k, v in detail.items() if v is not None}, **paths)
        with self._connect() as conn:
            conn.execute(
                f"INSERT INTO memctl_journal ({_JOURNAL_COLUMNS}, mentions, session, source, owner) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (entry.op, entry.id, entry.time, entry.before, entry.after, entry.path_before, entry.path_after,
                 _json(entry.detail), sorted(entry.mentions()), _text(entry.detail.get("session")),
                 _text(entry.detail.get("source")), _text(entry.detail.get("owner"))))
        return entry

    def read(self, memory_id: str | None = None) -> list[JournalEntry]:
        """Every entry (or those about one memory, by id or named in the detail), oldest first."""
        where, params = ("WHERE memory_id = %s OR mentions @> ARRAY[%s]", (memory_id, memory_id)) if memory_id else ("", ())
        with self._connect() as conn:
            rows = conn.execute(f"SELECT {_JOURNAL_COLUMNS} FROM memctl_journal {where} ORDER BY seq", params).fetchall()
        return [_entry(row) for row in rows]

    def auto_writes(self, session: str | None, since: str, until: str, owner: str | None = None) -> int:
        """Automatic writes within (since, until]: of `owner`'s session (detail's session_of), or
        (session None) of `owner` with no session."""
        mine = ("session = %(s)s AND detail->>'session_of' = %(o)s" if session is not None
                else "session IS NULL AND owner IS NOT DISTINCT FROM %(o)s")
        with self._connect() as conn:
            row = conn.execute(f"SELECT count(*) FROM memctl_journal WHERE {mine} AND time > %(since)s "
                               "AND time <= %(until)s AND op = ANY(%(ops)s) AND source = ANY(%(auto)s)",
                               {"s": session, "o": owner, "since": since, "until": until, "ops": list(WRITE_OPS),
                                "auto": list(AUTO_SOURCES)}).fetchone()
        return int(row[0])

    def session_writes(self, session: str, since: str, owner: str) -> list[tuple[str, int | None]]:
        """(time, turn_at) of the explicit (not automatic) writes made in `owner`'s session from `since` on."""
        with self._connect() as conn:
            found = conn.execute("SELECT time, detail FROM memctl_journal WHERE session = %s AND time >= %s "
                                 "AND detail->>'session_of' = %s "
                                 "AND op = ANY(%s) AND (source IS NULL OR NOT source = ANY(%s)) ORDER BY seq",
                                 (session, since, owner, list(WRITE_OPS), list(AUTO_SOURCES))).fetchall()
        return [(time, _turn_at(detail)) for time, detail in found]


def _turn_at(detail: Any) -> int | None:
    value = detail.get("turn_at") if isinstance(detail, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _entry(row: tuple[Any, ...]) -> JournalEntry:
    op, memory_id, time, before, after, path_before, path_after, detail = row
    return JournalEntry(op=op, id=memory_id, time=time, before=before, after=after, path_before=path_before,
                        path_after=path_after, detail=detail or {})


class PostgresUsage:
    """Usage statistics by id (recall never rewrites a memory row)."""

    def __init__(self, connect: Connect) -> None:
        self._connect = connect

    def record(self, ids: Sequence[str], at: datetime, session: str | None) -> None:
        """Count one use of each id; ids in a fixed order, so concurrent recalls never deadlock. Not
        waited for on disk (synchronous_commit off): a crash loses at most the last few counts."""
        ids = sorted(set(ids))
        if not ids:
            return
        # One round trip: the statements are pipelined (a recall waits for its usage to be counted).
        with self._connect() as conn, conn.pipeline(), conn.transaction():
            conn.execute("SET LOCAL synchronous_commit TO OFF")
            conn.execute(
                "INSERT INTO memctl_usage AS u (id, count, last_used, sessions) "
                "SELECT i, 1, %(at)s, CASE WHEN %(s)s::text IS NULL THEN '{}'::text[] ELSE ARRAY[%(s)s::text] END "
                "FROM unnest(%(ids)s::text[]) AS i ORDER BY i "
                "ON CONFLICT (id) DO UPDATE SET count = u.count + 1, last_used = excluded.last_used, "
                "sessions = CASE WHEN %(s)s::text IS NULL OR %(s)s::text = ANY(u.sessions) THEN u.sessions "
                "ELSE u.sessions || %(s)s::text END",
                {"at": format_timestamp(at), "s": session, "ids": ids})

    def read(self) -> dict[str, dict[str, Any]]:
        """Every memory's usage record, by id."""
        with self._connect() as conn:
            rows = conn.execute("SELECT id, count, last_used, sessions FROM memctl_usage").fetchall()
        return {i: {"count": c, "last_used": last, "sessions": list(s)} for i, c, last, s in rows}


class PostgresCompactions:
    """Compaction records, one row per plan."""

    def __init__(self, connect: Connect) -> None:
        self._connect = connect

    def save(self, record: dict[str, Any]) -> None:
        """Store a record, replacing the one with its plan_id."""
        with self._connect() as conn:
            conn.execute("INSERT INTO memctl_compactions VALUES (%s, %s) ON CONFLICT (plan_id) "
                         "DO UPDATE SET record = excluded.record", (record["plan_id"], _json(record)))

    def last(self) -> dict[str, Any] | None:
        """The newest record (plan ids sort by time), or None."""
        with self._connect() as conn:
            row = conn.execute("SELECT record FROM memctl_compactions ORDER BY plan_id COLLATE \"C\" DESC LIMIT 1").fetchone()
        return dict(row[0]) if row else None


class PostgresTranscripts:
    """Conversation transcripts (one row per message line) and their extraction watermarks."""

    def __init__(self, connect: Connect) -> None:
        self._connect = connect

    def _lines(self, user: str, session: str) -> Iterator[str]:
        with self._connect() as conn:
            rows = conn.execute('SELECT line FROM memctl_transcripts WHERE "user" = %s AND session = %s ORDER BY seq',
                                (user, session)).fetchall()
        return (line for (line,) in rows)

    def raw(self, user: str, session: str) -> bytes | None:
        """The transcript as the JSON Lines file would hold it, or None when it has no message yet."""
        lines = list(self._lines(user, session))
        return "".join(line + "\n" for line in lines).encode("utf-8") if lines else None

    def count(self, user: str, session: str) -> int:
        """Messages so far."""
        with self._connect() as conn:
            row = conn.execute('SELECT count(*) FROM memctl_transcripts WHERE "user" = %s AND session = %s',
                               (user, session)).fetchone()
        return int(row[0])

    def append(self, user: str, session: str, message: dict[str, Any]) -> None:
        """Append one message."""
        with self._connect() as conn:
            conn.execute('INSERT INTO memctl_transcripts ("user", session, line) VALUES (%s, %s, %s)',
                         (user, session, json.dumps(message, ensure_ascii=False)))

    def read_state(self, user: str, session: str) -> dict[str, Any]:
        """The watermark record; empty when nothing was extracted yet."""
        with self._connect() as conn:
            row = conn.execute('SELECT state FROM memctl_transcript_state WHERE "user" = %s AND session = %s',
                               (user, session)).fetchone()
        return dict(row[0]) if row and isinstance(row[0], dict) else {}

    def write_state(self, user: str, session: str, state: dict[str, Any]) -> None:
        """Move the watermark."""
        with self._connect() as conn:
            conn.execute('INSERT INTO memctl_transcript_state VALUES (%s, %s, %s) ON CONFLICT ("user", session) '
                         "DO UPDATE SET state = excluded.state", (user, session, _json(state)))
