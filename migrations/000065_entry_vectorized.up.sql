-- 000065_entry_vectorized: SillyTavern's vectorized flag becomes an entry
-- field (docs/contract.md#semantic). Entries imported before kept it in
-- their extensions (world info "st/vectorized", card extension
-- "card/extensions/vectorized"); those keep the extension and get the flag.
ALTER TABLE lorebook_entries ADD COLUMN vectorized boolean NOT NULL DEFAULT false;

UPDATE lorebook_entries SET vectorized = true
WHERE extensions -> 'st/vectorized' = 'true'::jsonb
   OR extensions -> 'card/extensions/vectorized' = 'true'::jsonb;
