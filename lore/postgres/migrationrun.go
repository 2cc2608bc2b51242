package postgres

import (
	"context"
	"errors"
	"loregate/lore"
	"time"

	"github.com/jackc/pgx/v5"
)

// MigrationRun is a legacy memory migration queued as a job
// (legacy_migration_runs; docs/legacy-migration.md "Large inputs").
type MigrationRun struct {
	ID           int64
	SourceName   string
	SourceSHA256 string
	// Apply writes; false previews.
	Apply bool
	Actor string
	// Data is the input (JSON lines or a backup bundle); nil once the run
	// finished.
	Data []byte
	// Done and Total count servers.
	Done, Total int
	// Report is the transfer.MigrationReport JSON once finished; Error
	// why the run stopped, if it did.
	Report     []byte
	Error      string
	CreatedAt  time.Time
	FinishedAt *time.Time
}

const (
	runInsert = `INSERT INTO legacy_migration_runs (source_name, source_sha256, apply, actor, data)
VALUES ($1, $2, $3, $4, $5) RETURNING id, created_at`
	runGet = `SELECT id, source_name, source_sha256, apply, actor, data, done, total, report, coalesce(error, ''),
    created_at, finished_at FROM legacy_migration_runs WHERE id = $1`
	runProgress = `UPDATE legacy_migration_runs SET done = $2, total = $3 WHERE id = $1`
	runFinish   = `UPDATE legacy_migration_runs SET report = $2, error = NULLIF($3, ''), data = NULL, finished_at = now()
WHERE id = $1`
	historyServerOf = `SELECT server_id::text FROM import_history WHERE id = $1`
)

// PutMigrationRun stores a queued run (SourceName, SourceSHA256, Apply,
// Actor, Data) and returns it with its id.
func (s *Store) PutMigrationRun(ctx context.Context, r MigrationRun) (MigrationRun, error) {
	r.SourceName = lore.TruncateRunes(r.SourceName, 300)
	r.Actor = lore.TruncateRunes(r.Actor, 200)
	err := s.db.QueryRow(ctx, runInsert, r.SourceName, r.SourceSHA256, r.Apply, r.Actor, r.Data).Scan(&r.ID, &r.CreatedAt)
	return r, wrapErr("put migration run", err)
}

// GetMigrationRun returns run id (ErrNotFound).
func (s *Store) GetMigrationRun(ctx context.Context, id int64) (MigrationRun, error) {
	var r MigrationRun
	err := s.db.QueryRow(ctx, runGet, id).Scan(&r.ID, &r.SourceName, &r.SourceSHA256, &r.Apply, &r.Actor, &r.Data,
		&r.Done, &r.Total, &r.Report, &r.Error, &r.CreatedAt, &r.FinishedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		err = notFound("migration run", id)
	}
	return r, wrapErr("get migration run", err)
}

// SetMigrationProgress records that done of total servers are done.
func (s *Store) SetMigrationProgress(ctx context.Context, id int64, done, total int) error {
	_, err := s.db.Exec(ctx, runProgress, id, done, total)
	return wrapErr("set migration progress", err)
}

// FinishMigrationRun stores the run's report (or its error) and drops its
// input.
func (s *Store) FinishMigrationRun(ctx context.Context, id int64, report []byte, runErr string) error {
	_, err := s.db.Exec(ctx, runFinish, id, report, runErr)
	return wrapErr("finish migration run", err)
}

// HistoryServer returns the server of history record id (ErrNotFound), for
// operator tools that undo by record id alone.
func (s *Store) HistoryServer(ctx context.Context, id int64) (string, error) {
	var server string
	err := s.db.QueryRow(ctx, historyServerOf, id).Scan(&server)
	if errors.Is(err, pgx.ErrNoRows) {
		err = notFound("import", id)
	}
	return server, wrapErr("get history record", err)
}
