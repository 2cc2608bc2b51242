-- 000055_history_created_persona: the persona a persona card import created
-- (docs/imports.md "Undo"), so that undoing the import removes it with its
-- book unless lore was authored in that book since. NULL: the record
-- created no persona.
ALTER TABLE import_history ADD COLUMN created_persona bigint CHECK (created_persona > 0);
