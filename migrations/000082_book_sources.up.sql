-- 000082_book_sources: the book-level fields of the file a book was
-- imported from that the store has no column for (issue 26,
-- docs/formats.md#rules-worth-knowing): SillyTavern world info `_meta`,
-- `originalData` and its other top-level fields, a bare or card book's
-- description, createdAt, modifiedAt, id, isGlobal, enabled and foreign
-- fields, so that an export through the API writes them as offline
-- `loregate convert` of the same file does. Lore is never silently
-- dropped.
--
-- book_sources: one row per book, keyed like book_cards: a Serverwide
-- collection (lorebook_id; the row goes with the collection) or a persona
-- lineage's book. fields is the format.Book extensions object (keys
-- namespaced "st/_meta", "card/description", ...) kept as `json`, not
-- `jsonb`, so every value comes back byte for byte. name is the book's
-- name as the file gave it (from_file: derived from the file name because
-- the file had none); description the book description.
CREATE TABLE book_sources (
    server_id   snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    lorebook_id bigint      REFERENCES lorebooks (id) ON DELETE CASCADE,
    lineage_id  bigint      CHECK (lineage_id > 0),
    name        text        NOT NULL DEFAULT '' CHECK (char_length(name) <= 1024),
    from_file   boolean     NOT NULL DEFAULT false,
    description text        NOT NULL DEFAULT '' CHECK (octet_length(description) <= 16777216),
    fields      json        NOT NULL DEFAULT '{}' CHECK (json_typeof(fields) = 'object' AND octet_length(fields::text) <= 16777216),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT book_sources_scope_shape CHECK ((lorebook_id IS NULL) <> (lineage_id IS NULL))
);
CREATE UNIQUE INDEX book_sources_lorebook_key ON book_sources (lorebook_id) WHERE lorebook_id IS NOT NULL;
CREATE UNIQUE INDEX book_sources_lineage_key ON book_sources (server_id, lineage_id) WHERE lineage_id IS NOT NULL;
