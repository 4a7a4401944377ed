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
    from typing import Any

__all__ = ["MemoryStore", "__version__", "init_directory", "open"]


def open(path: Any = None, **kwargs: Any) -> Any:  # noqa: A001 (mirrors the builtin on purpose)
    """Open a memory directory: `path`, else MEMCTL_DIR, else the nearest ancestor holding memctl.toml."""
    from memctl.api import MemoryStore

    return MemoryStore.open(path, **kwargs)


def __getattr__(name: str) -> Any:
    if name in ("MemoryStore", "init_directory"):
        from memctl import api
        return getattr(api, name)
    raise AttributeError(f"module 'memctl' has no attribute {name!r}")
