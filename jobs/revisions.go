package jobs

import (
	"context"

	"github.com/riverqueue/river"
)

// RevisionPruneArgs is the periodic pruning of entry revisions
// (docs/workbench.md#revisions): revisions older than
// Deps.RevisionMaxAge and, per entry, all but the newest
// Deps.RevisionRetention.
type RevisionPruneArgs struct{}

// Kind is "revision_prune".
func (RevisionPruneArgs) Kind() string { return "revision_prune" }

// RevisionPruneWorker works RevisionPruneArgs.
type RevisionPruneWorker struct {
	river.WorkerDefaults[RevisionPruneArgs]
	Deps
}

// Work prunes the revisions; database failures are retried.
func (w *RevisionPruneWorker) Work(ctx context.Context, job *river.Job[RevisionPruneArgs]) error {
	n, err := w.Store.PruneRevisions(ctx, w.RevisionRetention, w.NowFunc().Add(-w.RevisionMaxAge))
	if err != nil {
		return err
	}
	w.Logger.InfoContext(ctx, "revisions pruned", "job_id", job.ID, "rows", n)
	return nil
}
