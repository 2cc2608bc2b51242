-- 000001_lore (down): drops exactly what 000001_lore.up.sql creates. All lore
-- is lost; back it up first (workspace backup export).
DROP TABLE legacy_channel_scope_tags;
DROP TABLE lorebook_entries;
DROP TABLE lorebooks;
DROP TABLE personas;
DROP TABLE servers;
DROP FUNCTION lore_set_updated_at();
DROP DOMAIN snowflake;
