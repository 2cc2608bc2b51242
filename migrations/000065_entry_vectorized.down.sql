-- The flag's source value stays in the entries' extensions where an import
-- kept it; a flag set by an edit is lost.
-- loses: column lorebook_entries.vectorized unless false
ALTER TABLE lorebook_entries DROP COLUMN vectorized;
