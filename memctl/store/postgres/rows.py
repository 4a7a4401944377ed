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

COLUMNS = ("id", "path", "owner", *(f for f in FIELD_ORDER if f != "id"), "body", "extra", "content_hash")
SELECT_COLUMNS = ", ".join(f'm."{c}"' for c in COLUMNS)  # quoted: "user" is a keyword in SQL
_PLAIN = (str, int, float, bool, type(None))


def file_text(memory: Memory) -> str:
    """The memory as the file a folder would hold (the journal's hashes and exports use it)."""
    from memctl.core.fileformat import serialise_memory  # yaml: only paid by writers and exports

    return serialise_memory(memory)


def _json_safe(value: Any, where: str) -> Any:
    """Unknown keys hold YAML's plain values; NaN and infinities have no JSON form, so they are refused."""
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidMemory(f"unknown key {where!r} holds {value}, which the PostgreSQL store cannot keep")
    if isinstance(value, dict):
        return {str(k): _json_safe(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v, where) for v in value]
    if not isinstance(value, _PLAIN):
        return str(value)
    return value


def to_row(memory: Memory, path: str) -> dict[str, Any]:
    """Column values for `memory` stored at `path`."""
    from psycopg.types.json import Json

    data = memory.model_dump(exclude={"path", "extra"})
    data.update(id=memory.id, path=path, owner=memory.owner,
                extra=Json({k: _json_safe(v, k) for k, v in memory.extra.items()}, dumps=_dumps))
    stored = memory.model_copy(update={"path": path})
    data["content_hash"] = content_hash(file_text(stored))
    return data


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def from_row(row: tuple[Any, ...]) -> Memory:
    """The Memory of a row selected with SELECT_COLUMNS; InvalidMemory if the row does not validate
    (changed by hand in the database), so a reader can report it and skip it."""
    data = dict(zip(COLUMNS, row))
    path = data.pop("path")
    data.pop("owner"), data.pop("content_hash")
    data = {k: v for k, v in data.items() if v is not None}
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
