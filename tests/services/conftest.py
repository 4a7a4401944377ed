"""The behaviour tests run on both backends: every test here that uses the `memdir`, `store` or
`samples` fixture runs once on a folder and once on PostgreSQL, unless marked `files_only` (it
checks what only a folder has: its files, their bytes, hand edits, file locks)."""

from __future__ import annotations

import pytest

BACKENDS = ("files", "postgres")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames and metafunc.definition.get_closest_marker("files_only") is None:
        metafunc.parametrize("backend", BACKENDS, indirect=True)
