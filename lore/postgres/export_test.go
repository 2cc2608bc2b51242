package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

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

// CachedTurnSettings runs the server lock statement, with its settings, a
// turn on cached state sends before its commit statement, in one batch (one implicit
// transaction) with a read of the settings then in force, as the commit
// statement would see them.
func (s *Store) CachedTurnSettings(ctx context.Context, server string) (syncCommit, planMode string, err error) {
	pool, _ := s.pool(ctx)
	b := &pgx.Batch{}
	b.Queue(turnLockServerPool, server, s.turnCommitMode())
	b.Queue(`SELECT current_setting('synchronous_commit'), current_setting('plan_cache_mode')`)
	br := pool.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return "", "", err
	}
	err = br.QueryRow().Scan(&syncCommit, &planMode)
	return syncCommit, planMode, err
}
