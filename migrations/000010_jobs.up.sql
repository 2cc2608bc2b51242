-- 000010_jobs: storage of loregate's background jobs (DESIGN.md "API, jobs";
-- issue 7). River's own tables are 000002-000009; these hold what River's
-- job rows should not: upload bytes, downloadable artifacts and job reports.
-- lore/postgres (jobdata.go) is the only code that reads or writes them.
--
-- Rows are bounded in time: blobs and artifacts carry expires_at and the
-- periodic cleanup job deletes expired ones; job_reports are small and kept
-- with the server (ON DELETE CASCADE) until the cleanup trims old ones.

-- job_blobs: an upload waiting for its job (a large lorebook import or a
-- workspace backup to preview and commit). The bytes are opaque here: they
-- are never logged and never parsed by SQL.
CREATE TABLE job_blobs (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server_id   snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    -- 'lorebook' (an import upload) or 'backup' (a workspace backup).
    kind        text        NOT NULL CHECK (kind IN ('lorebook', 'backup')),
    file_name   text        NOT NULL DEFAULT '' CHECK (char_length(file_name) <= 255),
    size_bytes  bigint      NOT NULL CHECK (size_bytes >= 0 AND size_bytes = octet_length(data)),
    -- hex SHA-256 of data.
    sha256      text        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    data        bytea       NOT NULL,
    -- what the upload was checked with (a backup preview's lineage mapping),
    -- so that the commit applies exactly what the preview showed.
    meta        jsonb       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(meta) = 'object'),
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);

CREATE INDEX job_blobs_expires_idx ON job_blobs (expires_at);
CREATE INDEX job_blobs_server_idx ON job_blobs (server_id);

-- job_artifacts: a file a job produced for download (a workspace backup),
-- served by the authorised, expiring download endpoint with its checksum.
CREATE TABLE job_artifacts (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server_id    snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    -- the River job that produced it (river_job.id; no FK: River prunes
    -- finished jobs on its own schedule).
    job_id       bigint      NOT NULL UNIQUE,
    kind         text        NOT NULL CHECK (kind IN ('backup')),
    file_name    text        NOT NULL CHECK (btrim(file_name) <> '' AND char_length(file_name) <= 255),
    content_type text        NOT NULL,
    size_bytes   bigint      NOT NULL CHECK (size_bytes >= 0 AND size_bytes = octet_length(data)),
    sha256       text        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    data         bytea       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);

CREATE INDEX job_artifacts_expires_idx ON job_artifacts (expires_at);

-- job_reports: what a finished job did (an import's conversion report and
-- counts, a backup import's per-scope counts). Written in the same
-- transaction as the job's lore write and River's completion of the job, so
-- a report exists exactly when the write committed; the primary key makes a
-- second completion of the same job impossible.
CREATE TABLE job_reports (
    job_id     bigint      PRIMARY KEY,
    server_id  snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    kind       text        NOT NULL CHECK (btrim(kind) <> ''),
    report     jsonb       NOT NULL CHECK (jsonb_typeof(report) = 'object'),
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX job_reports_created_idx ON job_reports (created_at);
