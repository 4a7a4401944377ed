"""memctl: readable long-term memory for AI agents.

    import memctl
    store = memctl.open("path/to/memory")          # or memctl.open() to find it like the CLI
    store.add("Alice prefers window seats", type="preference", user="alice")
    hits = store.recall("seat", users=["alice"]).hits

Importing the package stays cheap: nothing here pulls in fastembed or whoosh (the names below
are loaded on first use).
"""

from __future__ import annotations

from memctl._version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing takes ~6 ms to import; a command forwarded to a warm server runs without it
    import os
    from typing import Any

    from memctl.api import Embedder, MemoryStore  # the embedder's type as the facade names it (layers)
    from memctl.config import Config

__all__ = ["MemoryStore", "__version__", "init_directory", "open"]


def open(path: str | os.PathLike[str] | None = None, *, config: Config | None = None,  # noqa: A001 (mirrors the builtin)
         embedder: Embedder | None = None, actor: str | None = None) -> MemoryStore:
    """Open a memory directory: `path`, else MEMCTL_DIR, else the nearest ancestor holding memctl.toml
    (MemoryStore.open: the actor is `actor=`, else MEMCTL_ACTOR)."""
    from memctl.api import MemoryStore

    return MemoryStore.open(path, config=config, embedder=embedder, actor=actor)


def __getattr__(name: str) -> Any:
    if name in ("MemoryStore", "init_directory"):
        from memctl import api
        return getattr(api, name)
    raise AttributeError(f"module 'memctl' has no attribute {name!r}")
