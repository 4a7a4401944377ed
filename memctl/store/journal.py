"""The append-only journal of every mutation (`.memctl/journal.jsonl`): op, id, time, hashes."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from pathlib import Path

from memctl.clock import format_timestamp, now
from memctl.core.models import JournalEntry
from memctl.errors import StoreError
from memctl.store.files import append_line, own_folder, read_tail

MAX_JOURNAL_BYTES = 64 * 1024 * 1024  # read at most this much of the end: the journal is data, read bounded
MAX_LINE_BYTES = 256 * 1024  # an entry holds hashes and a few fields; a longer line is not memctl's


class Journal:
    """One JSON line per mutation, fsynced; unreadable lines are skipped on reading."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # (inode, bytes parsed, their entries) of the last whole read: the next reads only what was appended
        self._seen: tuple[int, int, list[JournalEntry]] | None = None

    def append(self, op: str, memory_id: str, before: str | None, after: str | None, *,
               actor: str | None = None, durable: bool = True, **detail: object) -> JournalEntry:
        """Record one mutation by `actor` (path_before / path_after are top-level fields, the rest detail);
        `durable` False leaves the fsync to the caller (a lock hold syncs its lines once, as it ends)."""
        paths = {k: detail.pop(k) for k in ("path_before", "path_after") if k in detail}
        detail["actor"] = actor
        entry = JournalEntry(op=op, id=memory_id, time=format_timestamp(now()), before=before, after=after,
                             detail={k: v for k, v in detail.items() if v is not None}, **paths)  # type: ignore[arg-type]
        own_folder(self.path.parent)
        append_line(self.path, json.dumps(entry.model_dump(exclude_none=True), ensure_ascii=False, sort_keys=True),
                    durable=durable)
        return entry

    def read(self) -> list[JournalEntry]:
        """Every entry, oldest first (of the last MAX_JOURNAL_BYTES); unreadable lines are skipped.
        What this object read before is kept: a journal that only grew is read from where it ended."""
        own_folder(self.path.parent, create=False)
        try:
            grown = self._read_grown()
            if grown is not None:
                return grown
            data = read_tail(self.path, MAX_JOURNAL_BYTES)
        except FileNotFoundError:
            self._seen = None
            return []
        except OSError as exc:
            raise StoreError(f"cannot read the journal {self.path}: {exc.strerror or exc}", code="journal") from None
        end = data.rfind(b"\n") + 1
        whole = _parse(data[:end])
        with contextlib.suppress(OSError):
            st = os.stat(self.path)
            if st.st_size == len(data) < MAX_JOURNAL_BYTES:  # the whole file: the next read starts at its end
                self._seen = (st.st_ino, end, whole)
        return whole + _parse(data[end:])

    def _read_grown(self) -> list[JournalEntry] | None:
        """The entries when the file is the one read last and has only grown (None otherwise)."""
        seen = self._seen
        if seen is None:
            return None
        inode, offset, entries = seen
        fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", str(self.path))
            if st.st_ino != inode or st.st_size < offset or st.st_size > MAX_JOURNAL_BYTES:
                return None
            os.lseek(fd, offset, os.SEEK_SET)
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
        finally:
            os.close(fd)
        data = b"".join(chunks)
        end = data.rfind(b"\n") + 1
        if end:
            entries = entries + _parse(data[:end])
            self._seen = (inode, offset + end, entries)
        return entries + _parse(data[end:])


def _parse(data: bytes) -> list[JournalEntry]:
    entries = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        if len(line) <= MAX_LINE_BYTES:
            with contextlib.suppress(ValueError):
                entries.append(JournalEntry.model_validate_json(line))
    return entries
