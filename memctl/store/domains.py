"""The domains constraints bite in, as memctl ships them (memctl/data/constraints.toml; read by
policy/constraints.py). memctl's own file, never one from a memory folder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SHIPPED = Path(__file__).resolve().parent.parent / "data" / "constraints.toml"


def shipped_tables() -> dict[str, Any]:
    """The shipped constraints.toml, parsed."""
    return tomllib.loads(SHIPPED.read_text(encoding="utf-8"))
