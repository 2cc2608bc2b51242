-- 000085_turn_log_lz4: a recorded turn's log row (its admitted entries and
-- the result kept for retries, tens of KB with the trace) is compressed
-- with lz4 instead of pglz, several times cheaper per turn
-- (docs/benchmarks.md#turns). A server built without lz4 keeps pglz; rows
-- written before keep theirs (both read the same).
DO $$
BEGIN
    ALTER TABLE activation_log ALTER COLUMN response SET COMPRESSION lz4,
                               ALTER COLUMN admitted SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'lz4 is not available: activation_log keeps pglz';
END $$;
