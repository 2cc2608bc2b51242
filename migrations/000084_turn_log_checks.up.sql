-- 000084_turn_log_checks: the activation log's CHECK constraints move into
-- its one writer, lore/postgres (turn.go checks the turn id, the input
-- digest and the message count before writing; the admitted list and the
-- response are encoded there). Postgres built and ran the five checks on
-- every recorded turn, the digest's regular expression among them: about
-- a tenth of its CPU for a turn (docs/benchmarks.md#recorded-turns-on-the-lean-path).
-- Independent of 000085-000089, which came before it.
ALTER TABLE activation_log
    DROP CONSTRAINT activation_log_turn_id_check,
    DROP CONSTRAINT activation_log_input_sha256_check,
    DROP CONSTRAINT activation_log_message_count_check,
    DROP CONSTRAINT activation_log_admitted_check,
    DROP CONSTRAINT activation_log_response_check;
