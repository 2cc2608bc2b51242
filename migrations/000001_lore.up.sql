-- 000001_lore: loregate's lore schema (DESIGN.md "Storage"; seed 000
-- "Storage and ownership"). lore/postgres is the only code that reads or
-- writes these tables.
--
-- Conventions
--   * Discord snowflakes (guild and channel ids) are TEXT in the domain
--     `snowflake`: 17-20 ASCII digits without a leading zero, the syntax
--     lore.ValidSnowflake checks. TEXT keeps them identical to the Go and
--     GraphQL string form (no int64 overflow questions, no leading-zero
--     ambiguity); arrays of channel ids are `snowflake[]`, checked per element.
--   * A persona lineage is BIGINT > 0; NULL means Serverwide (lore.Serverwide,
--     the panel's lineage 0, is never stored).
--   * Text lengths in CHECKs count code points (char_length). Go validates the
--     real limits in UTF-16 code units (lore.UTF16Len), which are never fewer
--     than code points, so the database bounds are a safety net that Go-valid
--     data always passes.
--   * The per-scope limit of 250 entries needs the server-row lock and is
--     enforced by lore/postgres, not by a constraint.

CREATE DOMAIN snowflake AS text
    CHECK (VALUE ~ '^[1-9][0-9]{16,19}$');

-- Every table with updated_at keeps it current through this trigger.
CREATE FUNCTION lore_set_updated_at() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    NEW.updated_at := now();
    RETURN NEW;
END;
$$;

-- servers: one Discord guild. lore_version increases with every lore write
-- of the server (entries, collections, settings), in the writing
-- transaction; matcher caches key on it.
CREATE TABLE servers (
    id                     snowflake   PRIMARY KEY,
    name                   text        NOT NULL DEFAULT ''
                                       CHECK (char_length(name) <= 100),
    -- the seed's channel scoping switch: false bypasses the channel gate.
    channel_memory_enabled boolean     NOT NULL DEFAULT true,
    -- legacy keyword-memory conversion: false makes converted entries Always On.
    memory_tagging_enabled boolean     NOT NULL DEFAULT true,
    -- /pattern/flags keys act as RE2 regular expressions when true.
    regex_keys_enabled     boolean     NOT NULL DEFAULT true,
    lore_version           bigint      NOT NULL DEFAULT 0 CHECK (lore_version >= 0),
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now()
);

CREATE TRIGGER servers_set_updated_at
    BEFORE UPDATE ON servers
    FOR EACH ROW EXECUTE FUNCTION lore_set_updated_at();

-- personas: the registry of the bot's personas on a server. Lore is keyed by
-- lineage and has no foreign key to this table, so it survives removal.
CREATE TABLE personas (
    server_id    snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    id           bigint      NOT NULL CHECK (id > 0),
    lineage_id   bigint      NOT NULL CHECK (lineage_id > 0),
    display_name text        NOT NULL
                             CHECK (btrim(display_name) <> '' AND char_length(display_name) <= 200),
    removed      boolean     NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (server_id, id)
);

CREATE INDEX personas_lineage_idx ON personas (server_id, lineage_id);

CREATE TRIGGER personas_set_updated_at
    BEFORE UPDATE ON personas
    FOR EACH ROW EXECUTE FUNCTION lore_set_updated_at();

-- lorebooks: named Serverwide collections (the seed's server_lorebooks). The
-- enabled flag and the channel ids apply to every entry of the collection.
CREATE TABLE lorebooks (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server_id   snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    name        text        NOT NULL
                            CHECK (btrim(name) <> '' AND char_length(name) <= 100),
    enabled     boolean     NOT NULL DEFAULT true,
    channel_ids snowflake[] NOT NULL DEFAULT '{}'
                            CHECK (cardinality(channel_ids) <= 100 AND array_position(channel_ids, NULL) IS NULL),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT lorebooks_server_name_key UNIQUE (server_id, name)
);

CREATE TRIGGER lorebooks_set_updated_at
    BEFORE UPDATE ON lorebooks
    FOR EACH ROW EXECUTE FUNCTION lore_set_updated_at();

-- lorebook_entries: every entry of both scopes. Serverwide entries
-- (lineage_id NULL) name their collection and carry no channel ids (the
-- collection's apply); persona entries (lineage_id > 0) have no collection
-- and carry their own channel ids. The collection FK cascades a rename
-- (ON UPDATE) and a delete.
CREATE TABLE lorebook_entries (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server_id       snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    lineage_id      bigint      CHECK (lineage_id > 0),
    lorebook_name   text,
    title           text        NOT NULL DEFAULT '' CHECK (char_length(title) <= 200),
    content         text        NOT NULL
                                CHECK (btrim(content) <> '' AND char_length(content) <= 4000),
    keys            text[]      NOT NULL DEFAULT '{}'
                                CHECK (cardinality(keys) <= 100 AND array_position(keys, NULL) IS NULL),
    secondary_keys  text[]      NOT NULL DEFAULT '{}'
                                CHECK (cardinality(secondary_keys) <= 100 AND array_position(secondary_keys, NULL) IS NULL),
    selective_logic text        NOT NULL DEFAULT 'AND_ANY'
                                CHECK (selective_logic IN ('AND_ANY', 'AND_ALL', 'NOT_ANY', 'NOT_ALL')),
    constant        boolean     NOT NULL DEFAULT false,
    enabled         boolean     NOT NULL DEFAULT true,
    -- NULL inherits the engine default.
    scan_depth      integer     CHECK (scan_depth BETWEEN 1 AND 100),
    -- trigger chance in percent; an explicit 0 blocks activation.
    probability     integer     NOT NULL DEFAULT 100 CHECK (probability BETWEEN 0 AND 100),
    insertion_order integer     NOT NULL DEFAULT 100,
    priority        integer     NOT NULL DEFAULT 100,
    placement       text        NOT NULL DEFAULT 'after' CHECK (placement IN ('before', 'after')),
    role            text        NOT NULL DEFAULT 'system' CHECK (role IN ('system', 'user', 'assistant')),
    -- NULL inherits the default matching rule.
    case_sensitive  boolean,
    whole_words     boolean,
    -- outside the activation budget (SillyTavern ignoreBudget).
    ignore_budget   boolean     NOT NULL DEFAULT false,
    channel_ids     snowflake[] NOT NULL DEFAULT '{}'
                                CHECK (cardinality(channel_ids) <= 100 AND array_position(channel_ids, NULL) IS NULL),
    -- source fields the model does not act on, kept verbatim for round trips.
    extensions      jsonb       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(extensions) = 'object'),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT lorebook_entries_scope_shape CHECK (
        (lineage_id IS NULL AND lorebook_name IS NOT NULL AND cardinality(channel_ids) = 0)
        OR (lineage_id IS NOT NULL AND lorebook_name IS NULL)
    ),
    CONSTRAINT lorebook_entries_lorebook_fkey FOREIGN KEY (server_id, lorebook_name)
        REFERENCES lorebooks (server_id, name) ON UPDATE CASCADE ON DELETE CASCADE
);

-- The per-turn read (lore.Store.LoadEnabledForScope) and the panel reads
-- (ListScope, counts, the locked counts of inserts) all start with
-- (server_id, lineage_id); enabled is the third column so the per-turn read
-- is answered by equality on all three. Serverwide rows use IS NULL, which
-- a btree index serves.
CREATE INDEX lorebook_entries_scope_idx ON lorebook_entries (server_id, lineage_id, enabled);

-- Serves the collection FK (rename and delete cascades) and per-collection
-- listings.
CREATE INDEX lorebook_entries_lorebook_idx ON lorebook_entries (server_id, lorebook_name)
    WHERE lorebook_name IS NOT NULL;

CREATE TRIGGER lorebook_entries_set_updated_at
    BEFORE UPDATE ON lorebook_entries
    FOR EACH ROW EXECUTE FUNCTION lore_set_updated_at();

-- legacy_channel_scope_tags: unresolved legacy #channel names of an entry,
-- pending the channel-name backfill. While an entry has any, readers admit
-- every channel. Removed with the entry.
CREATE TABLE legacy_channel_scope_tags (
    entry_id bigint NOT NULL REFERENCES lorebook_entries (id) ON DELETE CASCADE,
    name     text   NOT NULL CHECK (btrim(name) <> '' AND char_length(name) <= 100),
    PRIMARY KEY (entry_id, name)
);
