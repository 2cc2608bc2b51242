-- 000040_import_history (down): drops exactly what 000040_import_history.up.sql
-- creates. The import history and the migrated-source records are lost;
-- lore is untouched.
DROP TABLE legacy_migration_runs;
DROP TABLE legacy_memory_sources;
DROP TABLE import_history;
