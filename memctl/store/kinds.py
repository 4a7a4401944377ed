"""The typed-memory files: kinds (schemas) and checks (rules), read from where they are declared.

Kinds come from the shipped memctl/data/kinds.toml, then `schemas/*.toml` in the memory directory,
then `[schemas.NAME]` in memctl.toml; checks from memctl/data/checks.toml, `checks/*.toml`, then
`[checks.NAME]` (a later declaration of a name replaces an earlier one). These files are data: they
are parsed as TOML, never imported or run. A file that does not read is reported with its file and
line, and skipped; so is a symlink, a folder that is one, or an oversized file (nothing outside
the directory is read).
"""

from __future__ import annotations

import contextlib
import re
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from importlib.resources import files
from pathlib import Path
from typing import Any

from memctl.config import Config
from memctl.core.recognisers import Common, Lexicon, Recogniser, merge_lexicon, parse_recogniser
from memctl.core.schemas import Schema, parse_schema
from memctl.store.files import read_bounded
from memctl.store.layout import CONFIG_NAME, RULE_DIRS

SCHEMAS_DIR, CHECKS_DIR, RECOGNISERS_DIR = RULE_DIRS
MAX_FILE_BYTES = 256 * 1024  # a rule file is a page of rules, not a data set
MAX_RECOGNISERS = 200  # every add runs each one: a folder may not make that slow
_KEY = re.compile(r"^\s*\"?([A-Za-z0-9_-]+)\"?\s*=")
_AT_LINE = re.compile(r"\(at line (\d+), column \d+\)")


@dataclass(frozen=True)
class Declared:
    """One table as declared: its name, its settings, and where (file and 1-based line)."""

    name: str
    table: Any
    file: str
    line: int
    keys: dict[str, int] = field(default_factory=dict)  # the line of each setting in the table

    def where(self, key: str | None = None) -> str:
        """`file:line` of the table, or of one of its settings."""
        return f"{self.file}:{self.keys.get(key or '', self.line)}"


def key_lines(text: str, start: int) -> dict[str, int]:
    """The line of each `key =` from line `start` up to the next table header."""
    out: dict[str, int] = {}
    for number, line in enumerate(text.splitlines()[start:], start=start + 1):
        if line.lstrip().startswith("["):
            break
        match = _KEY.match(line)
        if match:
            out.setdefault(match.group(1), number)
    return out


def table_line(text: str, name: str, prefix: str = "") -> int:
    """The line of the `[prefix.name]` header (or of `name = ` inside `[prefix]`), else 1."""
    header = re.compile(rf"^[ \t]*\[[ \t]*{re.escape(prefix + '.' if prefix else '')}\"?{re.escape(name)}\"?\s*\]",
                        re.MULTILINE)
    inline = re.compile(rf"^[ \t]*\"?{re.escape(name)}\"?\s*=", re.MULTILINE)
    match = header.search(text) or (inline.search(text) if prefix else None)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def parse_tables(text: str, file: str, prefix: str = "") -> tuple[list[Declared], list[str]]:
    """The tables of a TOML text (those under `[prefix]` when given), and the error that stopped it."""
    try:
        data: Any = tomllib.loads(text)
    except ValueError as exc:  # a TOMLDecodeError, or int()'s refusal of a number of thousands of digits
        found = _AT_LINE.search(str(exc))
        message = _AT_LINE.sub("", str(exc)).strip()
        return [], [f"{file}:{found.group(1) if found else 1}: not valid TOML: {message}"]
    if prefix:
        data = data.get(prefix, {})
    return [_declared(text, str(name), table, file, prefix) for name, table in data.items()], []


def _declared(text: str, name: str, table: Any, file: str, prefix: str) -> Declared:
    line = table_line(text, name, prefix)
    return Declared(name, table, file, line, key_lines(text, line))


class KindFiles:
    """The kinds and checks a memory directory declares: read on first use, and again when a file
    in schemas/ or checks/ changes (a long-running server sees an edited rule)."""

    def __init__(self, root: Path | None, config: Config, config_file: Path | None = None) -> None:
        self.root = root  # None: no folder (a server on a database), so the shipped files and memctl.toml only
        self.config = config
        self.config_file = config_file or (root / CONFIG_NAME if root else None)
        self.problems: list[str] = []
        self.generation = 0  # bumped each time the files are read again
        self._seen = self._signature()

    def _signature(self) -> tuple[tuple[str, str, int, int], ...]:
        """Name, mtime and size of every file in the folders: a change means reading them again."""
        out = []
        for folder in RULE_DIRS:
            for item in self._files(folder):
                with contextlib.suppress(OSError):
                    stat = item.lstat()
                    out.append((folder, item.name, stat.st_mtime_ns, stat.st_size))
        return tuple(out)

    def _fresh(self) -> None:
        seen = self._signature()
        if seen != self._seen:
            self._seen, self.generation = seen, self.generation + 1
            for name in ("_schemas", "_rules", "_typing"):
                self.__dict__.pop(name, None)

    def _declared(self, shipped: str, folder: str, section: str) -> list[Declared]:
        out: list[Declared] = []
        for name in shipped.split(","):
            tables, problems = parse_tables(files("memctl").joinpath("data", name).read_text(encoding="utf-8"),
                                            f"(shipped) {name}")
            out += tables
            self.problems += problems
        if self.root is not None and (self.root / folder).is_symlink():
            self.problems.append(f"{folder}:1: skipped: a symbolic link (nothing outside the directory is read)")
        for path in self._files(folder):
            text = self._read(path, f"{folder}/{path.name}")
            if text is not None:
                tables, problems = parse_tables(text, f"{folder}/{path.name}")
                out += tables
                self.problems += problems
        if getattr(self.config, section):
            text = (self._read(self.config_file, self.config_file.name) if self.config_file else None) or ""
            shown = self.config_file.name if self.config_file else CONFIG_NAME
            out += [_declared(text, name, table, shown, section)
                    for name, table in getattr(self.config, section).items()]
        return out

    def _files(self, folder: str) -> list[Path]:
        """The TOML files of one of the directory's folders (none without a directory, or when the
        folder is a link: it would lead outside the directory)."""
        path = self.root / folder if self.root else None
        return sorted(path.glob("*.toml")) if path is not None and path.is_dir() and not path.is_symlink() else []

    def _read(self, path: Path, shown: str) -> str | None:
        try:
            if path.is_symlink() or not path.is_file():
                self.problems.append(f"{shown}:1: skipped: not a regular file (symlinks are not followed)")
                return None
            if path.stat().st_size > MAX_FILE_BYTES:
                self.problems.append(f"{shown}:1: skipped: larger than {MAX_FILE_BYTES // 1024} KiB")
                return None
            return read_bounded(path, MAX_FILE_BYTES).decode("utf-8")  # no link, no FIFO even if swapped since
        except (OSError, UnicodeDecodeError) as exc:
            self.problems.append(f"{shown}:1: cannot read it as UTF-8 text ({exc.__class__.__name__})")
            return None

    @property
    def schemas(self) -> dict[str, Schema]:
        """Every kind by name; a kind that does not validate is reported (file:line) and left out."""
        self._fresh()
        return self._schemas

    @property
    def rules(self) -> list[Declared]:
        """Every rule as declared (checked by policy/checks.py), a later one replacing an earlier of its name."""
        self._fresh()
        return self._rules

    @cached_property
    def _schemas(self) -> dict[str, Schema]:
        out: dict[str, Schema] = {}
        for item in self._declared("kinds.toml", SCHEMAS_DIR, "schemas"):
            try:
                out[item.name] = parse_schema(item.name, item.table)
            except ValueError as exc:
                self.problems.append(f"{item.where()}: kind {item.name!r}: {exc}")
        return out

    @cached_property
    def _rules(self) -> list[Declared]:
        by_name: dict[str, Declared] = {}
        for item in self._declared("checks.toml", CHECKS_DIR, "checks"):
            by_name.pop(item.name, None)
            by_name[item.name] = item
        return list(by_name.values())

    @property
    def typing(self) -> "TypingRules":
        """The recognisers that type plain statements, and their lexicon (policy/infer.py)."""
        self._fresh()
        return self._typing

    @cached_property
    def _typing(self) -> "TypingRules":
        by_name: dict[str, Recogniser] = {}
        lexicon, common = Lexicon(), Common()
        for item in self._declared("recognisers.toml,places.toml", RECOGNISERS_DIR, "recognisers"):
            if item.name == "lexicon":
                self.problems += [f"{item.where()}: {p}" for p in merge_lexicon(lexicon, item.table)]
                continue
            try:
                if item.name == "all":
                    common = _common(common, item.table)
                    continue
                if item.name not in by_name and len(by_name) >= MAX_RECOGNISERS:
                    self.problems.append(f"{item.where()}: recogniser {item.name!r}: skipped: more than {MAX_RECOGNISERS}")
                    continue
                by_name[item.name] = parse_recogniser(item.name, item.table)
            except ValueError as exc:
                self.problems.append(f"{item.where()}: recogniser {item.name!r}: {exc}")
        return TypingRules([r for r in by_name.values() if r.enabled], lexicon, common)

    def drain_problems(self) -> list[str]:
        """Problems found since the last call (each `file:line: what`)."""
        out, self.problems = self.problems, []
        return out


@dataclass(frozen=True)
class TypingRules:
    """What types plain statements: the recognisers in force, the lexicon they share, `[all]`."""

    recognisers: list[Recogniser]
    lexicon: Lexicon
    common: Common


def _common(before: Common, raw: Any) -> Common:
    """`[all]`: a later declaration adds its words to the earlier ones."""
    if not isinstance(raw, dict):
        raise ValueError("[all] is a table of settings")
    extra = Common.model_validate(raw)
    return Common(unless=[*before.unless, *extra.unless], stop=[*before.stop, *extra.stop])
