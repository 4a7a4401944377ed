"""The domains constraints bite in, as memctl ships them (memctl/data/constraints.toml; read by
policy/constraints.py). memctl's own file, never one from a memory folder."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

SHIPPED = Path(__file__).resolve().parent.parent / "data" / "constraints.toml"


def shipped_tables() -> dict[str, Any]:
    """The shipped constraints.toml, parsed."""
    return tomllib.loads(SHIPPED.read_text(encoding="utf-8"))
