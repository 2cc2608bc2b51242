-- 000015_content_ceiling: entry content may be longer than 4,000 characters
-- when the deployment raises LOREGATE_MAX_CONTENT_CHARS (docs/configuration.md
-- "Limits"). lore/postgres validates the deployment's limit in UTF-16 units;
-- the database keeps the safety ceiling (lore.CeilingContentChars, 100,000)
-- as its safety net.
ALTER TABLE lorebook_entries DROP CONSTRAINT lorebook_entries_content_check;
ALTER TABLE lorebook_entries ADD CONSTRAINT lorebook_entries_content_check
    CHECK (btrim(content) <> '' AND char_length(content) <= 100000);
