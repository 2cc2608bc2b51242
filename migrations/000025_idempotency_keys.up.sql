-- Idempotency keys of write mutations (docs/api.md "Idempotency keys"):
-- one row per server and key, written in the same transaction as the write
-- it guards, with the result the first call returned. Rows older than 24
-- hours are ignored and deleted by the periodic cleanup.
CREATE TABLE idempotency_keys (
    server_id  text        NOT NULL,
    key        text        NOT NULL CHECK (length(key) BETWEEN 1 AND 200),
    operation  text        NOT NULL,
    principal  text        NOT NULL,
    result     jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (server_id, key)
);

CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
