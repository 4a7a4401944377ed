"""Other stores' memories as import candidates: mem0 exports, MemoryService rows, Claude Code topic files.

Each becomes a `CandidateIn` (content, owner, type, the source's own timestamps) with a reference to
where it came from (`mem0:<id>`, `memoryservice:<id>`, `claude:<project>/<file>`), kept in the new
memory's `source_ids` so a second import recognises what it already took. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from memctl.core import jsonsafe
from memctl.core.models import Memory
from memctl.services.imports import CandidateIn, candidate_from

Entry = tuple[str, "CandidateIn | str"]  # (reference, candidate or why it is unusable)
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def snake_keys(row: dict[str, Any]) -> dict[str, Any]:
    """`userId` -> `user_id`, `createdAt` -> `created_at` (the old MemoryService and mem0's JS SDK)."""
    return {_CAMEL.sub(r"_\1", str(k)).lower(): v for k, v in row.items()}


def _digest(*parts: Any) -> str:
    return hashlib.sha256("\0".join(str(p) for p in parts).encode()).hexdigest()[:12]


def _candidate(ref: str, raw: dict[str, Any]) -> Entry:
    """Validate one mapped candidate; a bad one becomes its message (counted as refused)."""
    raw = {k: v for k, v in raw.items() if v not in (None, "", [], {})}
    raw.setdefault("source_ids", []).append(ref)
    try:
        return ref, candidate_from(raw)
    except ValueError as exc:
        return ref, str(exc)


def parse_json_or_lines(text: str) -> Any:
    """A JSON document, else JSON Lines (a list of what each non-blank line holds); ValueError otherwise."""
    try:
        return jsonsafe.loads(text)
    except ValueError:  # not one document (or a number int() refuses: each line says which)
        pass
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                items.append(jsonsafe.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"line {number}: not JSON ({exc.msg})") from None
            except ValueError as exc:  # int() refuses a number of thousands of digits
                raise ValueError(f"line {number}: not JSON ({exc})") from None
    return items


def mem0_items(data: Any) -> list[Any]:
    """The memories of a mem0 `get_all` / export document: `{"results": [...]}`, `{"memories": [...]}` or a list."""
    if isinstance(data, dict):
        for key in ("results", "memories"):
            if isinstance(data.get(key), list):
                return data[key]
    if isinstance(data, list):
        return data
    raise ValueError('expected mem0 JSON: {"results": [...]} or a list of memories')


def mem0_candidates(data: Any) -> list[Entry]:
    """mem0 memories: `memory` is the content, `user_id` the user (else `agent_id` a project),
    `created_at`/`updated_at` the dates; `categories` become tags; the rest is kept under `mem0`."""
    out: list[Entry] = []
    for number, item in enumerate(mem0_items(data), start=1):
        if not isinstance(item, dict):
            out.append((f"mem0:#{number}", f"item {number} is not an object"))
            continue
        row = snake_keys(item)
        content = row.get("memory") or row.get("text") or row.get("data")
        ref = f"mem0:{row.get('id') or _digest(row.get('user_id'), content)}"
        if not isinstance(content, str) or not content.strip():
            out.append((ref, f"item {number} has no memory text"))
            continue
        metadata: dict[str, Any] = row["metadata"] if isinstance(row.get("metadata"), dict) else {}
        kept = {k: row[k] for k in ("agent_id", "run_id", "app_id", "hash") if row.get(k)}
        if metadata:
            kept["metadata"] = metadata
        out.append(_candidate(ref, {
            "content": content, "type": metadata.get("type"), "user": row.get("user_id"),
            "project": None if row.get("user_id") else row.get("agent_id"),
            "created": row.get("created_at"), "updated": row.get("updated_at"), "source": "mem0",
            "tags": [str(c) for c in row.get("categories") or [] if isinstance(c, str)],
            "extra": {"mem0": kept} if kept else None}))
    return out


def _metadata(value: Any) -> Any:
    if isinstance(value, str) and value.strip():
        try:
            return jsonsafe.loads(value)
        except ValueError:
            return value
    return value or None


def memoryservice_candidates(rows: list[dict[str, Any]], configured: tuple[str, ...]) -> list[Entry]:
    """MemoryService rows (`structured_memories`, snake or camel case): the category is the type (the
    `categories` preset's names, mapped onto the configured types; an unconfigured one is also kept as
    `category`), `sub_type` the subtype, `group_id` the project, `user_id` the user."""
    out: list[Entry] = []
    for number, raw in enumerate(rows, start=1):
        row = snake_keys(raw)
        category = str(row.get("category") or "") or None
        ref = f"memoryservice:{row.get('id') or _digest(row.get('user_id'), row.get('group_id'), row.get('content'))}"
        extra = {"category": category} if category and category not in configured else {}
        if _metadata(row.get("metadata")) is not None:
            extra["metadata"] = _metadata(row.get("metadata"))
        user, group = row.get("user_id"), row.get("group_id")
        out.append(_candidate(ref, {
            "content": row.get("content"), "type": category, "subtype": row.get("sub_type"),
            "user": None if user is None else str(user), "project": None if group is None else str(group),
            "confidence": row.get("confidence"), "source": row.get("source") or "memoryservice",
            "created": row.get("created_at"), "updated": row.get("updated_at"), "extra": extra or None}))
        if isinstance(out[-1][1], str):
            out[-1] = (out[-1][0], f"row {number}: {out[-1][1]}")
    return out


def claude_candidates(memories: list[Memory], owner_given: bool) -> list[Entry]:
    """A Claude Code folder's active topic files, with their names, descriptions and dates. They belong
    to the folder's project unless --user / --project says otherwise."""
    out: list[Entry] = []
    for memory in memories:
        if memory.status != "active":
            continue
        mine = memory.scope == "project" and not memory.user
        out.append(_candidate(f"claude:{memory.project or memory.user}/{memory.path}", {
            "content": memory.body, "type": memory.type, "subtype": memory.subtype, "name": memory.name,
            "description": memory.description, "confidence": memory.confidence, "source": memory.source,
            "tags": memory.tags, "key": memory.key, "created": memory.created, "updated": memory.updated,
            "user": memory.user, "project": None if owner_given and mine else memory.project,
            "extra": memory.extra or None}))
    return out
