"""memctl's own record of a memory as one JSON object: what `export --to jsonl` writes and
`import --from jsonl` reads back without loss (every field, the unknown keys under "extra", the path).

A record is the frontmatter's known fields, then `content` (the body) and `path` (relative to the
directory it came from); unknown frontmatter keys go under `extra`, so they can never collide with
memctl's own names.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from memctl.core.models import FIELD_ORDER, Memory
from memctl.errors import InvalidMemory

# Characters JSON leaves raw that a terminal or a line-based reader would take as control or line breaks.
_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029]")


def to_record(memory: Memory) -> dict[str, Any]:
    """A memory as a JSON-ready record."""
    front = memory.frontmatter()
    record: dict[str, Any] = {key: front[key] for key in FIELD_ORDER if key in front}
    if memory.extra:
        record["extra"] = dict(memory.extra)
    record["content"] = memory.body
    record["path"] = memory.path
    return record


def record_line(memory: Memory) -> str:
    """One JSON Lines line: readable (UTF-8, not escaped) and safe to print (no raw control characters)."""
    text = json.dumps(to_record(memory), ensure_ascii=False, default=str)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def is_record(data: Any) -> bool:
    """True for a whole memory (it has an id, a creation time and content), not just a candidate."""
    return isinstance(data, dict) and all(key in data for key in ("id", "created", "content"))


def from_record(data: dict[str, Any], label: str) -> Memory:
    """A record back as a Memory, validated; InvalidMemory with a one-line reason otherwise."""
    fields = dict(data)
    body = fields.pop("content", None)
    path = fields.pop("path", None)
    extra = fields.pop("extra", None) or {}
    if not isinstance(body, str) or not isinstance(extra, dict) or not (path is None or isinstance(path, str)):
        raise InvalidMemory(f"{label}: a record needs text content, an extra mapping and a text path")
    extra = {**extra, **{k: fields.pop(k) for k in list(fields) if k not in FIELD_ORDER}}
    try:
        return Memory(**fields, body=body, extra=extra, path=path)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ())) or "record"
        raise InvalidMemory(f"{label}: {where}: {str(err.get('msg')).removeprefix('Value error, ')}") from None
