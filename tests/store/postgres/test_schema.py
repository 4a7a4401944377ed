"""The schema: created by migrations on first connection, once even when processes start together,
a version recorded, a newer database refused, every memory field a column."""

from __future__ import annotations

import subprocess
import sys

import psycopg
import pytest

from memctl.core.models import FIELD_ORDER
from memctl.errors import StoreError
from memctl.store.postgres.connect import close_pool, pool
from memctl.store.postgres.schema import MEMORY_COLUMNS, SCHEMA_VERSION, migrate, schema_version
from tests.helpers import ROOT

TABLES = {"memctl_meta", "memctl_memories", "memctl_journal", "memctl_usage", "memctl_compactions",
          "memctl_transcripts", "memctl_transcript_state", "memctl_memory_md", "memctl_index_queue",
          "memctl_embed_queue", "memctl_terms", "memctl_term_df", "memctl_corpus_stats", "memctl_vector_tables"}


def tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        found = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").fetchall()
    return {name for (name,) in found}


def test_the_first_connection_creates_the_schema_and_a_second_changes_nothing(pg_url: str) -> None:
    assert tables(pg_url) == set()
    pool(pg_url)
    assert tables(pg_url) == TABLES
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert schema_version(conn) == SCHEMA_VERSION
        assert migrate(conn) == SCHEMA_VERSION  # found at the current version: nothing to do
    assert tables(pg_url) == TABLES


def test_a_database_from_a_newer_memctl_is_refused(pg_url: str) -> None:
    pool(pg_url)
    close_pool(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE memctl_meta SET value = %s WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(StoreError, match="newer than this memctl") as info:
        pool(pg_url)
    assert info.value.code == "schema_too_new"


START = """
import sys
from memctl.store.postgres.connect import pool
pool(sys.argv[1])
"""


def test_processes_starting_together_migrate_once(pg_url: str) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", START, pg_url], cwd=ROOT) for _ in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    assert tables(pg_url) == TABLES


def test_every_memory_field_has_a_column() -> None:
    # A field added to Memory needs a migration giving it a column (until then it lives in `later_fields`).
    assert [f for f in FIELD_ORDER if f not in MEMORY_COLUMNS] == []


V1_ROW = """INSERT INTO memctl_memories (id, path, owner, type, scope, "user", confidence, source, status, created,
    updated, body, fields, content_hash, period_first, period_last)
VALUES ('00000001', 'users/alice/passport-00000001.md', 'users/alice', 'fact', 'user', 'alice', 1.0, 'user',
    'active', '2026-05-01T00:00:00Z', '2026-05-01T00:00:00Z', 'Alice''s passport',
    '{"kind": "passport", "fields": {"number": "X1", "expires": "2031-04-02", "issued": "2021-04-02"}}', 'h',
    '2026-05-01T00:00:00Z', '2026-05-01T00:00:00Z')"""


def test_a_version_1_database_is_migrated_and_its_typed_memories_keep_kind_and_fields(pg_url: str, tmp_path) -> None:
    from memctl.api import MemoryStore
    from memctl.store.postgres.schema import MIGRATIONS
    from tests.postgres import store_config

    with psycopg.connect(pg_url, autocommit=True) as conn:  # what memctl with schema version 1 made and wrote
        conn.execute("CREATE TABLE memctl_meta (key text PRIMARY KEY, value text NOT NULL)")
        conn.execute(MIGRATIONS[0][1])
        conn.execute("INSERT INTO memctl_meta VALUES ('schema_version', '1')")
        conn.execute(V1_ROW)
    (tmp_path / "memctl.toml").write_text(store_config(pg_url))
    memory = MemoryStore(tmp_path).get("00000001")
    assert memory.kind == "passport" and list(memory.fields.items()) == [
        ("number", "X1"), ("expires", "2031-04-02"), ("issued", "2021-04-02")]  # in the order written
    with psycopg.connect(pg_url) as conn:
        assert schema_version(conn) == SCHEMA_VERSION == 2
        assert conn.execute("SELECT kind, later_fields::text FROM memctl_memories").fetchone() == ("passport", "{}")
