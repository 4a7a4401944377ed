"""A PostgreSQL store per test: a folder holding only memctl.toml, its memories in a fresh schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.postgres import store_config


@pytest.fixture
def pgdir(tmp_path: Path, pg_url: str) -> Path:
    root = tmp_path / "team"
    root.mkdir()
    (root / "memctl.toml").write_text(store_config(pg_url))
    return root


@pytest.fixture
def pgstore(pgdir: Path):
    from memctl.api import MemoryStore

    return MemoryStore(pgdir)
