package postgres

// Queries on dashboard_sessions (migrations/000050): one row per dashboard
// sign-in, keyed by the SHA-256 of the cookie value.

const (
	sessionDeleteExpired = `DELETE FROM dashboard_sessions WHERE expires_at < now()`
	sessionInsert        = `INSERT INTO dashboard_sessions (id_hash, user_id, user_name, token, guilds, csrf, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)`
	sessionGet = `SELECT user_id, user_name, token, guilds, csrf, expires_at FROM dashboard_sessions
WHERE id_hash = $1 AND expires_at > now()`
	sessionDelete = `DELETE FROM dashboard_sessions WHERE id_hash = $1`

	// Queries on dashboard_login_states (migrations/000081): one row per
	// Discord sign-in in progress, keyed by the SHA-256 of the OAuth state.
	// loginStateLock serialises the starts of sign-ins (a transaction lock:
	// released at commit), so that each one counts the states the one
	// before it stored and MaxLoginStates holds exactly.
	loginStateLock          = `SELECT pg_advisory_xact_lock(hashtextextended('loregate.dashboard_login_states', 0))`
	loginStateDeleteExpired = `DELETE FROM dashboard_login_states WHERE expires_at <= now()`
	loginStateInsert        = `INSERT INTO dashboard_login_states (state_hash, verifier, next, expires_at)
SELECT $1, $2, $3, $4 WHERE (SELECT count(*) FROM dashboard_login_states WHERE expires_at > now()) < $5`
	loginStateConsume = `DELETE FROM dashboard_login_states WHERE state_hash = $1 AND expires_at > now()
RETURNING verifier, next, expires_at`
)
