package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/transfer"
)

// MigrationArgs runs legacy memory migration RunID (a
// postgres.MigrationRun holding the input; docs/legacy-migration.md).
type MigrationArgs struct {
	RunID int64 `json:"run_id"`
}

// Kind is "legacy_memory_migration".
func (MigrationArgs) Kind() string { return transfer.JobMigration }

// InsertOpts: at most 5 attempts; a retry skips the server blocks an
// earlier attempt committed (their source ids are recorded).
func (MigrationArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 5} }

// MigrationWorker works MigrationArgs: parse the run's input, migrate it
// server by server (transfer.MigrateMemories: one committed block per
// server), record the progress after each block, then store the report and
// complete the job in one transaction.
type MigrationWorker struct {
	river.WorkerDefaults[MigrationArgs]
	Deps
	// AfterBlockFunc, when set, runs after each server block's progress is
	// recorded (tests observe the progress with it).
	AfterBlockFunc func(done, total int)
}

// Timeout bounds one attempt: Deps.ImportTimeout. A run longer than that
// resumes on the next attempt: the server blocks committed so far are
// recorded and skipped.
func (w *MigrationWorker) Timeout(*river.Job[MigrationArgs]) time.Duration { return w.ImportTimeout }

// Work migrates. A missing or finished run and an invalid input cancel the
// job; a database failure is retried.
func (w *MigrationWorker) Work(ctx context.Context, job *river.Job[MigrationArgs]) error {
	run, err := w.Store.GetMigrationRun(ctx, job.Args.RunID)
	if errors.Is(err, lore.ErrNotFound) {
		return river.JobCancel(fmt.Errorf("migration run %d is gone", job.Args.RunID))
	}
	if err != nil {
		return err
	}
	if run.FinishedAt != nil {
		return river.JobCancel(fmt.Errorf("migration run %d already finished", run.ID))
	}
	memories, err := transfer.ParseMemories(run.Data)
	if err != nil {
		msg, _ := lore.Explain(err)
		if ferr := w.Store.FinishMigrationRun(ctx, run.ID, nil, msg); ferr != nil {
			return ferr
		}
		return river.JobCancel(errors.New(msg))
	}
	rep, err := transfer.MigrateMemories(ctx, w.Store, memories, transfer.MigrateOptions{
		Apply: run.Apply, Actor: run.Actor, SourceName: run.SourceName, SourceSHA256: run.SourceSHA256,
		Progress: func(done, total int) {
			// Progress is advisory: a failed update only delays it.
			if err := w.Store.SetMigrationProgress(ctx, run.ID, done, total); err != nil {
				w.Logger.WarnContext(ctx, "record migration progress", "job_id", job.ID, "run", run.ID, "err", err)
			}
			if w.AfterBlockFunc != nil {
				w.AfterBlockFunc(done, total)
			}
		},
	})
	if err != nil {
		w.Logger.WarnContext(ctx, "legacy memory migration interrupted", "job_id", job.ID, "run", run.ID, "attempt", job.Attempt, "err", err)
		return err
	}
	raw, err := json.Marshal(rep)
	if err != nil {
		return fmt.Errorf("encode migration report: %w", err)
	}
	err = w.Store.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		if err := st.FinishMigrationRun(ctx, run.ID, raw, ""); err != nil {
			return err
		}
		return completeTx(ctx, tx, job)
	})
	if err != nil {
		return err
	}
	w.Logger.InfoContext(ctx, "legacy memory migration done", "job_id", job.ID, "run", run.ID, "apply", run.Apply,
		"servers", len(rep.Servers), "added", rep.Added, "already_migrated", rep.AlreadyMigrated, "failed", rep.Failed)
	return nil
}
