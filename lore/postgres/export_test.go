package postgres

import "context"

// LoadEnabledSQL exposes the per-turn statement to the external tests, which
// EXPLAIN exactly the production SQL.
var LoadEnabledSQL = entryLoadEnabled

// SyncCommit is the synchronous_commit setting in force in the turn's
// transaction (pool path only).
func (t *Turn) SyncCommit(ctx context.Context) (string, error) {
	var v string
	err := t.conn.QueryRow(ctx, "SHOW synchronous_commit").Scan(&v)
	return v, err
}
