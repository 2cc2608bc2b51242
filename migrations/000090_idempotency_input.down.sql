-- 000090_idempotency_input (down): no input digests; a repeat of a key
-- replays its result whatever its input, as before.
-- no loss: column idempotency_keys.input_digest (a digest of inputs, kept 24 hours with their keys)
ALTER TABLE idempotency_keys DROP COLUMN input_digest;
