"""Import whoosh without paying for urllib.request.

whoosh.compat does `from urllib.request import urlretrieve` at import time, which pulls in
http.client and the email package: about 20 ms of every `memctl recall`, for a function whoosh
only uses to download files, which memctl never does. While whoosh.compat is imported, a stand-in
module offers a `urlretrieve` that imports the real one on first call; the stand-in is then
removed from sys.modules, so any later `import urllib.request` gets the real module.
"""

from __future__ import annotations

import sys
import types
from typing import Any


def _urlretrieve(*args: Any, **kwargs: Any) -> Any:
    from urllib.request import urlretrieve

    return urlretrieve(*args, **kwargs)


def quiet_import() -> None:
    """Import whoosh.compat with the stand-in in place (a no-op once whoosh is loaded)."""
    if "whoosh.compat" in sys.modules or "urllib.request" in sys.modules:
        return
    stand_in = types.ModuleType("urllib.request")
    stand_in.urlretrieve = _urlretrieve  # type: ignore[attr-defined]
    sys.modules["urllib.request"] = stand_in
    try:
        import whoosh.compat  # noqa: F401
    finally:
        if sys.modules.get("urllib.request") is stand_in:
            del sys.modules["urllib.request"]
