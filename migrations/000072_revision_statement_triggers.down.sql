-- 000072_revision_statement_triggers (down): back to 000070's row
-- triggers (the revisions written stay).
-- no loss: rows entry_revisions (its UPDATE and INSERT are the body of the
-- trigger function put back, run by later writes, not by this file)
DROP TRIGGER lorebook_entries_revision_deletes ON lorebook_entries;
DROP TRIGGER lorebook_entries_revision_update ON lorebook_entries;
DROP TRIGGER lorebook_entries_revision_insert ON lorebook_entries;
DROP FUNCTION lore_entry_revision_rows();
CREATE OR REPLACE FUNCTION lore_entry_revision() RETURNS trigger
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

CREATE TRIGGER lorebook_entries_revision_write
    AFTER INSERT OR UPDATE ON lorebook_entries
    FOR EACH ROW EXECUTE FUNCTION lore_entry_revision();
