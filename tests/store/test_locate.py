"""The lean directory lookup agrees with find_root: the same directory, or None where it raises."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.errors import NoDirectory
from memctl.store import layout
from memctl.store.directory import find_root, init_directory
from memctl.store.locate import CACHE_DIR, CONFIG_NAME, locate_root


def test_the_names_are_the_layouts() -> None:
    assert (CONFIG_NAME, CACHE_DIR) == (layout.CONFIG_NAME, layout.CACHE_DIR)


@pytest.mark.parametrize("explicit, env, cwd", [
    ("mem", None, "."), (None, "mem", "."), ("mem", "other", "."), ("missing", None, "."), ("plain", None, "."),
    (None, None, "mem/users"), (None, None, "plain"), (None, None, "."), ("", "mem", "plain"),
])
def test_it_agrees_with_find_root(tmp_path: Path, explicit: str | None, env: str | None, cwd: str) -> None:
    init_directory(tmp_path / "mem")
    init_directory(tmp_path / "other")
    (tmp_path / "plain").mkdir()
    where = tmp_path / cwd
    explicit_path = str(tmp_path / explicit) if explicit else explicit
    env_path = str(tmp_path / env) if env else env
    try:
        expected: Path | None = find_root(explicit_path, env_path, where)
    except NoDirectory:
        expected = None
    assert locate_root(explicit_path, env_path, where) == expected
