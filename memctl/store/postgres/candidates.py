"""The memories a recall may see, as SQL: a mapping id -> handle that never loads them all.

`PostgresRepository.candidates` returns a `CandidatePool`: the filter's WHERE clause and its
parameters. The PostgreSQL search runs its queries inside that clause and leaves the rows it found
in `rows`, so a recall loads its hits without another query; membership, length and iteration
ask the database only when something needs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any

from memctl.core.models import Memory

Connect = Callable[[], AbstractContextManager[Any]]


class CandidatePool(Mapping[str, str]):
    """id -> handle (the id itself) of the memories passing one filter."""

    def __init__(self, connect: Connect, where: str, params: dict[str, Any]) -> None:
        self.where = where
        self.params = params
        self.rows: dict[str, Memory] = {}  # memories the search already fetched, by id
        self._connect = connect
        self._known: dict[str, bool] = {}
        self._count: int | None = None

    def _query(self, select: str, extra: str = "", params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        with self._connect() as conn:
            sql = f"SELECT {select} FROM memctl_memories m WHERE {self.where}{extra}"
            return conn.execute(sql, {**self.params, **(params or {})}).fetchall()

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        if key in self.rows:
            return True
        if key not in self._known:
            self._known[key] = bool(self._query("1", " AND m.id = %(pool_id)s", {"pool_id": key}))
        return self._known[key]

    def __getitem__(self, key: str) -> str:
        if key in self:
            return key
        raise KeyError(key)

    def __len__(self) -> int:
        if self._count is None:
            self._count = int(self._query("count(*)")[0][0])
        return self._count

    def __iter__(self) -> Iterator[str]:
        ids = [row[0] for row in self._query("m.id", ' ORDER BY m.id COLLATE "C"')]
        self._known.update(dict.fromkeys(ids, True))
        return iter(ids)

    def remember(self, memories: list[Memory]) -> None:
        """Rows a search fetched within this filter: members, and loaded."""
        self.rows.update((m.id, m) for m in memories)
