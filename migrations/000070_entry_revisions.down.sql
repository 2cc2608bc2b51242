-- 000070_entry_revisions (down): drops the revisions; bulk records of the
-- import history go (their kind did not exist before).
-- loses: rows import_history where kind = 'bulk'
DELETE FROM import_history WHERE kind = 'bulk';
ALTER TABLE import_history DROP CONSTRAINT import_history_kind_check;
ALTER TABLE import_history ADD CONSTRAINT import_history_kind_check
    CHECK (kind IN ('file', 'backup', 'migration', 'collection_delete', 'scope_wipe', 'undo'));
DROP TRIGGER legacy_channel_scope_tags_revision ON legacy_channel_scope_tags;
DROP FUNCTION lore_entry_revision_tag_change();
DROP TRIGGER lorebook_entries_revision_write ON lorebook_entries;
DROP TRIGGER lorebook_entries_revision_delete ON lorebook_entries;
DROP FUNCTION lore_entry_revision();
DROP FUNCTION lore_entry_revision_tags(bigint);
DROP FUNCTION lore_entry_defaults();
DROP TABLE entry_revisions;
