-- 000073_book_organisation: books people organise (issue 29,
-- docs/workbench.md#categories): categories inside a book, an entry's
-- category and creator note, a book's description and tags.
--
-- book_categories: the categories of one book, a Serverwide collection
-- (lorebook_id; they go with the collection) or a persona lineage's book
-- (lineage_id), names unique per book. A disabled category keeps its
-- entries out of the prompt without changing their flags, as a disabled
-- collection does.
CREATE TABLE book_categories (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server_id   snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    lorebook_id bigint      REFERENCES lorebooks (id) ON DELETE CASCADE,
    lineage_id  bigint      CHECK (lineage_id > 0),
    name        text        NOT NULL CHECK (btrim(name) <> '' AND char_length(name) <= 100),
    sort_order  integer     NOT NULL DEFAULT 0,
    enabled     boolean     NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT book_categories_scope_shape CHECK ((lorebook_id IS NULL) <> (lineage_id IS NULL))
);
CREATE UNIQUE INDEX book_categories_lorebook_name_key ON book_categories (lorebook_id, name) WHERE lorebook_id IS NOT NULL;
CREATE UNIQUE INDEX book_categories_lineage_name_key ON book_categories (server_id, lineage_id, name) WHERE lineage_id IS NOT NULL;

CREATE TRIGGER book_categories_set_updated_at
    BEFORE UPDATE ON book_categories
    FOR EACH ROW EXECUTE FUNCTION lore_set_updated_at();

-- An entry's category (NULL: none; a deleted category leaves its entries
-- without one) and its creator note: never sent to the model, at most
-- 4,000 characters like content.
ALTER TABLE lorebook_entries
    ADD COLUMN category_id bigint REFERENCES book_categories (id) ON DELETE SET NULL,
    ADD COLUMN note text NOT NULL DEFAULT '' CHECK (char_length(note) <= 4000);
CREATE INDEX lorebook_entries_category_idx ON lorebook_entries (category_id) WHERE category_id IS NOT NULL;

-- lore_entry_category_check: an entry's category belongs to its own book.
-- A write that carries a category of another book (a move or copy into
-- another book, a restored revision whose category is gone) leaves the
-- entry without a category; the API refuses such a categoryId before it
-- gets here. Runs only when the category or the book changes.
CREATE FUNCTION lore_entry_category_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM book_categories c
        LEFT JOIN lorebooks b ON b.id = c.lorebook_id
        WHERE c.id = NEW.category_id AND c.server_id = NEW.server_id
          AND (c.lineage_id = NEW.lineage_id OR (NEW.lineage_id IS NULL AND b.name = NEW.lorebook_name))
    ) THEN
        NEW.category_id := NULL;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER lorebook_entries_category_insert
    BEFORE INSERT ON lorebook_entries
    FOR EACH ROW WHEN (NEW.category_id IS NOT NULL)
    EXECUTE FUNCTION lore_entry_category_check();
CREATE TRIGGER lorebook_entries_category_update
    BEFORE UPDATE ON lorebook_entries
    FOR EACH ROW WHEN (NEW.category_id IS NOT NULL AND (NEW.category_id IS DISTINCT FROM OLD.category_id
        OR NEW.lineage_id IS DISTINCT FROM OLD.lineage_id OR NEW.lorebook_name IS DISTINCT FROM OLD.lorebook_name))
    EXECUTE FUNCTION lore_entry_category_check();

-- book_info: what a lore writer wrote to describe a book (its
-- description and tags; never sent to the model), keyed like book_sources
-- (migration 000082): a Serverwide collection (lorebook_id; the row goes
-- with the collection) or a persona lineage's book. While a book has no
-- row its description is the one its file had (book_sources).
CREATE TABLE book_info (
    server_id   snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    lorebook_id bigint      REFERENCES lorebooks (id) ON DELETE CASCADE,
    lineage_id  bigint      CHECK (lineage_id > 0),
    description text        NOT NULL DEFAULT '' CHECK (char_length(description) <= 20000),
    tags        text[]      NOT NULL DEFAULT '{}'
                            CHECK (cardinality(tags) <= 50 AND array_position(tags, NULL) IS NULL),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT book_info_scope_shape CHECK ((lorebook_id IS NULL) <> (lineage_id IS NULL))
);
CREATE UNIQUE INDEX book_info_lorebook_key ON book_info (lorebook_id) WHERE lorebook_id IS NOT NULL;
CREATE UNIQUE INDEX book_info_lineage_key ON book_info (server_id, lineage_id) WHERE lineage_id IS NOT NULL;
