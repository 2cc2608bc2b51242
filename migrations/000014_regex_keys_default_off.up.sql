-- 000014_regex_keys_default_off: new servers start with regex keys off (a
-- /a+/ key is literal text until a manager turns RE2 regex keys on).
-- Existing servers keep their value.
ALTER TABLE servers ALTER COLUMN regex_keys_enabled SET DEFAULT false;
