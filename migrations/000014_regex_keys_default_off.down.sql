-- 000014_regex_keys_default_off (down): restores the previous default; no
-- server's value changes.
ALTER TABLE servers ALTER COLUMN regex_keys_enabled SET DEFAULT true;
