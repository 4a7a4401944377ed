"""Import whoosh without paying for what memctl never calls.

Two whoosh modules import at start-up what only a function memctl never calls needs:
- whoosh.compat does `from urllib.request import urlretrieve`, which pulls in http.client and the
  email package (about 20 ms of every `memctl recall`) for a function whoosh uses to download files;
- whoosh.query.terms does `from whoosh.lang.morph_en import variations`, a module that compiles some
  hundred regular expressions (about 15 ms) for the `Variations` query, which memctl never builds.
While those two are imported, a stand-in module offers the one function, importing the real module on
its first call; the stand-in is then removed from sys.modules, so a later import gets the real one.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from typing import Any, Callable


def _deferred(module: str, name: str) -> Callable[..., Any]:
    """A function that imports `module` on its first call and runs its `name` with the arguments."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(import_module(module), name)(*args, **kwargs)

    return call


@contextmanager
def _stand_in(module: str, name: str) -> Iterator[None]:
    """`module` in sys.modules as a stand-in offering only a deferred `name`, for the block's imports."""
    if module in sys.modules:
        yield
        return
    stand_in = types.ModuleType(module)
    setattr(stand_in, name, _deferred(module, name))
    sys.modules[module] = stand_in
    try:
        yield
    finally:
        if sys.modules.get(module) is stand_in:
            del sys.modules[module]


def quiet_import() -> None:
    """Import whoosh.compat and whoosh.query with the stand-ins in place (a no-op once loaded)."""
    if "whoosh.query" in sys.modules:
        return
    with _stand_in("urllib.request", "urlretrieve"):
        import whoosh.compat
    import whoosh.lang  # the package itself is light; its morph_en submodule is the cost

    with _stand_in("whoosh.lang.morph_en", "variations"):
        import whoosh.query  # noqa: F401
