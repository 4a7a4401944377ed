"""Connections: one-line errors that never show a password, and folders that never load psycopg."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.errors import StoreError
from memctl.store.postgres.connect import redact
from tests.helpers import ROOT, cli_json
from tests.postgres import store_config


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://memctl:s3cret@db.example:5432/team", "postgresql://memctl:***@db.example:5432/team"),
    ("postgresql://db.example/team?password=s3cret&sslmode=require", "postgresql://db.example/team?password=***&sslmode=require"),
    ("postgresql:///team?host=/tmp/x", "postgresql:///team?host=/tmp/x"),
])
def test_passwords_are_never_shown(url: str, shown: str) -> None:
    assert redact(url) == shown


def unreachable(tmp_path: Path) -> Path:
    root = tmp_path / "team"
    root.mkdir()
    socket = tmp_path / "nothing-listens-here"
    socket.mkdir()
    (root / "memctl.toml").write_text(store_config(f"postgresql://memctl:s3cret@/team?host={socket}&connect_timeout=2"))
    return root


def test_a_store_that_cannot_be_reached_is_a_one_line_error(tmp_path: Path) -> None:
    root = unreachable(tmp_path)
    with pytest.raises(StoreError) as info:
        MemoryStore(root).list()
    assert info.value.code == "store_unavailable" and "s3cret" not in str(info.value) and "\n" not in str(info.value)
    code, out = cli_json(root, "list")
    assert code == 1 and out["errors"][0]["code"] == "store_unavailable" and "s3cret" not in str(out)


def test_a_bad_store_url_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "team"
    root.mkdir()
    (root / "memctl.toml").write_text(store_config("mysql://somewhere/team"))
    code, out = cli_json(root, "list")
    # no backend registered for the scheme (core/plugins.py): a configuration error naming what is known
    assert code == 1 and out["errors"][0]["code"] == "bad_store" and "postgresql://" in out["errors"][0]["message"]
    (root / "memctl.toml").write_text(store_config(""))
    monkeypatch.setenv("MEMCTL_STORE", "sqlite:///x")
    code, out = cli_json(root, "list")
    assert code == 1 and out["errors"][0]["code"] == "bad_store"


def test_the_cli_shows_no_traceback_when_the_store_is_down(tmp_path: Path) -> None:
    root = unreachable(tmp_path)
    out = subprocess.run([sys.executable, "-m", "memctl", "-d", str(root), "recall", "anything"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr and "s3cret" not in out.stderr
    assert "cannot use the PostgreSQL store" in out.stderr


FOLDER = """
import sys
from memctl.cli.main import main
try:
    main(["-d", sys.argv[1], "list"])
except SystemExit:
    pass
print(sorted(m for m in sys.modules if m.split(".")[0] in ("psycopg", "psycopg_pool", "pgvector")
             or m.startswith("memctl.store.postgres")))
"""


def test_a_folder_never_loads_the_postgresql_code(memdir: Path) -> None:
    out = subprocess.run([sys.executable, "-c", FOLDER, str(memdir)], capture_output=True, text=True, cwd=ROOT,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
