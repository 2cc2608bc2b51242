package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"loregate/lore"
)

// DefaultServerRetention is how long a server the bot left keeps its lore
// (LOREGATE_SERVER_RETENTION; docs/servers.md).
const DefaultServerRetention = lore.DefaultServerRetention

// purgeBatch bounds the servers one run purges; the next run takes the rest.
const purgeBatch = 100

// ServerPurgeArgs is the periodic purge of servers the bot left more than
// Deps.ServerRetention ago (docs/servers.md). Each server goes in one
// transaction (lore.LifecycleStore.PurgeServer): a run killed half way
// rolls that server back whole, and the retried or next run purges it.
type ServerPurgeArgs struct{}

// Kind is "server_purge".
func (ServerPurgeArgs) Kind() string { return "server_purge" }

// ServerPurgeWorker works ServerPurgeArgs.
type ServerPurgeWorker struct {
	river.WorkerDefaults[ServerPurgeArgs]
	Deps
}

// Work purges what is due; a server that rejoined since it was listed is
// kept. Database failures are retried.
func (w *ServerPurgeWorker) Work(ctx context.Context, job *river.Job[ServerPurgeArgs]) error {
	cutoff := w.NowFunc().Add(-w.ServerRetention)
	ids, err := w.Store.LeftServers(ctx, cutoff, purgeBatch)
	if err != nil {
		return err
	}
	for _, id := range ids {
		counts, err := w.Store.PurgeServer(ctx, id, lore.PurgeRule{LeftBefore: cutoff, Actor: "retention " + w.ServerRetention.String()})
		if errors.Is(err, lore.ErrStaleTarget) || errors.Is(err, lore.ErrNotFound) {
			continue // rejoined, or deleted by an operator meanwhile
		}
		if err != nil {
			return err
		}
		var rows int64
		for _, c := range counts {
			rows += c.Rows
		}
		w.Logger.InfoContext(ctx, "server purged", "job_id", job.ID, "server", id, "rows", rows, "retention", w.ServerRetention.String())
	}
	return nil
}

// Timeout bounds one run of the purge like an import (Deps.ImportTimeout).
func (w *ServerPurgeWorker) Timeout(*river.Job[ServerPurgeArgs]) time.Duration {
	return w.ImportTimeout
}
