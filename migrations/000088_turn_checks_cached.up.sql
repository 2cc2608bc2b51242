-- 000088_turn_checks_cached: the rules of a recorded turn's rows, checked
-- as cheaply as Postgres allows (docs/benchmarks.md#turn-commit-postgres).
--
-- A table's CHECK constraint is read back from its stored text and planned
-- again by every statement that writes the table: for the one statement a
-- recorded turn writes (turn.go turnCommit) the 8 CHECKs of activation_log
-- and turn_entry_state were a quarter of Postgres' instructions per turn,
-- the turn id pattern alone (a regular expression) 7%. The same rules now
-- live where Postgres keeps them planned once per connection:
--
-- * activation_log's column rules are domains (a domain's CHECK is parsed
--   and planned once per connection, in the type cache); the turn id
--   pattern is the same set of strings without a regular expression;
-- * turn_entry_state's three rules over pairs of columns are one CHECK
--   calling a plpgsql function (a call is a small expression to read
--   back, and plpgsql keeps its own plan).
--
-- Values that broke a rule before break it now, with the same error
-- (check_violation).
CREATE DOMAIN turn_log_id AS text CHECK (btrim(VALUE) <> '' AND char_length(VALUE) <= 128);
CREATE DOMAIN turn_log_sha256 AS text CHECK (octet_length(VALUE) = 64 AND ltrim(VALUE, '0123456789abcdef') = '');
CREATE DOMAIN turn_log_count AS integer CHECK (VALUE >= 0);
CREATE DOMAIN turn_log_array AS jsonb CHECK (jsonb_typeof(VALUE) = 'array');
CREATE DOMAIN turn_log_object AS jsonb CHECK (jsonb_typeof(VALUE) = 'object');

ALTER TABLE activation_log
    DROP CONSTRAINT activation_log_turn_id_check,
    DROP CONSTRAINT activation_log_input_sha256_check,
    DROP CONSTRAINT activation_log_message_count_check,
    DROP CONSTRAINT activation_log_admitted_check,
    DROP CONSTRAINT activation_log_response_check,
    ALTER COLUMN turn_id TYPE turn_log_id,
    ALTER COLUMN input_sha256 TYPE turn_log_sha256,
    ALTER COLUMN message_count TYPE turn_log_count,
    ALTER COLUMN admitted TYPE turn_log_array,
    ALTER COLUMN response TYPE turn_log_object;

-- A column's type change forgets its compression (000085 set lz4): the
-- method of activation_log.result (lz4 where the server has it, 000086).
DO $$ BEGIN EXECUTE format('ALTER TABLE activation_log ALTER COLUMN response SET COMPRESSION %1$s, ALTER COLUMN admitted SET COMPRESSION %1$s',
    (SELECT CASE attcompression WHEN 'l' THEN 'lz4' ELSE 'pglz' END FROM pg_attribute WHERE attrelid = 'activation_log'::regclass AND attname = 'result'));
END $$;

-- turn_entry_state_valid: an entry's state in a conversation is well
-- formed: each window ([start, end) in message counts) has both ends or
-- none and start <= end; each activation has a count and a time or
-- neither.
CREATE FUNCTION turn_entry_state_valid(sticky_start integer, sticky_end integer, cooldown_start integer,
    cooldown_end integer, first_count integer, first_at timestamptz, last_count integer, last_at timestamptz)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN (sticky_start IS NULL) = (sticky_end IS NULL) AND (sticky_start IS NULL OR sticky_start <= sticky_end)
        AND (cooldown_start IS NULL) = (cooldown_end IS NULL) AND (cooldown_start IS NULL OR cooldown_start <= cooldown_end)
        AND (first_at IS NULL) = (first_count IS NULL) AND (last_at IS NULL) = (last_count IS NULL);
END
$$;

ALTER TABLE turn_entry_state
    DROP CONSTRAINT turn_entry_state_check,
    DROP CONSTRAINT turn_entry_state_check1,
    DROP CONSTRAINT turn_entry_state_check2,
    ADD CONSTRAINT turn_entry_state_valid CHECK (turn_entry_state_valid(sticky_start, sticky_end,
        cooldown_start, cooldown_end, first_count, first_at, last_count, last_at));

-- turn_state_record: one entry's state as a recorded turn sends it, a
-- list of them in one parameter (turn.go turnCommit): one set-returning
-- call where ten parallel arrays were ten, each with its own tuple
-- descriptor set up per statement.
CREATE TYPE turn_state_record AS (
    entry_id           bigint,
    sticky_start       integer,
    sticky_end         integer,
    cooldown_start     integer,
    cooldown_end       integer,
    cooldown_protected boolean,
    first_count        integer,
    first_at           timestamptz,
    last_count         integer,
    last_at            timestamptz
);
