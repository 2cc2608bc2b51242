-- 000084_turn_log_checks (down): the checks again, as 000035 made them
-- (rows written meanwhile pass them: the writer checks the same).
ALTER TABLE activation_log
    ADD CONSTRAINT activation_log_turn_id_check CHECK (btrim(turn_id) <> '' AND char_length(turn_id) <= 128),
    ADD CONSTRAINT activation_log_input_sha256_check CHECK (input_sha256 ~ '^[0-9a-f]{64}$'),
    ADD CONSTRAINT activation_log_message_count_check CHECK (message_count >= 0),
    ADD CONSTRAINT activation_log_admitted_check CHECK (jsonb_typeof(admitted) = 'array'),
    ADD CONSTRAINT activation_log_response_check CHECK (jsonb_typeof(response) = 'object');
