"""What the CLI reads from outside the memory directory: TEXT or stdin, files the user names, $EDITOR."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from memctl.errors import InvalidMemory, UsageError

# stdin once read, with the stream it came from: a forwarded command that falls back in-process
# reads it again (and a test runner that swaps sys.stdin gets a fresh read)
_stdin: list[tuple[object, bytes]] = []


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
    if text is None and not _already_read() and sys.stdin.isatty():
        raise UsageError("give the text as an argument, or pipe it in (or pass - to read stdin)", code="no_text")
    return decode(stdin_bytes(), "stdin")


def stdin_bytes() -> bytes:
    """All of stdin, read once (later calls get the same bytes)."""
    if not _already_read():
        _stdin[:] = [(sys.stdin, sys.stdin.buffer.read())]
    return _stdin[0][1]


def _already_read() -> bool:
    return bool(_stdin) and _stdin[0][0] is sys.stdin


def read_input(name: str) -> str:
    """The text of FILE, or of stdin for `-`; missing files and non-UTF-8 bytes are usage errors."""
    if name == "-":
        return decode(stdin_bytes(), "stdin")
    try:
        return decode(Path(name).read_bytes(), name)
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror}", code="bad_input") from None


def edit_in_editor(body: str) -> str:
    """The body after the user edited it in $VISUAL / $EDITOR (a temp file outside the memory directory)."""
    import shlex  # only an edit needs these: the commands that read TEXT start faster without them
    import subprocess
    import tempfile

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
