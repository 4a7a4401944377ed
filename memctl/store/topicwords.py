"""The words that name everyday topics (pets, food, commuting, deploys...), for recall: read from
the shipped memctl/data/topics.toml only (a topic table: `description`, and `words` per language as
a kind's are written), checked as a kind's words are, and kept in `topic-words.json` in the
store's cache folder (store/cachedir.py) under the file's signature, so a recall reads one small
file. A topic whose words do not read is left out; no file, no topics.
"""

from __future__ import annotations

import contextlib
import json
import tomllib
from pathlib import Path
from typing import Any, Callable

from memctl._version import __version__
from memctl.core.kindwords import check_words
from memctl.store.kindwords import Words, kept

SHIPPED = Path(__file__).resolve().parent.parent / "data" / "topics.toml"
CACHE_NAME = "topic-words.json"
MAX_WORDS = 200  # words of a topic in one language
MAX_TOPIC_WORDS = 2 * MAX_WORDS  # words of a topic, its languages together (as policy/topic.lexicon keeps them)


def topic_words(path: Path | None = None) -> Words:
    """Every topic's words ({topic: {language: [word, ...]}}) in `path` (the shipped file); {} when
    it does not read."""
    path = path or SHIPPED
    try:
        tables = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out: Words = {}
    for name, table in tables.items():
        if isinstance(table, dict):
            with contextlib.suppress(ValueError):
                out[name] = check_words(table.get("words", {}), MAX_WORDS)
    return out


def signature(path: Path | None = None) -> str:
    """What the words were read from: memctl's version and the file's size and mtime."""
    path = path or SHIPPED
    parts: list[Any] = [__version__]
    with contextlib.suppress(OSError):
        stat = path.stat()
        parts.append([str(path), stat.st_size, stat.st_mtime_ns])
    return json.dumps(parts)


def cached(cache: Path | None, build: Callable[[Words], Any], check: Callable[[Any], Any],
           source: Path | None = None) -> Any:
    """`build(topic_words(source))` as kept in the cache (made again when the file changed); `check`
    turns what the cache holds back into it, or raises ValueError for something it would not build."""
    path = cache / CACHE_NAME if cache is not None else None
    return kept(path, signature(source), lambda: build(topic_words(source)), check)
