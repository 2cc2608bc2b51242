package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// Defaults of the activation-log retention (docs/turns.md).
const (
	// DefaultLogMaxAge is how long activation-log rows are kept.
	DefaultLogMaxAge = 30 * 24 * time.Hour
	// DefaultLogRowsPerConversation is how many of a conversation's newest
	// activation-log rows are kept.
	DefaultLogRowsPerConversation = 500
)

// ActivationLogPruneArgs is the periodic pruning of the activation log:
// rows older than Deps.LogMaxAge and, per conversation, all but the newest
// Deps.LogRowsPerConversation. Turn state is not pruned here: it goes with
// its entry, its conversation's reset or its server.
type ActivationLogPruneArgs struct{}

// Kind is "activation_log_prune".
func (ActivationLogPruneArgs) Kind() string { return "activation_log_prune" }

// ActivationLogPruneWorker works ActivationLogPruneArgs.
type ActivationLogPruneWorker struct {
	river.WorkerDefaults[ActivationLogPruneArgs]
	Deps
}

// Work prunes the log; database failures are retried.
func (w *ActivationLogPruneWorker) Work(ctx context.Context, job *river.Job[ActivationLogPruneArgs]) error {
	n, err := w.Store.PruneActivationLog(ctx, w.NowFunc().Add(-w.LogMaxAge), w.LogRowsPerConversation)
	if err != nil {
		return err
	}
	w.Logger.InfoContext(ctx, "activation log pruned", "job_id", job.ID, "rows", n)
	return nil
}
