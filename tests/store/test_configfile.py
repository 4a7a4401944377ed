"""memctl.toml one setting at a time: config get/set keep comments, validate before writing, name bad keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.config import DEFAULT_CONFIG_TOML
from memctl.errors import UsageError
from memctl.store.configfile import parse_value, set_values
from tests.helpers import cli, cli_json


def test_set_values_changes_one_line_and_keeps_every_comment() -> None:
    text = set_values(DEFAULT_CONFIG_TOML, {"gate.min_confidence": 0.8})
    assert text == DEFAULT_CONFIG_TOML.replace("min_confidence = 0.7", "min_confidence = 0.8")
    added = set_values("# mine\n[memory]\npreset = \"default\"  # keep\n", {"layout.kind": "claude"})
    assert added.startswith("# mine\n[memory]\npreset = \"default\"  # keep\n") and 'kind = "claude"' in added


@pytest.mark.parametrize(("raw", "value"), [("0.9", 0.9), ("true", True), ('["a", "b"]', ["a", "b"]),
                                            ('"x y"', "x y"), ("claude", "claude"), ("12", 12)])
def test_values_are_toml_or_a_word(raw: str, value: object) -> None:
    assert parse_value(raw) == value


def test_get_and_set_through_the_library(memdir: Path) -> None:
    store = MemoryStore(memdir)
    assert store.get_setting("memory.preset") == "default"
    assert store.get_setting("recall.scope_priority") == {"session": 1.0, "project": 0.8, "user": 0.6}
    assert store.set_setting("memory.preset", "categories") == "categories"
    assert store.set_setting("recall.scope_priority.session", "0.9") == 0.9
    reopened = MemoryStore(memdir)
    assert reopened.config.memory.preset == "categories" and reopened.config.recall.scope_priority["session"] == 0.9
    assert "# Type preset:" in (memdir / "memctl.toml").read_text()


@pytest.mark.parametrize(("key", "value", "message"), [
    ("nope.x", "1", "unknown setting 'nope.x'"),
    ("gate", "1", "is a section"),
    ("gate.min_confidence", "high", "cannot set gate.min_confidence to 'high'"),
    ("gate.min_confidence", "1.5", "less than or equal to 1"),
    ("memory.preset", "mine", "cannot set memory.preset"),
])
def test_a_bad_setting_is_refused_and_the_file_left_alone(memdir: Path, key: str, value: str, message: str) -> None:
    before = (memdir / "memctl.toml").read_bytes()
    with pytest.raises(UsageError, match=message):
        MemoryStore(memdir).set_setting(key, value)
    assert (memdir / "memctl.toml").read_bytes() == before


def test_config_command(memdir: Path) -> None:
    assert cli(memdir, "config", "get", "gate.min_confidence").stdout == "0.7\n"
    assert cli(memdir, "config", "set", "gate.min_confidence", "0.75").stdout == "gate.min_confidence = 0.75\n"
    code, out = cli_json(memdir, "config", "get", "gate.min_confidence")
    assert code == 0 and out["data"] == {"key": "gate.min_confidence", "value": 0.75}
    bad = cli(memdir, "config", "set", "gate.min_confidence")
    assert bad.exit_code == 2 and "config set KEY VALUE" in bad.stderr
    assert cli(memdir, "config", "get", "no.such").exit_code == 2


@pytest.mark.parametrize("preset", ["default", "claude", "categories"])
def test_init_with_every_preset(tmp_path: Path, preset: str) -> None:
    root = tmp_path / preset
    code, out = cli_json(None, "init", str(root), "--preset", preset)
    assert code == 0 and out["data"]["preset"] == preset
    assert MemoryStore(root).config.types[0] == {"default": "preference", "claude": "user", "categories": "profile"}[preset]
    assert out["data"]["layout"] == ("claude" if preset == "claude" else "memctl")
    assert (root / "users").is_dir() == (preset != "claude")
    other = "categories" if preset != "categories" else "default"
    refused = cli(None, "init", str(root), "--preset", other)
    assert refused.exit_code == 2 and "config set memory.preset" in refused.stderr
    assert cli(None, "init", str(root), "--preset", "nope").exit_code == 2
