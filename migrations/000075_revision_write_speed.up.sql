-- 000075_revision_write_speed (issue 29; the workbench range 70-74 was
-- full): the revision triggers of 000072 made
-- cheaper (issue 29's speed goals: a revision adds at most 20% to an entry
-- update; moving 250 entries in one call costs at most 0.2x 250 single
-- updates; docs/workbench.md#revisions). The rules do not change: one
-- revision per entry per writing transaction holding the whole entry as
-- the write left it (a delete: as it was last).
--
-- - The revision of an entry in this transaction is found by a unique
--   index on (entry_id, tx), written with INSERT ... ON CONFLICT: no
--   lookup of the entry's newest revision, whose plan (max(id) on a table
--   the planner last saw small) turned into a scan of the whole table.
-- - A delete's state is the entry's newest revision when that one is not a
--   delete (every write records the state it left, so it is the entry as
--   it was last); only an entry without one (pruned, or older than
--   000070) is converted again.
-- - Pending legacy channel names are added to the state only when there
--   are any (readers take a missing list as empty; an insert never has
--   any yet, and the row trigger of 000070 records the deletes that do).
-- - Revision states and import snapshots are compressed with lz4 where
--   the server has it (cheaper than pglz, the default).

-- the merge rule kept at most one revision per entry and transaction; a
-- repeat (none is expected) keeps the newest.
DELETE FROM entry_revisions a USING entry_revisions b
WHERE a.entry_id = b.entry_id AND a.tx = b.tx AND a.id < b.id;
CREATE UNIQUE INDEX entry_revisions_entry_tx_key ON entry_revisions (entry_id, tx);

CREATE OR REPLACE FUNCTION lore_entry_revision_rows() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    k text := COALESCE(NULLIF(current_setting('loregate.revision_kind', true), ''),
        CASE TG_OP WHEN 'INSERT' THEN 'create' WHEN 'DELETE' THEN 'delete' ELSE 'update' END);
    who text := left(COALESCE(current_setting('loregate.revision_actor', true), ''), 200);
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO entry_revisions AS v (server_id, entry_id, lineage_id, lorebook_name, kind, actor, deleted, entry)
        SELECT c.server_id, c.id, c.lineage_id, c.lorebook_name, k, who, true,
            CASE WHEN l.deleted IS FALSE THEN l.entry ELSE to_jsonb(c) END
        FROM changed_rows c
        LEFT JOIN LATERAL (SELECT r.entry, r.deleted FROM entry_revisions r
            WHERE r.entry_id = c.id ORDER BY r.id DESC LIMIT 1) l ON true
        -- a server being deleted takes its revisions with it.
        WHERE EXISTS (SELECT 1 FROM servers sv WHERE sv.id = c.server_id)
        ON CONFLICT (entry_id, tx) DO UPDATE SET entry = EXCLUDED.entry, deleted = true, at = clock_timestamp(),
            lineage_id = EXCLUDED.lineage_id, lorebook_name = EXCLUDED.lorebook_name,
            kind = CASE WHEN v.kind IN ('create', 'update') THEN 'delete' ELSE v.kind END
        WHERE NOT v.deleted;
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO entry_revisions AS v (server_id, entry_id, lineage_id, lorebook_name, kind, actor, deleted, entry)
        SELECT c.server_id, c.id, c.lineage_id, c.lorebook_name, k, who, false, to_jsonb(c)
        FROM changed_rows c
        ON CONFLICT (entry_id, tx) DO UPDATE SET entry = EXCLUDED.entry, deleted = false, at = clock_timestamp(),
            lineage_id = EXCLUDED.lineage_id, lorebook_name = EXCLUDED.lorebook_name;
    ELSE
        INSERT INTO entry_revisions AS v (server_id, entry_id, lineage_id, lorebook_name, kind, actor, deleted, entry)
        SELECT c.server_id, c.id, c.lineage_id, c.lorebook_name, k, who, false,
            CASE WHEN tg.names IS NULL THEN to_jsonb(c)
                ELSE to_jsonb(c) || jsonb_build_object('legacy_channel_tags', tg.names) END
        FROM changed_rows c
        CROSS JOIN LATERAL (SELECT jsonb_agg(t.name ORDER BY t.name) AS names
            FROM legacy_channel_scope_tags t WHERE t.entry_id = c.id) tg
        ON CONFLICT (entry_id, tx) DO UPDATE SET entry = EXCLUDED.entry, deleted = false, at = clock_timestamp(),
            lineage_id = EXCLUDED.lineage_id, lorebook_name = EXCLUDED.lorebook_name;
    END IF;
    RETURN NULL;
END
$$;

-- lore_entry_revision (the row trigger before a delete): only entries with
-- pending legacy channel names, whose names the cascade removes before the
-- statement trigger runs.
CREATE OR REPLACE FUNCTION lore_entry_revision() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'DELETE' OR NOT EXISTS (SELECT 1 FROM legacy_channel_scope_tags t WHERE t.entry_id = OLD.id)
        OR NOT EXISTS (SELECT 1 FROM servers s WHERE s.id = OLD.server_id) THEN
        RETURN OLD;
    END IF;
    INSERT INTO entry_revisions AS v (server_id, entry_id, lineage_id, lorebook_name, kind, actor, deleted, entry)
    VALUES (OLD.server_id, OLD.id, OLD.lineage_id, OLD.lorebook_name,
        COALESCE(NULLIF(current_setting('loregate.revision_kind', true), ''), 'delete'),
        left(COALESCE(current_setting('loregate.revision_actor', true), ''), 200), true,
        to_jsonb(OLD) || jsonb_build_object('legacy_channel_tags', lore_entry_revision_tags(OLD.id)))
    ON CONFLICT (entry_id, tx) DO UPDATE SET entry = EXCLUDED.entry, deleted = true, at = clock_timestamp(),
        lineage_id = EXCLUDED.lineage_id, lorebook_name = EXCLUDED.lorebook_name,
        kind = CASE WHEN v.kind IN ('create', 'update') THEN 'delete' ELSE v.kind END;
    RETURN OLD;
END
$$;

-- Legacy names written or cleared after their entry's write in the same
-- transaction join that write's revision.
CREATE OR REPLACE FUNCTION lore_entry_revision_tag_change() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    eid bigint;
BEGIN
    IF TG_OP = 'DELETE' THEN eid := OLD.entry_id; ELSE eid := NEW.entry_id; END IF;
    IF EXISTS (SELECT 1 FROM lorebook_entries e WHERE e.id = eid) THEN
        UPDATE entry_revisions v SET entry = jsonb_set(v.entry, '{legacy_channel_tags}', lore_entry_revision_tags(eid))
        WHERE v.entry_id = eid AND v.tx = pg_current_xact_id() AND NOT v.deleted;
    END IF;
    RETURN NULL;
END
$$;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE entry_revisions ALTER COLUMN entry SET COMPRESSION lz4;
        ALTER TABLE import_history ALTER COLUMN snapshot SET COMPRESSION lz4;
    END IF;
END
$$;
