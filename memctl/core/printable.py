"""Text as it may be shown: terminal escape and control sequences taken out (newlines and tabs kept).

A memory's text comes from a shared folder: `\\x1b[2J` or an OSC title sequence in it must reach
neither a terminal (cli/output.py) nor a generated file someone will `cat` (MEMORY.md, the context
block). Only `re`: the CLI's start-up imports this.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` with terminal escape and control sequences removed (newlines and tabs kept)."""
    return _CONTROL.sub("", text)
