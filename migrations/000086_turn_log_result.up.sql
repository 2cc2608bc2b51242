-- 000086_turn_log_result: a recorded turn's result, kept for its retries,
-- in the API's compact encoding (bytea: the trace as ids, verdict codes
-- and titles, not ~30 KB of JSON objects that Postgres parsed as jsonb
-- every turn; docs/benchmarks.md#bytes-and-wal-per-recorded-turn). New rows
-- keep response '{}' and the result here; rows written before keep their
-- jsonb response (NULL result), read as before. Compressed with lz4 where
-- the server has it, like response (000085).
ALTER TABLE activation_log ADD COLUMN result bytea;

DO $$
BEGIN
    ALTER TABLE activation_log ALTER COLUMN result SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'lz4 is not available: activation_log.result keeps pglz';
END $$;
