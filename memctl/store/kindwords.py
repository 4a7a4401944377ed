"""The words that name each kind, for recall: read from where kinds are declared (the shipped
kinds.toml, `schemas/*.toml`, `[schemas.NAME]`), without validating the kinds' schemas (that costs a
fresh process a tenth of a second: store/kinds.py does it for typed writes and checks), and kept in
`kind-words.json` in the store's cache folder (store/cachedir.py) under the sources' signature, so
a recall reads one small file.

What the cache holds is checked as the TOML is (core/kindwords.py); a cache that does not read, or
that was made from other files, is made again. A kind table that does not read is skipped here
(store/kinds.py reports it).
"""

from __future__ import annotations

import contextlib
import json
import tomllib
from pathlib import Path
from typing import Any, Callable

from memctl._version import __version__
from memctl.core import jsonsafe
from memctl.core.kindwords import check_words
from memctl.store.files import read_bounded, write_atomic

SHIPPED = Path(__file__).resolve().parent.parent / "data" / "kinds.toml"
CACHE_NAME = "kind-words.json"
MAX_FILE_BYTES = 256 * 1024  # as store/kinds.py
MAX_CACHE_BYTES = 1024 * 1024
Words = dict[str, dict[str, list[str]]]  # kind -> language -> words


def declared_words(root: Path | None, schemas: dict[str, Any]) -> Words:
    """Every kind's words, a later declaration of a kind replacing an earlier one."""
    out: Words = {}
    for path in [SHIPPED, *_schema_files(root)]:
        with contextlib.suppress(OSError, ValueError):  # ValueError: bad TOML, or a number int() refuses
            shipped = path is SHIPPED  # the folder's files: no link, no FIFO (it would block), bounded
            text = path.read_text(encoding="utf-8") if shipped else read_bounded(path, MAX_FILE_BYTES).decode("utf-8")
            _merge(out, tomllib.loads(text))
    _merge(out, schemas)
    return out


def _merge(out: Words, tables: dict[str, Any]) -> None:
    for name, table in tables.items():
        if not isinstance(table, dict):
            continue
        try:
            out[name] = check_words(table.get("words", {}))
        except ValueError:
            out.pop(name, None)


def _schema_files(root: Path | None) -> list[Path]:
    folder = root / "schemas" if root is not None else None
    if folder is None or folder.is_symlink() or not folder.is_dir():  # a link would lead outside the folder
        return []
    return sorted(folder.glob("*.toml"))


def signature(root: Path | None, schemas: dict[str, Any]) -> str:
    """What the words were read from: memctl's version, each file's name, size and mtime, and the
    `[schemas]` of memctl.toml."""
    parts: list[Any] = [__version__]
    for path in [SHIPPED, *_schema_files(root)]:
        with contextlib.suppress(OSError):
            stat = path.lstat()
            parts.append([path.name, stat.st_size, stat.st_mtime_ns])
    words = {name: t.get("words") for name, t in schemas.items() if isinstance(t, dict)}
    parts.append(json.dumps(words, sort_keys=True, default=str))
    return json.dumps(parts)


def cached(cache: Path | None, root: Path | None, schemas: dict[str, Any],
           build: Callable[[Words], Any], check: Callable[[Any], Any]) -> Any:
    """`build(words)` as kept in the cache (made again when its sources changed); `check` turns
    what the cache holds back into it, or raises ValueError for something it would not build."""
    path = cache / CACHE_NAME if cache is not None else None
    return kept(path, signature(root, schemas), lambda: build(declared_words(root, schemas)), check)


def kept(path: Path | None, key: str, make: Callable[[], Any], check: Callable[[Any], Any]) -> Any:
    """What the cache file `path` holds under the signature `key` (checked by `check`), else
    `make()`, written there for the next process (a file that does not read is made again)."""
    if path is not None:
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= MAX_CACHE_BYTES:
                held = jsonsafe.loads(path.read_text(encoding="utf-8"))
                if held["signature"] == key:
                    return check(held["value"])
    value = make()
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True) if path.is_symlink() else None
            write_atomic(path, json.dumps({"signature": key, "value": value}, ensure_ascii=False), durable=False)
    return value
