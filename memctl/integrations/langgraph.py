"""memctl as LangGraph's long-term memory: `MemctlStore`, a `langgraph.store.base.BaseStore`.

Namespaces are memctl's owners: `("users", NAME)` and `("projects", NAME)` (any other namespace is
an InvalidNamespaceError). An item's key is the memory's `key` field (a memory written elsewhere,
with no key, shows under its id). A value `{"content": TEXT, ...}` whose other entries are memory
fields (VALUE_FIELDS: type, tags, kind, fields...) is stored as those fields; any other value is
stored as its JSON and read back as it was put. Every put goes through the gate and the write
decision: a refusal raises memctl.errors.Refused, nothing is dropped. A put to a key that exists
edits that memory (an agent's correction, through the gate); a delete forgets it (archived, as
`memctl forget`). Search with a query is memctl's recall; without one, the memories newest first.
TTLs are not supported (memctl expires memories by their own `ttl`/`expires` fields).

    from memctl.api import MemoryStore
    from memctl.integrations.langgraph import MemctlStore
    store = MemctlStore(MemoryStore.open("~/mem"))
    store.put(("users", "alice"), "seat", {"content": "Alice prefers window seats", "type": "preference"})
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Iterable, Mapping

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from memctl.api import MemoryStore
from memctl.core import jsonsafe
from memctl.core.models import Memory

KINDS = {"users": "user", "projects": "project"}  # a namespace's first label -> the owner it names
# Entries of a value beside "content" that are memory fields (the add/edit arguments of the same name).
VALUE_FIELDS = ("type", "subtype", "kind", "fields", "tags", "confidence", "importance", "occurred", "state",
                "valid_until", "name", "description")
SEARCH_POOL = 1000  # memories a filtered search looks through (the filter applies to their values)


class MemctlStore(BaseStore):
    """A LangGraph BaseStore over a MemoryStore; calls run one at a time (the store is not thread-safe).
    `source` is what the writes record as their source (an agent's: "ai")."""

    supports_ttl = False

    def __init__(self, memory: MemoryStore, *, source: str = "ai") -> None:
        self.memory = memory
        self.source = source
        self._lock = threading.Lock()

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order; each one's result in its place (None for a put)."""
        with self._lock:
            return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """batch, in a worker thread."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise TypeError(f"unknown store operation {type(op).__name__}")

    # -- get / put / delete ------------------------------------------------------------------
    def _get(self, op: GetOp) -> Item | None:
        memory = self._find(op.namespace, op.key)
        return None if memory is None else Item(**_fields(memory))

    def _find(self, namespace: tuple[str, ...], key: str) -> Memory | None:
        owner = _owner(namespace)
        memory = self.memory.by_key(key, **owner)
        if memory is None:  # a memory written elsewhere shows under its id
            memory = next((m for m in self._by_id(key) if _namespace(m) == namespace), None)
        return memory

    def _by_id(self, key: str) -> list[Memory]:
        from memctl.errors import MemctlError

        try:
            memory = self.memory.get(key)
        except MemctlError:
            return []
        return [memory] if memory.id == key and self.memory.is_active(memory) else []

    def _put(self, op: PutOp) -> None:  # a refusal raises (memctl.errors.Refused): nothing is dropped
        if op.ttl is not None:
            raise NotImplementedError("MemctlStore does not support ttl: give the memory a ttl field instead")
        existing = self._find(op.namespace, op.key)
        if op.value is None:
            if existing is not None:
                self.memory.forget(existing.id, reason="deleted through the LangGraph store")
            return
        text, fields = to_memory(op.value)
        if existing is None:
            arguments: dict[str, Any] = {**_owner(op.namespace), **fields}
            self.memory.add(text, key=op.key, source=self.source, **arguments)
        else:
            sets = {name: json.dumps(value) for name, value in fields.items()}
            self.memory.edit(existing.id, sets, text, agent=True)

    # -- search and namespaces ---------------------------------------------------------------
    def _search(self, op: SearchOp) -> list[SearchItem]:
        scope = _scope(op.namespace_prefix)
        if scope is None:
            return []
        want = op.offset + op.limit
        pool = SEARCH_POOL if op.filter else min(want, SEARCH_POOL)
        if op.query:
            result = self.memory.recall(op.query, k=pool, record_usage=False, **scope)
            found = [(hit.memory, hit.relevance) for hit in result.hits if hit.memory is not None]
        else:
            found = [(m, None) for m in self._newest(scope, pool)]
        items = [_item(m, score) for m, score in found if _under(m, op.namespace_prefix)]
        if op.filter:
            items = [item for item in items if matches(item.value, op.filter)]
        return items[op.offset:want]

    def _newest(self, scope: dict[str, Any], limit: int) -> list[Memory]:
        """The newest memories of a scope (a user's come with their projects': all, to keep her own)."""
        users, projects = scope.get("users", ("",)), scope.get("projects", ("",))
        return self.memory.list(user=users[0] or None, project=projects[0] or None, sort="created",
                                newest_first=True, limit=0 if scope else limit)

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = [tuple(owner.split("/", 1)) for owner in self.memory.owners()]
        kept = [ns for ns in found if all(_matches(ns, c) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            kept = [ns[:op.max_depth] for ns in kept]
        return sorted(set(kept))[op.offset:op.offset + op.limit]


def to_memory(value: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """A value as (the memory's text, its other fields): a content value as its fields, any other as JSON."""
    content = value.get("content")
    if isinstance(content, str) and set(value) - {"content"} <= set(VALUE_FIELDS) and not _json_object(content):
        return content, {name: value[name] for name in VALUE_FIELDS if name in value}
    return json.dumps(dict(value), ensure_ascii=False, sort_keys=True), {}


def to_value(memory: Memory) -> dict[str, Any]:
    """The value of a memory: the JSON it was put as, else its content and the memory fields it has."""
    stored = _json_object(memory.body)
    if stored is not None:
        return stored
    value: dict[str, Any] = {"content": memory.body, "type": memory.type}
    for name in VALUE_FIELDS[1:]:
        field = getattr(memory, name)
        if field not in (None, [], {}) and name != "confidence":
            value[name] = field.isoformat() if hasattr(field, "isoformat") else field
    return value


def matches(value: Mapping[str, Any], condition: Mapping[str, Any]) -> bool:
    """LangGraph's filter: each entry equal, or {"$eq" | "$ne" | "$gt" | "$gte" | "$lt" | "$lte": x}."""
    for name, wanted in condition.items():
        have = value.get(name)
        tests = wanted.items() if isinstance(wanted, dict) else [("$eq", wanted)]
        if not all(_compare(have, op, x) for op, x in tests):
            return False
    return True


def _compare(have: Any, op: str, wanted: Any) -> bool:
    if op == "$eq":
        return bool(have == wanted)
    if op == "$ne":
        return bool(have != wanted)
    if op not in ("$gt", "$gte", "$lt", "$lte"):
        raise ValueError(f"unknown filter operator {op!r} ($eq, $ne, $gt, $gte, $lt, $lte)")
    try:
        return bool({"$gt": have > wanted, "$gte": have >= wanted, "$lt": have < wanted,
                     "$lte": have <= wanted}[op]) if have is not None else False
    except TypeError:
        return False


def _json_object(text: str) -> dict[str, Any] | None:
    if not text.startswith("{"):
        return None
    try:
        data = jsonsafe.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _owner(namespace: tuple[str, ...]) -> dict[str, str]:
    """{"user": NAME} or {"project": NAME} of a namespace ("users", NAME) or ("projects", NAME)."""
    if len(namespace) != 2 or namespace[0] not in KINDS:
        raise InvalidNamespaceError(f"namespace {namespace!r}: memctl's are ('users', NAME) and ('projects', NAME)")
    return {KINDS[namespace[0]]: namespace[1]}


def _scope(prefix: tuple[str, ...]) -> dict[str, Any] | None:
    """recall's scope arguments for a namespace prefix; None when no memctl namespace starts so."""
    if not prefix:
        return {}
    if prefix[0] not in KINDS or len(prefix) > 2:
        return None
    scopes = {"scopes": (KINDS[prefix[0]],)}
    return {**scopes, prefix[0]: (prefix[1],)} if len(prefix) == 2 else scopes


def _namespace(memory: Memory) -> tuple[str, ...]:
    return tuple(memory.owner.split("/", 1))


def _under(memory: Memory, prefix: tuple[str, ...]) -> bool:
    return _namespace(memory)[:len(prefix)] == prefix


def _matches(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    part = namespace[:len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path):]
    return all(p in ("*", n) for p, n in zip(path, part))


def _fields(memory: Memory) -> dict[str, Any]:
    return {"namespace": _namespace(memory), "key": memory.key or memory.id, "value": to_value(memory),
            "created_at": memory.created, "updated_at": memory.updated}


def _item(memory: Memory, score: float | None = None) -> SearchItem:
    return SearchItem(**_fields(memory), score=score)
