-- 000055_history_created_persona (down): undoing a persona card import no
-- longer knows which persona it created; the persona then stays.
-- loses: column import_history.created_persona unless NULL
ALTER TABLE import_history DROP COLUMN created_persona;
