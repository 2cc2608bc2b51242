-- 000086_turn_log_result (down): the log rows whose result only the compact
-- column holds are deleted with it (their response is '{}'): a retry of
-- such a turn is then recorded as a new turn, as after a prune
-- (docs/turns.md). Rows written before 000086 stay.
-- loses: rows activation_log where result IS NOT NULL
-- loses: column activation_log.result unless NULL
DELETE FROM activation_log WHERE result IS NOT NULL;

ALTER TABLE activation_log DROP COLUMN result;
