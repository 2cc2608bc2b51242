-- 000015_content_ceiling (down): restores the 4,000-character bound. It fails,
-- changing nothing, while an entry is longer: shorten or delete those first.
ALTER TABLE lorebook_entries DROP CONSTRAINT lorebook_entries_content_check;
ALTER TABLE lorebook_entries ADD CONSTRAINT lorebook_entries_content_check
    CHECK (btrim(content) <> '' AND char_length(content) <= 4000);
