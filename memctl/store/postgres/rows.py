"""A memory as a row of memctl_memories and back: the frontmatter fields as columns, unknown keys
as json (in their order), the body as text, plus where its file sits and its content hash."""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import ValidationError

from memctl.core.models import FIELD_ORDER, Memory
from memctl.errors import InvalidMemory
from memctl.store.files import content_hash
from memctl.store.postgres.schema import MEMORY_COLUMNS

COLUMNS = tuple(MEMORY_COLUMNS)
LATER_FIELDS = tuple(f for f in FIELD_ORDER if f not in MEMORY_COLUMNS)  # kept in `later_fields` (json)
JSON_COLUMNS = ("extra", "fields", "later_fields")


def _selected(column: str) -> str:
    """A column as SELECT_COLUMNS reads it: quoted ("user" is a keyword in SQL); an empty json object
    as NULL, which from_row reads as the field's default without parsing it (most rows have three)."""
    if column in JSON_COLUMNS:
        return f'CASE WHEN m."{column}"::text = \'{{}}\' THEN NULL ELSE m."{column}" END AS "{column}"'
    return f'm."{column}"'


SELECT_COLUMNS = ", ".join(_selected(c) for c in COLUMNS)
_PLAIN = (str, int, float, bool, type(None))


def file_text(memory: Memory) -> str:
    """The memory as the file a folder would hold (the journal's hashes and exports use it)."""
    from memctl.core.fileformat import serialise_memory  # yaml: only paid by writers and exports

    return serialise_memory(memory)


def _json_safe(value: Any, where: str) -> Any:
    """Unknown keys and typed fields hold YAML's plain values; NaN and infinities have no JSON form, so they are refused."""
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidMemory(f"key {where!r} holds {value}, which the PostgreSQL store cannot keep")
    if isinstance(value, dict):
        return {str(k): _json_safe(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v, where) for v in value]
    if not isinstance(value, _PLAIN):
        return str(value)
    return value


def to_row(memory: Memory, path: str, check: bool = True) -> dict[str, Any]:
    """Column values for `memory` stored at `path` (`check`: its file text must read back; a bulk
    loader of memories it made itself may skip that)."""
    from psycopg.types.json import Json

    data = memory.model_dump(exclude={"path", "extra"})
    later = {k: data.pop(k) for k in LATER_FIELDS if data.get(k) not in (None, [], {})}
    data = {k: v for k, v in data.items() if k in MEMORY_COLUMNS}
    first, last = period(memory)
    data.update(id=memory.id, path=path, owner=memory.owner, period_first=first, period_last=last,
                extra=Json({k: _json_safe(v, k) for k, v in memory.extra.items()}, dumps=_dumps),
                fields=Json(_json_safe(memory.fields, "fields"), dumps=_dumps),
                later_fields=Json(memory.model_dump(mode="json", include=set(later)), dumps=_dumps),
                content_hash=content_hash(readable_text(memory, path) if check else file_text(memory)))
    return data


def readable_text(memory: Memory, path: str) -> str:
    """The memory's file text, checked to read back (as the folder store checks before writing): a
    memory an export could not read again is never stored."""
    from memctl.core.fileformat import parse_rendered

    text = file_text(memory)
    try:
        parse_rendered(text, memory, path)
    except InvalidMemory as exc:
        raise InvalidMemory(f"memory {memory.id} would not read back ({exc.message}); nothing was written") from None
    return text


def period(memory: Memory) -> tuple[str, str]:
    """First and last second a memory covers, as text timestamps (store/filters.in_period's bounds):
    when it occurred if it says so, else when it was written."""
    from memctl.clock import format_timestamp
    from memctl.core.dates import occurred_bounds

    if memory.occurred:
        return occurred_bounds(str(memory.occurred))
    created = format_timestamp(memory.created)
    return created, created


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def from_row(row: tuple[Any, ...]) -> Memory:
    """The Memory of a row selected with SELECT_COLUMNS; InvalidMemory if the row does not validate
    (changed by hand in the database), so a reader can report it and skip it."""
    data = dict(zip(COLUMNS, row))
    path = data.pop("path")
    for derived in ("owner", "content_hash", "period_first", "period_last"):
        data.pop(derived)
    later = data.pop("later_fields") or {}
    data = {k: v for k, v in data.items() if v is not None}
    data.update({k: v for k, v in later.items() if k in LATER_FIELDS})
    try:
        return Memory(**data, path=path)
    except (ValidationError, TypeError) as exc:
        first = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        raise InvalidMemory(f"{path}: {first}") from None


def insert_sql(table: str = "memctl_memories") -> str:
    """INSERT of every column, with named parameters."""
    names = ", ".join(f'"{c}"' for c in COLUMNS)
    values = ", ".join(f"%({c})s" for c in COLUMNS)
    return f"INSERT INTO {table} ({names}) VALUES ({values})"


def update_sql() -> str:
    """UPDATE of every column but the id, by id."""
    sets = ", ".join(f'"{c}" = %({c})s' for c in COLUMNS if c != "id")
    return f"UPDATE memctl_memories SET {sets} WHERE id = %(id)s"
