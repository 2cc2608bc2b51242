-- 000075_revision_write_speed (down): the revision functions of 000072
-- back, without the (entry_id, tx) index; compression back to the
-- server's default for values written from now on.
-- no loss: rows entry_revisions (its UPDATE and INSERT are the body of the
-- trigger functions put back, run by later writes, not by this file)
ALTER TABLE entry_revisions ALTER COLUMN entry SET COMPRESSION default;
ALTER TABLE import_history ALTER COLUMN snapshot SET COMPRESSION default;
DROP INDEX entry_revisions_entry_tx_key;
CREATE OR REPLACE FUNCTION lore_entry_revision_rows() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    del boolean := TG_OP = 'DELETE';
    k text := COALESCE(NULLIF(current_setting('loregate.revision_kind', true), ''),
        CASE TG_OP WHEN 'INSERT' THEN 'create' WHEN 'DELETE' THEN 'delete' ELSE 'update' END);
    who text := left(COALESCE(current_setting('loregate.revision_actor', true), ''), 200);
    cur xid8 := pg_current_xact_id();
BEGIN
    WITH snap AS (
        SELECT c.id, c.server_id, c.lineage_id, c.lorebook_name,
            to_jsonb(c) || jsonb_build_object('legacy_channel_tags', tg.names) AS s,
            (SELECT max(m.id) FROM entry_revisions m WHERE m.entry_id = c.id) AS last
        FROM changed_rows c
        CROSS JOIN LATERAL (SELECT COALESCE(jsonb_agg(t.name ORDER BY t.name), '[]'::jsonb) AS names
            FROM legacy_channel_scope_tags t WHERE t.entry_id = c.id) tg
        -- a server being deleted takes its revisions with it.
        WHERE NOT del OR EXISTS (SELECT 1 FROM servers sv WHERE sv.id = c.server_id)
    ), merged AS (
        UPDATE entry_revisions v SET entry = snap.s, deleted = del, at = clock_timestamp(),
            lineage_id = snap.lineage_id, lorebook_name = snap.lorebook_name,
            kind = CASE WHEN del AND v.kind IN ('create', 'update') THEN 'delete' ELSE v.kind END
        FROM snap
        WHERE v.id = snap.last AND v.tx = cur AND NOT (del AND v.deleted)
        RETURNING v.id
    )
    INSERT INTO entry_revisions (server_id, entry_id, lineage_id, lorebook_name, kind, actor, deleted, entry)
    SELECT snap.server_id, snap.id, snap.lineage_id, snap.lorebook_name, k, who, del, snap.s
    FROM snap
    WHERE NOT EXISTS (SELECT 1 FROM entry_revisions v WHERE v.id = snap.last AND v.tx = cur);
    RETURN NULL;
END
$$;

-- lore_entry_revision (000070's row function) now records only deletes of
-- entries with pending legacy channel names; the statement triggers do
-- every other write.
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
        IF NOT EXISTS (SELECT 1 FROM legacy_channel_scope_tags t WHERE t.entry_id = OLD.id) THEN
            RETURN OLD;
        END IF;
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

CREATE OR REPLACE FUNCTION lore_entry_revision_tag_change() RETURNS trigger
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
