"""memctl.toml read and changed one setting at a time, its comments and layout kept (tomlkit).

`memctl config get KEY` reads the effective value (the file's, else the default); `memctl config
set KEY VALUE` changes that one line, validates the whole file as memctl would read it, and only
then replaces it atomically, so a bad value never leaves a broken config behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memctl.config import DEFAULT_CONFIG_TOML, Config, parse_config
from memctl.errors import ConfigError, UsageError
from memctl.store.files import write_atomic
from memctl.store.layout import CONFIG_NAME

FREE_TABLES = {("recall", "scope_priority"), ("lifecycle", "keys")}  # tables whose keys are the user's


def setting_path(key: str, config: Config, for_set: bool = False) -> list[str]:
    """`section.name` (or `section.table.key`) as a path of known settings; UsageError otherwise."""
    parts = key.split(".")
    node: Any = config.model_dump()
    for depth, part in enumerate(parts):
        free = tuple(parts[:depth]) in FREE_TABLES and depth == len(parts) - 1
        if not part or not isinstance(node, dict) or (part not in node and not (for_set and free)):
            sections = ", ".join(config.model_dump())
            raise UsageError(f"unknown setting {key!r} (settings are section.name, sections: {sections}; "
                             "`memctl init` lists them all in memctl.toml)", code="unknown_setting")
        node = node.get(part)
    if isinstance(node, dict) and tuple(parts) not in FREE_TABLES:
        raise UsageError(f"{key!r} is a section: name one of its settings ({', '.join(node)})", code="unknown_setting")
    return parts


def get_setting(config: Config, key: str) -> Any:
    """The effective value of one setting."""
    node: Any = config.model_dump()
    for part in setting_path(key, config):
        node = node[part]
    return node


def parse_value(raw: str) -> Any:
    """A value as TOML (`0.9`, `true`, `["a", "b"]`, `"text"`); anything else is taken as a string."""
    import tomlkit  # only `config set` and `init --preset` edit TOML

    try:
        value = tomlkit.parse(f"value = {raw}")["value"]
    except Exception:  # tomlkit raises several parse error types; a bare word is a string
        return raw
    return value.unwrap() if hasattr(value, "unwrap") else value  # booleans come back as plain bool


def set_values(text: str, values: dict[str, Any]) -> str:
    """TOML text with each dotted key set to its value; everything else (comments too) unchanged."""
    import tomlkit

    document = tomlkit.parse(text)
    for key, value in values.items():
        *tables, name = key.split(".")
        node: Any = document
        for table in tables:
            if table not in node:
                node.add(table, tomlkit.table())
            node = node[table]
        node[name] = value
    return tomlkit.dumps(document)


def config_text(root: Path) -> str:
    """The directory's memctl.toml as text (the defaults when it has none)."""
    path = root / CONFIG_NAME
    if not path.exists():
        return DEFAULT_CONFIG_TOML
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it as UTF-8 text ({exc})") from None


def write_setting(root: Path, config: Config, key: str, raw: str) -> tuple[Config, Any]:
    """Set one setting in `<root>/memctl.toml`; returns the new config and the value stored."""
    setting_path(key, config, for_set=True)
    value = parse_value(raw)
    text = set_values(config_text(root), {key: value})
    try:
        new_config = parse_config(text, CONFIG_NAME)
    except ConfigError as exc:
        raise UsageError(f"cannot set {key} to {raw!r}: {exc.message.removeprefix(CONFIG_NAME + ': ')}",
                         code="bad_setting") from None
    write_atomic(root / CONFIG_NAME, text)
    return new_config, value
