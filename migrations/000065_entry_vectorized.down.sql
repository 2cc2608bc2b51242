-- The flag's source value stays in the entries' extensions where an import
-- kept it; a flag set by an edit is lost.
ALTER TABLE lorebook_entries DROP COLUMN vectorized;
