-- 000011_entry_activation_fields (down): drops the columns 000011 adds (their
-- values are lost) and restores the 1-100 scan depth range. An explicit scan
-- depth of 0 has no equivalent there and becomes 1, the nearest value.
-- loses: rows lorebook_entries where scan_depth = 0
-- loses: column lorebook_entries.group_names unless ''
-- loses: column lorebook_entries.group_override unless false
-- loses: column lorebook_entries.group_weight unless 100
-- loses: column lorebook_entries.use_group_scoring unless NULL
-- loses: column lorebook_entries.exclude_recursion unless false
-- loses: column lorebook_entries.prevent_recursion unless false
-- loses: column lorebook_entries.delay_until_recursion unless 0
-- loses: column lorebook_entries.sticky unless 0
-- loses: column lorebook_entries.cooldown unless 0
-- loses: column lorebook_entries.delay unless 0
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
