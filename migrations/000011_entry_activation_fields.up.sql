-- 000011_entry_activation_fields: the inclusion-group, recursion and timed
-- effect fields of an entry (lore.Entry Group..Delay; docs/api.md "Entry"),
-- and an explicit scan depth of 0 (scans no chat message; the range becomes
-- 0-100). Existing rows get the defaults of a source without the fields.
-- Bounds mirror lore/validate.go (MaxGroupLen, MaxGroupWeight,
-- MaxDelayUntilRecursion, MaxTimedEffect); Go validates first.

ALTER TABLE lorebook_entries
    DROP CONSTRAINT lorebook_entries_scan_depth_check,
    ADD CONSTRAINT lorebook_entries_scan_depth_check CHECK (scan_depth BETWEEN 0 AND 100),
    -- comma-separated inclusion group names; '' = none.
    ADD COLUMN group_names           text    NOT NULL DEFAULT '' CHECK (char_length(group_names) <= 400),
    ADD COLUMN group_override        boolean NOT NULL DEFAULT false,
    ADD COLUMN group_weight          integer NOT NULL DEFAULT 100 CHECK (group_weight BETWEEN 0 AND 1000000),
    -- NULL inherits (off).
    ADD COLUMN use_group_scoring     boolean,
    ADD COLUMN exclude_recursion     boolean NOT NULL DEFAULT false,
    ADD COLUMN prevent_recursion     boolean NOT NULL DEFAULT false,
    -- recursion level from which the entry may activate; 0 = no delay.
    ADD COLUMN delay_until_recursion integer NOT NULL DEFAULT 0 CHECK (delay_until_recursion BETWEEN 0 AND 1000),
    -- timed effects in chat messages; 0 = none.
    ADD COLUMN sticky                integer NOT NULL DEFAULT 0 CHECK (sticky BETWEEN 0 AND 100000),
    ADD COLUMN cooldown              integer NOT NULL DEFAULT 0 CHECK (cooldown BETWEEN 0 AND 100000),
    ADD COLUMN delay                 integer NOT NULL DEFAULT 0 CHECK (delay BETWEEN 0 AND 100000);
