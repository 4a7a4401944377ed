"""Group commit: adds that arrive at a warm server together are written together.

A server answers one request at a time under its lock. An add that finds no group forming starts
one: it waits WINDOW seconds with the lock released, so the adds of other requests arriving
meanwhile join the group (each waits for its own result), then it writes the whole group: their
texts embedded in one batch, outside the write lock, and then one write-lock hold for all of them,
each gated and decided exactly as a single add would be, in arrival order (a later member sees the
earlier ones: a repeat within the group is a duplicate, a change supersedes). Each caller gets its
own result, or the error its add alone would have raised.
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, Any, Sequence

from memctl.errors import MemctlError

if TYPE_CHECKING:
    from memctl.services.write import AddRequest, WriteResult, WriteService

WINDOW = 0.004  # seconds a group stays open for more adds (a forwarded add takes ~50 ms to arrive)
LIMIT = 64  # adds written in one group at most; later ones start the next


class _Add:
    """One caller's add and, once the group is written, its outcome."""

    __slots__ = ("done", "error", "kwargs", "result", "text", "writer")

    def __init__(self, writer: "WriteService", text: str, kwargs: dict[str, Any]) -> None:
        self.writer, self.text, self.kwargs = writer, text, kwargs
        self.result: "WriteResult | None" = None
        self.error: BaseException | None = None
        self.done = False

    def outcome(self) -> "WriteResult":
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


class GroupCommit:
    """The adds of concurrent requests, written in groups; `lock` is the one the requests hold."""

    def __init__(self, lock: Any, window: float = WINDOW, limit: int = LIMIT) -> None:
        self._ready = threading.Condition(lock)
        self.window, self.limit = window, limit
        self._open: list[_Add] = []
        self._forming = False
        self.groups = self.adds = 0  # how many groups were written, holding how many adds

    def add(self, writer: "WriteService", text: str, kwargs: dict[str, Any]) -> "WriteResult":
        """Add through a group (the caller holds the lock); the WriteResult, or its add's error."""
        item = _Add(writer, text, kwargs)
        self._open.append(item)
        while not item.done:
            if self._forming:
                self._ready.wait()
            else:  # no group is forming: this add leads the next one
                self._lead()
        return item.outcome()

    def _lead(self) -> None:
        self._forming = True
        try:
            self._ready.wait(self.window)  # the lock is free meanwhile: other adds join
        finally:
            group, self._open = self._open[:self.limit], self._open[self.limit:]
            self._forming = False
        self.groups, self.adds = self.groups + 1, self.adds + len(group)
        try:
            write_group(group)
        finally:
            for member in group:
                if member.result is None and member.error is None:
                    member.error = MemctlError("the add was interrupted; it may not have been written", code="interrupted")
                member.done = True
            self._ready.notify_all()  # the members' callers, and any add left for the next group


def write_group(group: Sequence[_Add]) -> None:
    """Write a group of adds: on a folder through WriteService.add_many (texts embedded together,
    then one write-lock hold), each run of one actor's adds in arrival order; on a database store an
    add at a time (a failed statement would abort one shared transaction, and every member's write
    with it), their texts embedded together first."""
    if not group:
        return
    if callable(getattr(group[0].writer.repo, "in_transaction", None)):
        _one_by_one(group)
        return
    start = 0
    while start < len(group):
        end = start + 1
        while end < len(group) and group[end].writer is group[start].writer:
            end += 1
        run = group[start:end]
        try:
            outcomes: list[Any] = run[0].writer.add_many([_request(item) for item in run], batch=len(run))
        except Exception:  # a request add_many cannot take (a bad field): each add alone says what it is
            _one_by_one(run)
            outcomes = [item.result or item.error for item in run]
        for item, outcome in zip(run, outcomes):
            item.result, item.error = (None, outcome) if isinstance(outcome, BaseException) else (outcome, None)
        start = end


def _request(item: _Add) -> "AddRequest":
    from memctl.services.write import AddRequest

    fields = dict(item.kwargs)
    named = {k: fields.pop(k) for k in ("llm", "rate_session", "surface", "redact", "overrides", "trusted_source")
             if k in fields}
    return AddRequest(text=item.text, fields=fields, **{k: v for k, v in named.items() if v is not None})


def _one_by_one(group: Sequence[_Add]) -> None:
    writer = group[0].writer
    prime = getattr(writer.search, "prime", None)
    if prime is not None:
        with contextlib.suppress(MemctlError):  # each add embeds for itself, and reports a failure as its own
            prime([item.text.strip() for item in group])
    for item in group:
        try:
            item.result = item.writer.add(item.text, **item.kwargs)
        except Exception as exc:  # its own error (a refusal, a bad field): not the group's
            item.error = exc
