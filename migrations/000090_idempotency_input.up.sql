-- 000090_idempotency_input (up): the digest of the input a write ran with,
-- beside the result its idempotency key replays (docs/api.md "Idempotency
-- keys"): a repeat of the key with other input is refused. NULL (a row
-- written before this, or by an older process during an upgrade) matches
-- any input. A column, not part of result, so that a process older than
-- this still replays what it reads.
ALTER TABLE idempotency_keys ADD COLUMN input_digest text;
