"""What the retrievers share: one recall call and the metadata of a hit (no framework imported)."""

from __future__ import annotations

import threading
from typing import Any

from memctl.core.models import Hit

_LOCK = threading.Lock()  # a MemoryStore is not thread-safe; frameworks call retrievers from worker threads


def recall_hits(memory: Any, query: str, user: str | None, project: str | None, k: int | None) -> list[Hit]:
    """The hits of memctl's recall for a user and/or project, best first."""
    with _LOCK:
        result = memory.recall(query, users=[user] if user else [], projects=[project] if project else [], k=k)
    hits: list[Hit] = result.hits
    return hits


def hit_metadata(hit: Hit) -> dict[str, Any]:
    """A hit's fields for a framework's metadata (JSON types only, no None)."""
    data = {"id": hit.id, "type": hit.type, "scope": hit.scope, "user": hit.user, "project": hit.project,
            "session": hit.session, "relevance": hit.relevance, "score": hit.score,
            "created": hit.created.isoformat() if hit.created else None, "occurred": hit.occurred}
    return {name: value for name, value in data.items() if value is not None}
