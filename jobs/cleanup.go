package jobs

import (
	"context"

	"github.com/riverqueue/river"
)

// CleanupArgs is the periodic deletion of expired upload blobs and backup
// artifacts, of job reports older than Deps.ReportRetention, of
// idempotency keys older than postgres.IdempotencyTTL and of import history
// snapshots older than Deps.SnapshotRetention.
type CleanupArgs struct{}

// Kind is "job_data_cleanup".
func (CleanupArgs) Kind() string { return "job_data_cleanup" }

// CleanupWorker works CleanupArgs.
type CleanupWorker struct {
	river.WorkerDefaults[CleanupArgs]
	Deps
}

// Work deletes what expired; database failures are retried.
func (w *CleanupWorker) Work(ctx context.Context, job *river.Job[CleanupArgs]) error {
	now := w.NowFunc()
	c, err := w.Store.DeleteExpired(ctx, now, now.Add(-w.ReportRetention))
	if err != nil {
		return err
	}
	snaps, err := w.Store.PruneSnapshots(ctx, now.Add(-w.SnapshotRetention))
	if err != nil {
		return err
	}
	w.Logger.InfoContext(ctx, "job data cleanup", "job_id", job.ID, "blobs", c.Blobs, "artifacts", c.Artifacts, "reports", c.Reports,
		"idempotency_keys", c.IdempotencyKeys, "history_snapshots", snaps)
	return nil
}
