"""The tables of a PostgreSQL store and the migrations that create them, run on first connection.

Every table is prefixed `memctl_` and lives in the connection's current schema (`public` unless the
URL sets `options=-csearch_path=...`), so memctl can share a database with an application, and
several stores can share one database in separate schemas.

- memctl_memories: one row per memory; the frontmatter fields as columns (lists as text[]; a field
  added to memctl after this schema version in `later_fields` until a migration gives it one), the
  unknown keys as json (json, not jsonb: jsonb reorders keys, and the exported file must keep
  them in the order they were read), the body as text. The archive is the status plus the
  archived_* columns, and `path` is where the memory's file sits in the folder layout
  (`users/alice/...`, `archive/users/alice/...`): an export writes it there.
- memctl_journal: append-only (a trigger refuses UPDATE and DELETE); memctl_usage; compaction
  records; transcripts and their watermarks; MEMORY.md texts.
- derived, rebuilt by `memctl reindex`: memctl_terms (a tsvector per memory, built by memctl's own
  analysis), memctl_term_df and memctl_corpus_stats (the BM25 statistics), one vector table per
  embedder identity (`vector(dim)` with an HNSW index), and the queues of what to re-derive
  (memctl_index_queue for the terms; memctl_embed_queue for the vectors, one entry per vector
  table, so a second model recall fuses gets every change too).
"""

from __future__ import annotations

from typing import Any

from memctl.errors import StoreError

SCHEMA_VERSION = 2
STAT_SHARDS = 16  # corpus statistics are spread over rows so concurrent writers rarely wait on one

# The memory columns as schema version 1 created them (frozen: migration 1 makes exactly these).
V1_COLUMNS: dict[str, str] = {
    "id": "text PRIMARY KEY", "path": "text NOT NULL UNIQUE", "owner": "text NOT NULL",
    "type": "text NOT NULL", "subtype": "text", "scope": "text NOT NULL", "user": "text", "project": "text",
    "session": "text", "confidence": "double precision NOT NULL", "source": "text NOT NULL",
    "sources": "text[] NOT NULL DEFAULT '{}'", "status": "text NOT NULL", "importance": "double precision",
    "created": "timestamptz NOT NULL", "updated": "timestamptz NOT NULL", "expires": "timestamptz",
    "occurred": "text", "state": "text", "valid_until": "timestamptz", "tags": "text[] NOT NULL DEFAULT '{}'",
    "key": "text", "entities": "text[] NOT NULL DEFAULT '{}'", "name": "text", "description": "text",
    "author": "text", "visibility": "text", "part_of": "text", "supersedes": "text", "superseded_by": "text",
    "merged_from": "text[] NOT NULL DEFAULT '{}'", "merged_into": "text",
    "conflicts_with": "text[] NOT NULL DEFAULT '{}'", "source_ids": "text[] NOT NULL DEFAULT '{}'",
    "archived_reason": "text", "archived_at": "timestamptz", "body": "text NOT NULL",
    "extra": "json NOT NULL DEFAULT '{}'", "fields": "json NOT NULL DEFAULT '{}'", "content_hash": "text NOT NULL",
    # derived by the writer, for filters: the period a memory covers (when it occurred, else its creation)
    "period_first": "text NOT NULL", "period_last": "text NOT NULL",
}
# The memory columns now. Version 2 (typed facts): `kind` and the typed `fields` get columns of their
# own, and the json of fields without a column is renamed `later_fields` (the name `fields` is now
# the memory's). A field memctl gains later is kept in `later_fields` until a migration gives it a
# column (tests/store/postgres/test_schema.py names any such field).
MEMORY_COLUMNS: dict[str, str] = {
    **{k: v for k, v in V1_COLUMNS.items() if k != "fields"},
    "kind": "text", "fields": "json NOT NULL DEFAULT '{}'", "later_fields": "json NOT NULL DEFAULT '{}'",
}
_MEMORIES = ",\n    ".join(f'"{name}" {sql}' for name, sql in V1_COLUMNS.items())

V1 = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE memctl_memories (
    @MEMORIES@
);
CREATE INDEX memctl_memories_owner ON memctl_memories (owner, status);
CREATE INDEX memctl_memories_user ON memctl_memories ("user", project) WHERE "user" IS NOT NULL;
CREATE INDEX memctl_memories_project ON memctl_memories (project) WHERE project IS NOT NULL;
CREATE INDEX memctl_memories_session ON memctl_memories (session) WHERE session IS NOT NULL;
CREATE INDEX memctl_memories_id_prefix ON memctl_memories (id text_pattern_ops);
CREATE INDEX memctl_memories_part_of ON memctl_memories (part_of) WHERE part_of IS NOT NULL;

CREATE TABLE memctl_journal (
    seq bigserial PRIMARY KEY,
    op text NOT NULL,
    memory_id text NOT NULL,
    time text NOT NULL,
    before text,
    after text,
    path_before text,
    path_after text,
    detail jsonb NOT NULL DEFAULT '{}',
    mentions text[] NOT NULL DEFAULT '{}',
    session text,
    source text,
    owner text
);
CREATE INDEX memctl_journal_memory ON memctl_journal (memory_id);
CREATE INDEX memctl_journal_mentions ON memctl_journal USING gin (mentions);
CREATE INDEX memctl_journal_session ON memctl_journal (session, time) WHERE session IS NOT NULL;
CREATE INDEX memctl_journal_owner ON memctl_journal (owner, time) WHERE session IS NULL;
CREATE FUNCTION memctl_journal_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'memctl_journal is append-only';
END $$;
CREATE TRIGGER memctl_journal_append_only BEFORE UPDATE OR DELETE ON memctl_journal
    FOR EACH ROW EXECUTE FUNCTION memctl_journal_append_only();

CREATE TABLE memctl_usage (
    id text PRIMARY KEY,
    count integer NOT NULL,
    last_used text,
    sessions text[] NOT NULL DEFAULT '{}'
);
CREATE TABLE memctl_compactions (plan_id text PRIMARY KEY, record jsonb NOT NULL);
CREATE TABLE memctl_transcripts (
    seq bigserial PRIMARY KEY,
    "user" text NOT NULL,
    session text NOT NULL,
    line text NOT NULL
);
CREATE INDEX memctl_transcripts_session ON memctl_transcripts ("user", session, seq);
CREATE TABLE memctl_transcript_state (
    "user" text NOT NULL,
    session text NOT NULL,
    state jsonb NOT NULL,
    PRIMARY KEY ("user", session)
);
CREATE TABLE memctl_memory_md (owner text PRIMARY KEY, text text NOT NULL);

CREATE TABLE memctl_index_queue (id text PRIMARY KEY, content_hash text NOT NULL);
CREATE TABLE memctl_embed_queue (vectors text NOT NULL, id text NOT NULL, content_hash text NOT NULL,
                                 PRIMARY KEY (vectors, id));
CREATE TABLE memctl_terms (
    id text PRIMARY KEY,
    content_hash text NOT NULL,
    terms tsvector NOT NULL,
    lengths integer[] NOT NULL,
    norms integer[] NOT NULL
);
CREATE INDEX memctl_terms_gin ON memctl_terms USING gin (terms);
CREATE TABLE memctl_term_df (term text PRIMARY KEY, df integer NOT NULL);
CREATE TABLE memctl_corpus_stats (shard smallint PRIMARY KEY, docs bigint NOT NULL, lengths bigint[] NOT NULL);
CREATE TABLE memctl_vector_tables (
    identity text PRIMARY KEY,
    name text NOT NULL UNIQUE,
    dim integer NOT NULL,
    complete boolean NOT NULL DEFAULT false,
    since xid8  -- a transaction id taken after the table was made: complete once every older one has ended
);
"""

# Typed facts: a memory written by version 1 kept its kind and typed fields in the json of later fields
# (json, not jsonb, for the typed fields: their order is the file's).
V2 = """
ALTER TABLE memctl_memories RENAME COLUMN fields TO later_fields;
ALTER TABLE memctl_memories ADD COLUMN kind text, ADD COLUMN fields json NOT NULL DEFAULT '{}';
UPDATE memctl_memories
   SET kind = later_fields->>'kind', fields = COALESCE(later_fields->'fields', '{}'::json),
       later_fields = (later_fields::jsonb - 'kind' - 'fields')::json
 WHERE later_fields::jsonb ?| ARRAY['kind', 'fields'];
CREATE INDEX memctl_memories_kind ON memctl_memories (kind) WHERE kind IS NOT NULL;
"""

MIGRATIONS: list[tuple[int, str]] = [(1, V1.replace("@MEMORIES@", _MEMORIES)), (2, V2)]
MIGRATION_LOCK = 7_316_010_016  # one advisory lock key: two processes starting at once migrate once


def migrate(conn: Any) -> int:
    """Bring the schema to SCHEMA_VERSION in one transaction; returns the version found before.

    A database written by a newer memctl is refused (StoreError), never downgraded."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS memctl_meta (key text PRIMARY KEY, value text NOT NULL)")
        row = conn.execute("SELECT value FROM memctl_meta WHERE key = 'schema_version'").fetchone()
        found = int(row[0]) if row else 0
        if found > SCHEMA_VERSION:
            raise StoreError(f"the database's memctl schema is version {found}, newer than this memctl knows "
                             f"({SCHEMA_VERSION}): upgrade memctl", code="schema_too_new")
        for version, sql in MIGRATIONS:
            if version > found:
                conn.execute(sql)
        if found < SCHEMA_VERSION:
            conn.execute("INSERT INTO memctl_meta VALUES ('schema_version', %s) ON CONFLICT (key) "
                         "DO UPDATE SET value = excluded.value", (str(SCHEMA_VERSION),))
    return found


def schema_version(conn: Any) -> int | None:
    """The schema version a database holds (None: no memctl tables)."""
    row = conn.execute("SELECT to_regclass('memctl_meta')").fetchone()
    if row is None or row[0] is None:
        return None
    found = conn.execute("SELECT value FROM memctl_meta WHERE key = 'schema_version'").fetchone()
    return int(found[0]) if found else 0
