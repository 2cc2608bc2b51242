-- 000012_book_settings: the book settings (lore.BookSettings; docs/api.md
-- "Book settings") of Serverwide collections, as columns of lorebooks, and
-- of persona books, in persona_books keyed by (server, lineage). Every
-- setting is nullable: NULL inherits the server layer. budget_limit counts
-- the server's budget unit; its bounds here are the union of both units'
-- ranges (lore.BudgetUnit.LimitRange), Go checks the unit's own.

ALTER TABLE lorebooks
    ADD COLUMN scan_depth          integer CHECK (scan_depth BETWEEN 0 AND 100),
    ADD COLUMN budget_limit        integer CHECK (budget_limit BETWEEN 1 AND 2000000),
    ADD COLUMN recursive           boolean,
    ADD COLUMN max_recursion_steps integer CHECK (max_recursion_steps BETWEEN 0 AND 10),
    ADD COLUMN case_sensitive      boolean,
    ADD COLUMN whole_words         boolean;

-- persona_books: the settings of one persona lineage's book. The lineage
-- need not be registered (lore is keyed by lineage and survives persona
-- removal); a missing row means no settings.
CREATE TABLE persona_books (
    server_id           snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    lineage_id          bigint      NOT NULL CHECK (lineage_id > 0),
    scan_depth          integer     CHECK (scan_depth BETWEEN 0 AND 100),
    budget_limit        integer     CHECK (budget_limit BETWEEN 1 AND 2000000),
    recursive           boolean,
    max_recursion_steps integer     CHECK (max_recursion_steps BETWEEN 0 AND 10),
    case_sensitive      boolean,
    whole_words         boolean,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (server_id, lineage_id)
);

CREATE TRIGGER persona_books_set_updated_at
    BEFORE UPDATE ON persona_books
    FOR EACH ROW EXECUTE FUNCTION lore_set_updated_at();
