-- 000040_import_history: the import history (issue 16, docs/imports.md).
-- lore/postgres (history.go) is the only code that reads or writes it.
--
-- One row per lore-changing batch operation: a file import, a workspace
-- backup import, a legacy memory migration, a collection delete, a scope
-- wipe, and an undo of any of these. A row is written in the same
-- transaction as the write it records, so an import that did not commit
-- leaves no row. Rows outlive their server (no foreign key): undoing an
-- import of a deleted server is refused with a clear reason instead of the
-- record vanishing.
CREATE TABLE import_history (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server_id     snowflake   NOT NULL,
    -- file | backup | migration | collection_delete | scope_wipe | undo
    kind          text        NOT NULL CHECK (kind IN ('file', 'backup', 'migration', 'collection_delete', 'scope_wipe', 'undo')),
    -- who asked: "user:<discord id>", "service:<name>", "cli", "job".
    actor         text        NOT NULL DEFAULT '' CHECK (char_length(actor) <= 200),
    created_at    timestamptz NOT NULL DEFAULT now(),
    source_name   text        NOT NULL DEFAULT '' CHECK (char_length(source_name) <= 300),
    -- hex SHA-256 of the source bytes ('' when there were none).
    source_sha256 text        NOT NULL DEFAULT '',
    -- append | replace | '' (deletes, wipes, undos).
    mode          text        NOT NULL DEFAULT '',
    -- the target as lore.HistoryTarget JSON.
    target        jsonb       NOT NULL DEFAULT '{}',
    -- what the operation reported (shape per kind).
    report        jsonb       NOT NULL DEFAULT '{}',
    -- ids of the entries it created, and of the entries it replaced or
    -- removed (the latter also in snapshot, until the snapshot is pruned).
    created_ids   bigint[]    NOT NULL DEFAULT '{}',
    removed_ids   bigint[]    NOT NULL DEFAULT '{}',
    -- a collection the operation created (removed again by an undo when
    -- empty).
    created_collection text,
    -- the replaced or removed entries and collections (lore.HistorySnapshot
    -- JSON); NULL once pruned by the retention setting.
    snapshot      jsonb,
    snapshot_pruned boolean   NOT NULL DEFAULT false,
    -- undo bookkeeping: undo_of on the undo's row, undone_by on the undone.
    undo_of       bigint      REFERENCES import_history (id) ON DELETE SET NULL,
    undone_by     bigint      REFERENCES import_history (id) ON DELETE SET NULL,
    undone_at     timestamptz
);

CREATE INDEX import_history_server_idx ON import_history (server_id, id DESC);
CREATE INDEX import_history_removed_idx ON import_history USING gin (removed_ids);
CREATE INDEX import_history_snapshot_idx ON import_history (created_at) WHERE snapshot IS NOT NULL;

-- legacy_memory_sources: the legacy memory ids a migration converted (or
-- found not convertible), so a rerun skips them. An undo of the migration
-- deletes its rows, so the memories migrate again on the next run.
CREATE TABLE legacy_memory_sources (
    server_id  snowflake NOT NULL,
    source_id  text      NOT NULL CHECK (char_length(source_id) <= 200),
    import_id  bigint    NOT NULL REFERENCES import_history (id) ON DELETE CASCADE,
    -- the entry it became (NULL: not converted, e.g. channel-only).
    entry_id   bigint,
    PRIMARY KEY (server_id, source_id)
);

CREATE INDEX legacy_memory_sources_import_idx ON legacy_memory_sources (import_id);

-- legacy_migration_runs: a legacy memory migration queued as a job (the
-- input spans servers, so it is not a per-server job blob). The worker
-- updates done/total after each server block; the input is deleted when
-- the run finishes.
CREATE TABLE legacy_migration_runs (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_name   text        NOT NULL DEFAULT '' CHECK (char_length(source_name) <= 300),
    source_sha256 text        NOT NULL DEFAULT '',
    apply         boolean     NOT NULL,
    actor         text        NOT NULL DEFAULT '' CHECK (char_length(actor) <= 200),
    data          bytea,
    -- servers done and in the input.
    done          integer     NOT NULL DEFAULT 0,
    total         integer     NOT NULL DEFAULT 0,
    report        jsonb,
    error         text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz
);
