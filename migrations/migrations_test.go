package migrations_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"loregate/lore/postgres/postgrestest"
	"loregate/migrations"
)

func TestAllWellFormed(t *testing.T) {
	all, err := migrations.All()
	require.NoError(t, err)
	require.NotEmpty(t, all)
	// Numbers increase; each concurrent line of work has its own range, so
	// gaps between ranges are expected.
	require.Equal(t, 1, all[0].Version)
	for i, m := range all {
		if i > 0 {
			require.Greater(t, m.Version, all[i-1].Version, "migration numbers must increase")
		}
		require.NotEmpty(t, m.Up)
		require.NotEmpty(t, m.Down)
	}
}

func tableCount(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	var n int
	require.NoError(t, conn.QueryRow(context.Background(),
		"SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'loregate_migrations'").Scan(&n))
	return n
}

func TestUpDownUp(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, postgrestest.NewDatabase(t))
	require.NoError(t, err)
	defer conn.Close(ctx)

	current, err := migrations.Current(ctx, conn)
	require.NoError(t, err)
	require.True(t, current, "NewDatabase returns a fully migrated database")
	tables := tableCount(t, conn)
	require.Greater(t, tables, 5)

	// A row in a table the down files drop must be counted by the preview.
	_, err = conn.Exec(ctx, "INSERT INTO river_queue (name, created_at, metadata, updated_at) VALUES ('preview', now(), '{}', now())")
	require.NoError(t, err)

	// Preview: changes nothing.
	plan, err := migrations.PlanDown(ctx, conn, 1)
	require.NoError(t, err)
	all, _ := migrations.All()
	require.Len(t, plan.Migrations, len(all))
	require.Equal(t, all[len(all)-1].Version, plan.Migrations[0].Version, "newest first")
	var queueRows int64 = -1
	for _, tr := range plan.Tables {
		if tr.Table == "river_queue" {
			queueRows = tr.Rows
		}
	}
	require.EqualValues(t, 1, queueRows, "preview counts the rows a down would drop")
	require.Equal(t, tables, tableCount(t, conn), "preview must not change the schema")
	current, err = migrations.Current(ctx, conn)
	require.NoError(t, err)
	require.True(t, current)

	// Partial down, then full down, then up again.
	last := all[len(all)-1].Version
	done, err := migrations.Down(ctx, conn, last)
	require.NoError(t, err)
	require.Len(t, done, 1)
	current, err = migrations.Current(ctx, conn)
	require.NoError(t, err)
	require.False(t, current)

	_, err = migrations.Down(ctx, conn, 1)
	require.NoError(t, err)
	require.Equal(t, 0, tableCount(t, conn), "every down file drops what its up created")
	_, err = migrations.Down(ctx, conn, 1)
	require.ErrorIs(t, err, migrations.ErrNothingToUndo)

	applied, err := migrations.Up(ctx, conn)
	require.NoError(t, err)
	require.Len(t, applied, len(all))
	require.Equal(t, tables, tableCount(t, conn))
	applied, err = migrations.Up(ctx, conn)
	require.NoError(t, err)
	require.Empty(t, applied, "up is idempotent")
}

func TestPlanDownUnknownVersion(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, postgrestest.NewDatabase(t))
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = migrations.PlanDown(ctx, conn, 999)
	require.ErrorContains(t, err, "no migration numbered 999")
}
