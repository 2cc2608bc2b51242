-- 000011_entry_activation_fields (down): drops the columns 000011 adds (their
-- values are lost) and restores the 1-100 scan depth range. An explicit scan
-- depth of 0 has no equivalent there and becomes 1, the nearest value.
UPDATE lorebook_entries SET scan_depth = 1 WHERE scan_depth = 0;

ALTER TABLE lorebook_entries
    DROP CONSTRAINT lorebook_entries_scan_depth_check,
    ADD CONSTRAINT lorebook_entries_scan_depth_check CHECK (scan_depth BETWEEN 1 AND 100),
    DROP COLUMN group_names,
    DROP COLUMN group_override,
    DROP COLUMN group_weight,
    DROP COLUMN use_group_scoring,
    DROP COLUMN exclude_recursion,
    DROP COLUMN prevent_recursion,
    DROP COLUMN delay_until_recursion,
    DROP COLUMN sticky,
    DROP COLUMN cooldown,
    DROP COLUMN delay;
