-- 000067_entry_vectors: the embeddings of retrieval by meaning
-- (docs/contract.md#semantic, docs/operations.md#embeddings). One row per
-- candidate entry (the first part of a split entry holds its group's):
-- the vector the embed job got from the provider for the entry's text
-- (content without decorator lines, split parts joined) under model,
-- with the text's SHA-256 so a changed text or model shows as pending.
-- A text the provider refused keeps its error instead of a vector (the
-- entry is FAILED until its text or the model changes, or a reindex).
-- vector is little-endian float32, 4 bytes per dimension.
CREATE TABLE entry_vectors (
    entry_id     bigint      PRIMARY KEY REFERENCES lorebook_entries (id) ON DELETE CASCADE,
    server_id    snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    model        text        NOT NULL CHECK (octet_length(model) BETWEEN 1 AND 200),
    content_hash text        NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
    dims         integer     NOT NULL CHECK (dims BETWEEN 0 AND 8192),
    vector       bytea,
    error        text        CHECK (octet_length(error) <= 500),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT entry_vectors_one_of CHECK ((vector IS NULL) <> (error IS NULL)),
    CONSTRAINT entry_vectors_length CHECK (vector IS NULL OR octet_length(vector) = 4 * dims)
);
CREATE INDEX entry_vectors_server_idx ON entry_vectors (server_id, model);
