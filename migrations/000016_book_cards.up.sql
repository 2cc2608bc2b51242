-- 000016_book_cards: the character card a book was imported from, so that a
-- card export returns the whole card with the edited book inside
-- (docs/formats.md "Cards export as cards"), and card exports as download
-- artifacts without a job.
--
-- book_cards: one card per book: a Serverwide collection (lorebook_id; the
-- row goes with the collection) or a persona lineage's book. card is the
-- card JSON, file the original PNG or CHARX (image, assets) or NULL.
CREATE TABLE book_cards (
    server_id   snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    lorebook_id bigint      REFERENCES lorebooks (id) ON DELETE CASCADE,
    lineage_id  bigint      CHECK (lineage_id > 0),
    container   text        NOT NULL CHECK (container IN ('json', 'png', 'charx')),
    card        bytea       NOT NULL CHECK (octet_length(card) <= 16777216),
    file        bytea       CHECK (octet_length(file) <= 67108864),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT book_cards_scope_shape CHECK ((lorebook_id IS NULL) <> (lineage_id IS NULL))
);
CREATE UNIQUE INDEX book_cards_lorebook_key ON book_cards (lorebook_id) WHERE lorebook_id IS NOT NULL;
CREATE UNIQUE INDEX book_cards_lineage_key ON book_cards (server_id, lineage_id) WHERE lineage_id IS NOT NULL;

-- A card export is an artifact that no job produced.
ALTER TABLE job_artifacts ALTER COLUMN job_id DROP NOT NULL;
ALTER TABLE job_artifacts DROP CONSTRAINT job_artifacts_kind_check;
ALTER TABLE job_artifacts ADD CONSTRAINT job_artifacts_kind_check CHECK (kind IN ('backup', 'card_export'));
