package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// seedServer gives b's server lore in every kind of table: a collection
// with entries, a persona entry, an import history record and an
// idempotency key (the last two have no foreign key to servers).
func seedServer(t *testing.T, b *testBundle, server string) {
	t.Helper()
	_, _, err := b.store.CreateCollectionWithEntries(b.ctx, lore.Collection{Server: server, Name: "World", Enabled: true},
		entries(server, lore.Serverwide, "World", "w", 3))
	require.NoError(t, err)
	_, err = b.pool.Exec(b.ctx, `INSERT INTO import_history (server_id, kind) VALUES ($1, 'file')`, server)
	require.NoError(t, err)
	_, err = b.pool.Exec(b.ctx, `INSERT INTO idempotency_keys (server_id, key, operation, principal) VALUES ($1, 'k', 'op', 'p')`, server)
	require.NoError(t, err)
}

func rowsOf(t *testing.T, b *testBundle, table, server string) int64 {
	t.Helper()
	var n int64
	require.NoError(t, b.pool.QueryRow(b.ctx, "SELECT count(*) FROM "+table+" WHERE server_id = $1", server).Scan(&n))
	return n
}

func lifecycleEvents(t *testing.T, b *testBundle, server string) []string {
	t.Helper()
	rows, err := b.pool.Query(b.ctx, "SELECT event FROM server_lifecycle_events WHERE guild_id = $1 ORDER BY id", server)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var e string
		require.NoError(t, rows.Scan(&e))
		out = append(out, e)
	}
	return out
}

// TestServerLifecycle: left (lore kept, leftAt set), rejoined (restored
// untouched), left again and purged after the retention in one transaction
// covering every server-keyed table; a purge is refused before the
// retention and for a member server; every step is recorded.
func TestServerLifecycle(t *testing.T) {
	b := setup(t)
	other := snowflake(t)
	_, err := b.store.UpsertServer(b.ctx, other, "Other")
	require.NoError(t, err)
	seedServer(t, b, b.server)
	seedServer(t, b, other)

	at := time.Now().Add(-48 * time.Hour).UTC().Truncate(time.Microsecond)
	changed, err := b.store.MarkServerLeft(b.ctx, b.server, at, "gateway")
	require.NoError(t, err)
	require.True(t, changed)
	changed, err = b.store.MarkServerLeft(b.ctx, b.server, time.Now(), "gateway")
	require.NoError(t, err)
	require.False(t, changed, "already left: the first time stays")
	sv, err := b.store.GetServer(b.ctx, b.server)
	require.NoError(t, err)
	require.NotNil(t, sv.LeftAt)
	require.True(t, sv.LeftAt.Equal(at))
	require.EqualValues(t, 3, rowsOf(t, b, "lorebook_entries", b.server), "left keeps the lore")

	_, err = b.store.PurgeServer(b.ctx, b.server, lore.PurgeRule{LeftBefore: at.Add(-time.Hour)})
	require.ErrorIs(t, err, lore.ErrStaleTarget, "within the retention")

	// Rejoin restores it untouched.
	sv, err = b.store.UpsertServer(b.ctx, b.server, "Test Guild")
	require.NoError(t, err)
	require.Nil(t, sv.LeftAt)
	require.EqualValues(t, 3, rowsOf(t, b, "lorebook_entries", b.server))
	_, err = b.store.PurgeServer(b.ctx, b.server, lore.PurgeRule{LeftBefore: time.Now()})
	require.ErrorIs(t, err, lore.ErrStaleTarget, "a member server is never purged by the retention")

	// Left again, then purged.
	_, err = b.store.MarkServerLeft(b.ctx, b.server, at, "gateway")
	require.NoError(t, err)
	due, err := b.store.LeftServers(b.ctx, time.Now().Add(-time.Hour), 10)
	require.NoError(t, err)
	require.Equal(t, []string{b.server}, due)
	before, err := b.store.ServerFootprint(b.ctx, b.server)
	require.NoError(t, err)
	counts, err := b.store.PurgeServer(b.ctx, b.server, lore.PurgeRule{LeftBefore: time.Now().Add(-time.Hour), Actor: "retention"})
	require.NoError(t, err)
	require.Equal(t, before, counts, "the purge removes what the footprint counted")
	got := map[string]int64{}
	for _, c := range counts {
		got[c.Table] = c.Rows
	}
	require.EqualValues(t, 3, got["lorebook_entries"])
	require.EqualValues(t, 1, got["lorebooks"])
	require.EqualValues(t, 1, got["import_history"])
	require.EqualValues(t, 1, got["idempotency_keys"])
	_, err = b.store.GetServer(b.ctx, b.server)
	require.ErrorIs(t, err, lore.ErrNotFound)
	for table := range got {
		if table != "servers" {
			require.Zero(t, rowsOf(t, b, table, b.server), "%s keeps rows of the purged server", table)
		}
	}
	require.EqualValues(t, 3, rowsOf(t, b, "lorebook_entries", other), "another server keeps its lore")
	require.EqualValues(t, 1, rowsOf(t, b, "import_history", other))
	require.Equal(t, []string{"left", "rejoined", "left", "purged"}, lifecycleEvents(t, b, b.server))

	_, err = b.store.PurgeServer(b.ctx, b.server, lore.PurgeRule{Force: true})
	require.ErrorIs(t, err, lore.ErrNotFound)
}

// TestServersMissingFromReadyMarkedLeft: READY's guild list marks the
// servers of the shard it does not list, never those it lists or those of
// other shards.
func TestServersMissingFromReadyMarkedLeft(t *testing.T) {
	b := setup(t)
	// Snowflakes whose shard ((id >> 22) % 2) is known: 0 and 1.
	even, odd := "100000000000000000", "100000000004194304"
	for _, id := range []string{even, odd} {
		_, err := b.store.UpsertServer(b.ctx, id, "g")
		require.NoError(t, err)
	}
	marked, err := b.store.MarkServersLeftExcept(b.ctx, []string{b.server}, 1, 2, time.Now(), "ready")
	require.NoError(t, err)
	require.Equal(t, []string{odd}, marked, "only shard 1's unlisted servers")
	marked, err = b.store.MarkServersLeftExcept(b.ctx, []string{b.server, even}, 0, 1, time.Now(), "ready")
	require.NoError(t, err)
	require.Empty(t, marked, "listed servers and already-left ones are not marked")
	sv, err := b.store.GetServer(b.ctx, b.server)
	require.NoError(t, err)
	require.Nil(t, sv.LeftAt)
	_, err = b.store.MarkServersLeftExcept(b.ctx, nil, 2, 2, time.Now(), "ready")
	require.ErrorIs(t, err, lore.ErrInvalid)
}

// TestKilledPurgeResumes: a purge cut short half way (its connection's
// context ends while a delete waits on a lock, as when the process is
// killed) rolls back whole: nothing of the server is gone, and the next
// purge removes it all.
func TestKilledPurgeResumes(t *testing.T) {
	b := setup(t)
	seedServer(t, b, b.server)
	_, err := b.store.MarkServerLeft(b.ctx, b.server, time.Now().Add(-time.Hour), "gateway")
	require.NoError(t, err)

	// Another transaction holds a lock on one of the server's
	// idempotency keys, which the purge deletes after the cascade.
	blocker, err := b.pool.Begin(b.ctx)
	require.NoError(t, err)
	_, err = blocker.Exec(b.ctx, "SELECT 1 FROM idempotency_keys WHERE server_id = $1 FOR UPDATE", b.server)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(b.ctx)
	done := make(chan error, 1)
	go func() {
		_, err := b.store.PurgeServer(ctx, b.server, lore.PurgeRule{LeftBefore: time.Now()})
		done <- err
	}()
	require.Eventually(t, func() bool {
		var waiting int
		_ = b.pool.QueryRow(b.ctx, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM %idempotency_keys%'").Scan(&waiting)
		return waiting > 0
	}, 10*time.Second, 20*time.Millisecond, "the purge reaches the blocked delete")
	cancel() // the kill
	err = <-done
	require.Error(t, err)
	require.True(t, errors.Is(err, context.Canceled) || errors.Is(err, lore.ErrUnavailable), "%v", err)
	require.NoError(t, blocker.Rollback(b.ctx))

	require.EqualValues(t, 3, rowsOf(t, b, "lorebook_entries", b.server), "the cut purge rolled back whole")
	require.EqualValues(t, 1, rowsOf(t, b, "import_history", b.server))
	_, err = b.store.GetServer(b.ctx, b.server)
	require.NoError(t, err)

	_, err = b.store.PurgeServer(b.ctx, b.server, lore.PurgeRule{LeftBefore: time.Now()})
	require.NoError(t, err, "the next run purges it")
	require.Zero(t, rowsOf(t, b, "lorebook_entries", b.server))
	require.Zero(t, rowsOf(t, b, "idempotency_keys", b.server))
}
