package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/postgres/postgrestest"
	"loregate/migrations"
)

// TestLoreMigrationDownUp checks that 000001_lore.down.sql drops exactly
// what the up file creates (nothing of it is left, nothing else is
// touched) and that the up file applies again afterwards.
func TestLoreMigrationDownUp(t *testing.T) {
	t.Parallel()
	pool := postgrestest.NewPool(t)
	ctx := t.Context()
	all, err := migrations.All()
	require.NoError(t, err)
	require.Equal(t, 1, all[0].Version)
	m := all[0]

	// Later migrations (jobs tables) depend on the lore tables: undo them
	// first, as `loregate migrate down 1` would, newest first.
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = migrations.Down(ctx, conn.Conn(), 2)
	require.NoError(t, err)

	const objects = `SELECT
    (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace
        AND (relname IN ('servers', 'personas', 'lorebooks', 'lorebook_entries', 'legacy_channel_scope_tags')
             OR relname LIKE 'lorebook%' OR relname LIKE 'servers%' OR relname LIKE 'personas%'
             OR relname LIKE 'legacy_channel_scope_tags%'))
  + (SELECT count(*) FROM pg_type WHERE typname IN ('snowflake', '_snowflake'))
  + (SELECT count(*) FROM pg_proc WHERE proname = 'lore_set_updated_at')`
	const others = `SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace`
	var before, othersBefore int
	require.NoError(t, pool.QueryRow(ctx, objects).Scan(&before))
	require.NoError(t, pool.QueryRow(ctx, others).Scan(&othersBefore))
	require.Greater(t, before, 10, "the up migration created the lore objects")

	_, err = pool.Exec(ctx, m.Down)
	require.NoError(t, err)
	var after, othersAfter int
	require.NoError(t, pool.QueryRow(ctx, objects).Scan(&after))
	require.NoError(t, pool.QueryRow(ctx, others).Scan(&othersAfter))
	require.Zero(t, after, "down leaves nothing of the lore schema")

	_, err = pool.Exec(ctx, m.Up)
	require.NoError(t, err)
	var again, othersAgain int
	require.NoError(t, pool.QueryRow(ctx, objects).Scan(&again))
	require.NoError(t, pool.QueryRow(ctx, others).Scan(&othersAgain))
	require.Equal(t, before, again)
	require.Equal(t, othersBefore, othersAgain, "down and up touch only the lore schema")
	_, err = migrations.Up(ctx, conn.Conn())
	require.NoError(t, err, "the later migrations apply again on top")
}
