package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// TestServerPurgeJob: the server_purge job removes the servers left longer
// ago than the retention, with their lore, and keeps a server left more
// recently and a member server.
func TestServerPurgeJob(t *testing.T) {
	ctx := context.Background()
	pool := postgrestest.NewPool(t)
	store := postgres.New(pool)
	old, recent, member := "300000000000000001", "300000000000000002", "300000000000000003"
	for _, id := range []string{old, recent, member} {
		_, err := store.UpsertServer(ctx, id, "g")
		require.NoError(t, err)
		e := lore.NewEntry()
		e.Server, e.Lineage, e.Content, e.Keys = id, 7, "persona lore", []string{"k"}
		_, err = store.ReplacePersonaBook(ctx, id, 7, []lore.Entry{e})
		require.NoError(t, err)
	}
	now := time.Now()
	_, err := store.MarkServerLeft(ctx, old, now.Add(-31*24*time.Hour), "gateway")
	require.NoError(t, err)
	_, err = store.MarkServerLeft(ctx, recent, now.Add(-24*time.Hour), "gateway")
	require.NoError(t, err)

	client := startClient(t, pool, jobs.Config{Deps: jobs.Deps{Store: store, ServerRetention: 30 * 24 * time.Hour}})
	res := insert(t, pool, jobs.ServerPurgeArgs{})
	row := waitFinal(t, client, res.Job.ID)
	require.Equal(t, rivertype.JobStateCompleted, row.State, "%v", row.Errors)

	_, err = store.GetServer(ctx, old)
	require.ErrorIs(t, err, lore.ErrNotFound, "left 31 days ago: purged")
	var n int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM lorebook_entries WHERE server_id = $1", old).Scan(&n))
	require.Zero(t, n)
	for _, id := range []string{recent, member} {
		_, err := store.GetServer(ctx, id)
		require.NoError(t, err, "%s is kept", id)
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM lorebook_entries WHERE server_id = $1", id).Scan(&n))
		require.Equal(t, 1, n)
	}
}
