-- 000088_turn_checks_cached (down): the table CHECK constraints of 000035
-- again (the rules are the same; no data changes).
ALTER TABLE turn_entry_state
    DROP CONSTRAINT turn_entry_state_valid,
    ADD CONSTRAINT turn_entry_state_check CHECK ((sticky_start IS NULL) = (sticky_end IS NULL) AND sticky_start <= sticky_end),
    ADD CONSTRAINT turn_entry_state_check1 CHECK ((cooldown_start IS NULL) = (cooldown_end IS NULL) AND cooldown_start <= cooldown_end),
    ADD CONSTRAINT turn_entry_state_check2 CHECK ((first_at IS NULL) = (first_count IS NULL) AND (last_at IS NULL) = (last_count IS NULL));
DROP FUNCTION turn_entry_state_valid(integer, integer, integer, integer, integer, timestamptz, integer, timestamptz);

ALTER TABLE activation_log
    ALTER COLUMN turn_id TYPE text,
    ALTER COLUMN input_sha256 TYPE text,
    ALTER COLUMN message_count TYPE integer,
    ALTER COLUMN admitted TYPE jsonb,
    ALTER COLUMN response TYPE jsonb,
    ADD CONSTRAINT activation_log_turn_id_check CHECK (btrim(turn_id) <> '' AND char_length(turn_id) <= 128),
    ADD CONSTRAINT activation_log_input_sha256_check CHECK (input_sha256 ~ '^[0-9a-f]{64}$'),
    ADD CONSTRAINT activation_log_message_count_check CHECK (message_count >= 0),
    ADD CONSTRAINT activation_log_admitted_check CHECK (jsonb_typeof(admitted) = 'array'),
    ADD CONSTRAINT activation_log_response_check CHECK (jsonb_typeof(response) = 'object');

-- The type change back forgets the compression too: as in the up file.
DO $$ BEGIN EXECUTE format('ALTER TABLE activation_log ALTER COLUMN response SET COMPRESSION %1$s, ALTER COLUMN admitted SET COMPRESSION %1$s',
    (SELECT CASE attcompression WHEN 'l' THEN 'lz4' ELSE 'pglz' END FROM pg_attribute WHERE attrelid = 'activation_log'::regclass AND attname = 'result'));
END $$;
DROP TYPE turn_state_record;
DROP DOMAIN turn_log_id, turn_log_sha256, turn_log_count, turn_log_array, turn_log_object;
