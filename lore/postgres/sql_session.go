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
)
