package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// TestRevisionPrune: the periodic job, run at start-up by the leader,
// keeps each entry's newest RevisionRetention revisions and drops those
// older than RevisionMaxAge.
func TestRevisionPrune(t *testing.T) {
	pool := postgrestest.NewPool(t)
	ctx := context.Background()
	store := postgres.New(pool)
	const server = "123456789012345679"
	_, err := store.UpsertServer(ctx, server, "S")
	require.NoError(t, err)
	e := lore.NewEntry()
	e.Server, e.Lineage, e.Content = server, 2, "v"
	e, err = store.InsertEntry(ctx, e)
	require.NoError(t, err)
	for i := range 4 {
		_, err := store.UpdateEntry(ctx, server, 2, e.ID, lore.EntryPatch{Order: &i})
		require.NoError(t, err)
	}
	old := lore.NewEntry()
	old.Server, old.Lineage, old.Content = server, 2, "old"
	old, err = store.InsertEntry(ctx, old)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE entry_revisions SET at = now() - interval '40 days' WHERE entry_id = $1`, old.ID)
	require.NoError(t, err)

	startClient(t, pool, jobs.Config{Deps: jobs.Deps{RevisionRetention: 2, RevisionMaxAge: 30 * 24 * time.Hour}})
	deadline := time.Now().Add(waitLimit)
	for {
		var state string
		err := pool.QueryRow(ctx, `SELECT state::text FROM river_job WHERE kind = 'revision_prune'`).Scan(&state)
		if err == nil && state == "completed" {
			break
		}
		require.True(t, time.Now().Before(deadline), "prune job not completed (state %q, err %v)", state, err)
		time.Sleep(50 * time.Millisecond)
	}
	revs, _, err := store.EntryRevisions(ctx, server, e.ID, 10, 0)
	require.NoError(t, err)
	require.Len(t, revs, 2)
	require.Equal(t, 3, revs[0].Entry.Order)
	revs, _, err = store.EntryRevisions(ctx, server, old.ID, 10, 0)
	require.NoError(t, err)
	require.Empty(t, revs)
}
