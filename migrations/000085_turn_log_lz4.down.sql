-- 000085_turn_log_lz4 (down): new log rows are compressed with the
-- server's default again; rows already written keep lz4 and stay readable.
ALTER TABLE activation_log ALTER COLUMN response SET COMPRESSION default,
                           ALTER COLUMN admitted SET COMPRESSION default;
