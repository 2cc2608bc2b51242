-- 000050_dashboard_sessions: the web dashboard's sign-in sessions (issue 19,
-- docs/dashboard.md). graph/dashboard (session.go) is the only code that
-- reads or writes it.
--
-- The browser holds a random session id in an HttpOnly cookie; the row,
-- keyed by the id's SHA-256, holds the member token the dashboard presents
-- to the API, the guilds the member signed in with (names for the servers
-- list) and the CSRF token of the session's write forms. Signing out
-- deletes the row; expired rows are deleted on the next sign-in.
CREATE TABLE dashboard_sessions (
    id_hash    bytea       PRIMARY KEY CHECK (octet_length(id_hash) = 32),
    user_id    text        NOT NULL CHECK (char_length(user_id) <= 64),
    user_name  text        NOT NULL DEFAULT '' CHECK (char_length(user_name) <= 200),
    -- the member token (a signed JWT): the session's only credential.
    token      text        NOT NULL,
    -- [{"id": "...", "name": "...", "manage": true}, ...]
    guilds     jsonb       NOT NULL DEFAULT '[]',
    csrf       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);

CREATE INDEX dashboard_sessions_expires_at ON dashboard_sessions (expires_at);
