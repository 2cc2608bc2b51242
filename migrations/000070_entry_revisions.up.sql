-- 000070_entry_revisions: the revision history of every entry (issue 29,
-- docs/workbench.md#revisions). lore/postgres (revision.go) reads it.
--
-- A trigger on lorebook_entries writes one row per entry per writing
-- transaction: the whole canonical entry as that write left it
-- (to_jsonb of the row, so columns later migrations add are captured too,
-- plus its pending legacy channel names), or, for a delete, as it was last.
-- Two changes of one entry in one transaction (an insert and its legacy
-- names, an entry deleted and restored by an undo) leave one revision: the
-- last state (the entry's newest revision is the one to replace, as its
-- row lock orders the writers of one entry). Who wrote and the kind of write come from the transaction-local
-- settings loregate.revision_actor and loregate.revision_kind that
-- lore/postgres sets with the server-row lock; without them the kind
-- follows the statement (create, update, delete). Rows go with their
-- server (ON DELETE CASCADE) but outlive their entry: a deleted entry can
-- be restored. A River job prunes them (LOREGATE_REVISION_RETENTION,
-- LOREGATE_REVISION_MAX_AGE).
CREATE TABLE entry_revisions (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server_id     snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    entry_id      bigint      NOT NULL,
    lineage_id    bigint,
    lorebook_name text,
    -- create | update | delete | import | undo | move | restore | proposal | bulk
    kind          text        NOT NULL CHECK (char_length(kind) <= 20),
    -- "user:<discord id>", "service:<name>", "cli", "job" or ''.
    actor         text        NOT NULL DEFAULT '' CHECK (char_length(actor) <= 200),
    at            timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- true when the write removed the entry (entry holds its last state).
    deleted       boolean     NOT NULL DEFAULT false,
    -- the writing transaction: later changes of the entry in the same
    -- transaction update this row instead of adding one.
    tx            xid8        NOT NULL DEFAULT pg_current_xact_id(),
    entry         jsonb       NOT NULL
);

CREATE INDEX entry_revisions_entry_idx ON entry_revisions (entry_id, id DESC);
CREATE INDEX entry_revisions_deleted_idx ON entry_revisions (server_id, id DESC) WHERE deleted;
-- at grows with id, so a BRIN index serves the prune by age at almost no
-- cost per insert.
CREATE INDEX entry_revisions_at_idx ON entry_revisions USING brin (at);

-- lore_entry_revision_tags returns an entry's pending legacy channel names
-- as a JSON array, sorted.
CREATE FUNCTION lore_entry_revision_tags(entry bigint) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT COALESCE(jsonb_agg(t.name ORDER BY t.name), '[]'::jsonb)
    FROM legacy_channel_scope_tags t WHERE t.entry_id = entry
$$;

CREATE FUNCTION lore_entry_revision() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    r lorebook_entries;
    del boolean := TG_OP = 'DELETE';
    k text := NULLIF(current_setting('loregate.revision_kind', true), '');
    who text := COALESCE(current_setting('loregate.revision_actor', true), '');
    snap jsonb;
BEGIN
    IF del THEN
        r := OLD;
        -- a server being deleted takes its revisions with it.
        IF NOT EXISTS (SELECT 1 FROM servers s WHERE s.id = OLD.server_id) THEN
            RETURN OLD;
        END IF;
    ELSE
        r := NEW;
    END IF;
    k := COALESCE(k, CASE TG_OP WHEN 'INSERT' THEN 'create' WHEN 'DELETE' THEN 'delete' ELSE 'update' END);
    snap := to_jsonb(r) || jsonb_build_object('legacy_channel_tags', lore_entry_revision_tags(r.id));
    UPDATE entry_revisions v SET entry = snap, deleted = del, at = clock_timestamp(),
        lineage_id = r.lineage_id, lorebook_name = r.lorebook_name,
        kind = CASE WHEN del AND v.kind IN ('create', 'update') THEN 'delete' ELSE v.kind END
    WHERE v.id = (SELECT max(m.id) FROM entry_revisions m WHERE m.entry_id = r.id) AND v.tx = pg_current_xact_id();
    IF NOT FOUND THEN
        INSERT INTO entry_revisions (server_id, entry_id, lineage_id, lorebook_name, kind, actor, deleted, entry)
        VALUES (r.server_id, r.id, r.lineage_id, r.lorebook_name, k, left(who, 200), del, snap);
    END IF;
    IF del THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END
$$;

-- BEFORE DELETE, so the deleted state still has its legacy names (the
-- cascade removes them after the row).
CREATE TRIGGER lorebook_entries_revision_delete
    BEFORE DELETE ON lorebook_entries
    FOR EACH ROW EXECUTE FUNCTION lore_entry_revision();

CREATE TRIGGER lorebook_entries_revision_write
    AFTER INSERT OR UPDATE ON lorebook_entries
    FOR EACH ROW EXECUTE FUNCTION lore_entry_revision();

-- Legacy names written or cleared after their entry's write in the same
-- transaction join that write's revision.
CREATE FUNCTION lore_entry_revision_tag_change() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    eid bigint;
    sid text;
BEGIN
    IF TG_OP = 'DELETE' THEN eid := OLD.entry_id; ELSE eid := NEW.entry_id; END IF;
    SELECT e.server_id INTO sid FROM lorebook_entries e WHERE e.id = eid;
    IF sid IS NOT NULL THEN
        UPDATE entry_revisions v SET entry = jsonb_set(v.entry, '{legacy_channel_tags}', lore_entry_revision_tags(eid))
        WHERE v.id = (SELECT max(m.id) FROM entry_revisions m WHERE m.entry_id = eid)
            AND v.tx = pg_current_xact_id() AND NOT v.deleted;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER legacy_channel_scope_tags_revision
    AFTER INSERT OR DELETE ON legacy_channel_scope_tags
    FOR EACH ROW EXECUTE FUNCTION lore_entry_revision_tag_change();

-- lore_entry_defaults returns the column defaults of lorebook_entries as a
-- JSON object (identity and the timestamps left out). A revision is read
-- as jsonb_populate_record(NULL::lorebook_entries, lore_entry_defaults() ||
-- entry), so a revision taken before a later migration added a column
-- reads, and restores, with that column's default.
CREATE FUNCTION lore_entry_defaults() RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
    c record;
    v jsonb;
    out jsonb := '{}';
BEGIN
    FOR c IN SELECT a.attname, pg_get_expr(d.adbin, d.adrelid) AS expr
        FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = 'lorebook_entries'::regclass AND a.attnum > 0 AND NOT a.attisdropped
            AND a.attidentity = '' AND a.attgenerated = '' AND a.attname NOT IN ('created_at', 'updated_at')
    LOOP
        EXECUTE 'SELECT to_jsonb(' || c.expr || ')' INTO v;
        out := out || jsonb_build_object(c.attname, v);
    END LOOP;
    RETURN out;
END
$$;

-- Bulk operations are recorded in the import history so undoImport undoes
-- them (docs/imports.md).
ALTER TABLE import_history DROP CONSTRAINT import_history_kind_check;
ALTER TABLE import_history ADD CONSTRAINT import_history_kind_check
    CHECK (kind IN ('file', 'backup', 'migration', 'collection_delete', 'scope_wipe', 'undo', 'bulk'));
