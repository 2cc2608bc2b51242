package postgrestest

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// TestReuse follows one database through four tests of a process: a
// passed test's rows and sequence values are gone for the next test,
// which gets the same database; a test that adds a trigger gets its
// database dropped, so the test after it gets a fresh clone; and spare
// databases of a process that ended are dropped while this process's own
// stay.
func TestReuse(t *testing.T) {
	t.Setenv(EnvNoReuse, "") // this test is the package's first to ask for a database
	ctx := context.Background()
	dbName := func(u string) string {
		p, err := url.Parse(u)
		require.NoError(t, err)
		return strings.TrimPrefix(p.Path, "/")
	}
	var first string
	t.Run("writes", func(t *testing.T) {
		u := NewDatabase(t)
		require.Empty(t, reuse.off, "reuse is on")
		first = dbName(u)
		pool := poolAt(t, u)
		_, err := pool.Exec(ctx, `INSERT INTO servers (id, name) VALUES ('111111111111111111', 'Glade Keepers')`)
		require.NoError(t, err)
		_, err = pool.Exec(ctx, `SELECT nextval(pg_get_serial_sequence('river_job', 'id')) FROM generate_series(1, 5)`)
		require.NoError(t, err)
	})
	require.NotEmpty(t, first, "the first subtest ran")
	t.Run("gets it empty", func(t *testing.T) {
		u := NewDatabase(t)
		require.Equal(t, first, dbName(u), "a passed test's database is reused")
		pool := poolAt(t, u)
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM servers`).Scan(&n))
		require.Zero(t, n, "the rows of the test before are gone")
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM loregate_migrations`).Scan(&n))
		require.NotZero(t, n, "the migration history stays")
		var next int64
		require.NoError(t, pool.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('river_job', 'id'))`).Scan(&next))
		require.EqualValues(t, 1, next, "sequences start again")
		FailEntryInserts(t, pool, "boom")
	})
	t.Run("after a trigger", func(t *testing.T) {
		u := NewDatabase(t)
		require.NotEqual(t, first, dbName(u), "a database whose schema changed is not reused")
		c, err := pgx.Connect(ctx, ServerURL(t))
		require.NoError(t, err)
		defer c.Close(ctx)
		var exists bool
		require.NoError(t, c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, first).Scan(&exists))
		require.False(t, exists, "it was dropped")

		// A spare of an owner that ended is swept; this process's stays,
		// and so do those of the other test processes running now.
		ended := "loregate_t_00000000_" + randomSuffix()
		_, err = c.Exec(ctx, "CREATE DATABASE "+ended)
		require.NoError(t, err)
		sweepEnded(ctx, c)
		require.NoError(t, c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, ended).Scan(&exists))
		require.False(t, exists, "the spare of an ended owner is dropped")
		require.NoError(t, c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, dbName(u)).Scan(&exists))
		require.True(t, exists, "this process's database stays")

		// Another process's spare stays while its owner connection is open,
		// whichever database that connection is on, and goes after.
		cfg, err := pgx.ParseConfig(replaceDatabase(ServerURL(t), "postgres"))
		require.NoError(t, err)
		cfg.RuntimeParams["application_name"] = ownerApp + "11111111"
		live, err := pgx.ConnectConfig(ctx, cfg)
		require.NoError(t, err)
		other := "loregate_t_11111111_" + randomSuffix()
		_, err = c.Exec(ctx, "CREATE DATABASE "+other)
		require.NoError(t, err)
		sweepEnded(ctx, c)
		require.NoError(t, c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, other).Scan(&exists))
		require.True(t, exists, "a running process's spare stays")
		require.NoError(t, live.Close(ctx))
		require.Eventually(t, func() bool {
			sweepEnded(ctx, c)
			return c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, other).Scan(&exists) == nil && !exists
		}, 10*time.Second, 20*time.Millisecond, "an ended process's spare is dropped")
	})
}

// poolAt opens a pool on u, closed when the test ends.
func poolAt(t *testing.T, u string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), u)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}
