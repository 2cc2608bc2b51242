-- 000081_dashboard_login_states: the Discord sign-ins in progress (issue 26,
-- docs/dashboard.md#sessions-and-forms). graph/dashboard writes a row when a
-- browser starts "Sign in with Discord" and the callback deletes it as it
-- reads it, so a state is good for one callback only: a replayed callback
-- (same cookie, same state, same code) finds no row and starts no session.
-- Rows are keyed by the SHA-256 of the state; they live ten minutes and
-- expired rows are deleted by the next sign-in. At most 10,000 unexpired
-- rows are kept (lore/postgres MaxLoginStates).
CREATE TABLE dashboard_login_states (
    state_hash bytea       PRIMARY KEY CHECK (octet_length(state_hash) = 32),
    -- the PKCE code verifier sent with the code exchange.
    verifier   text        NOT NULL CHECK (char_length(verifier) <= 128),
    -- the dashboard page to open after the sign-in.
    next       text        NOT NULL DEFAULT '' CHECK (char_length(next) <= 2048),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);

CREATE INDEX dashboard_login_states_expires_at ON dashboard_login_states (expires_at);
