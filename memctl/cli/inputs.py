"""What the CLI reads from outside the memory directory: TEXT or stdin, files the user names, $EDITOR."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from memctl.errors import InvalidMemory, UsageError


def decode(data: bytes, what: str) -> str:
    """Bytes to text (a UTF-8 BOM is dropped); non-UTF-8 input is a usage error, never a crash."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidMemory(f"{what} is not UTF-8 text (byte {exc.start})", code="not_utf8") from None


def read_text(text: str | None) -> str:
    """The TEXT argument; `-`, or no TEXT with input piped in, reads stdin."""
    if text is not None and text != "-":
        return text
    if text is None and sys.stdin.isatty():
        raise UsageError("give the text as an argument, or pipe it in (or pass - to read stdin)", code="no_text")
    return decode(sys.stdin.buffer.read(), "stdin")


def read_input(name: str) -> str:
    """The text of FILE, or of stdin for `-`; missing files and non-UTF-8 bytes are usage errors."""
    if name == "-":
        return decode(sys.stdin.buffer.read(), "stdin")
    try:
        return decode(Path(name).read_bytes(), name)
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror}", code="bad_input") from None


def edit_in_editor(body: str) -> str:
    """The body after the user edited it in $VISUAL / $EDITOR (a temp file outside the memory directory)."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise UsageError("nothing to change: give --set or --body, or set $EDITOR", code="no_edit")
    with tempfile.NamedTemporaryFile("w+", suffix=".md", delete=False, encoding="utf-8") as handle:
        handle.write(body + "\n")
    try:
        if subprocess.call([*shlex.split(editor), handle.name]) != 0:
            raise UsageError("the editor exited with an error; nothing changed", code="editor_failed")
        return Path(handle.name).read_text(encoding="utf-8")
    finally:
        os.unlink(handle.name)
