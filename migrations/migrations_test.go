package migrations_test

import (
	"context"
	"strings"
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

// TestAppliedUnderAnotherName: a version recorded under another name than
// the embedded migration's is refused (ErrMigrationMismatch), not taken as
// applied.
func TestAppliedUnderAnotherName(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, postgrestest.NewDatabase(t))
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = migrations.Up(ctx, conn)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "UPDATE loregate_migrations SET name = 'from_another_branch' WHERE version = (SELECT max(version) FROM loregate_migrations)")
	require.NoError(t, err)
	_, err = migrations.Up(ctx, conn)
	require.ErrorIs(t, err, migrations.ErrMigrationMismatch)
	require.ErrorContains(t, err, "from_another_branch")
}

// TestDownFilesDeclareLosses: every column a down file drops and every
// table whose rows it rewrites or deletes is declared with a "-- loses:" (or
// "-- no loss:") line, so `migrate down` can count it
// (docs/operations.md#rollbacks). River's generated files (000002-000009)
// are exempt: `make generate` writes them, and what they drop besides
// tables is job bookkeeping (unique keys), counted with River's tables.
func TestDownFilesDeclareLosses(t *testing.T) {
	all, err := migrations.All()
	require.NoError(t, err)
	for _, m := range all {
		if strings.HasPrefix(m.Name, "river_") {
			continue
		}
		require.Empty(t, migrations.Undeclared(m), "%06d_%s: declare what its down file drops or rewrites", m.Version, m.Name)
	}
	// The rule sees what it is for.
	bad := migrations.Migration{Down: "ALTER TABLE t DROP COLUMN a, DROP COLUMN b;\nUPDATE u SET x = 1;\n-- loses: column t.a unless 0\n"}
	require.Equal(t, []string{"t.b", "rows of u"}, migrations.Undeclared(bad))
}

// TestLossyRollbackCounted: the preview of a rollback counts, per declared
// column and rewrite, the rows that would lose a value, and is lossless
// when every value is the default.
func TestLossyRollbackCounted(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, postgrestest.NewDatabase(t))
	require.NoError(t, err)
	defer conn.Close(ctx)
	plan, err := migrations.PlanDown(ctx, conn, 11)
	require.NoError(t, err)
	require.False(t, plan.Lossy(), "an empty database loses nothing: %v", plan.Losses)

	_, err = conn.Exec(ctx, `INSERT INTO servers (id) VALUES ('100000000000000001');
INSERT INTO lorebooks (server_id, name, scan_depth) VALUES ('100000000000000001', 'World', 3);
INSERT INTO lorebook_entries (server_id, lorebook_name, content, scan_depth, sticky)
VALUES ('100000000000000001', 'World', 'a', 0, 2), ('100000000000000001', 'World', 'b', 5, 0)`)
	require.NoError(t, err)
	plan, err = migrations.PlanDown(ctx, conn, 11)
	require.NoError(t, err)
	require.True(t, plan.Lossy())
	got := map[string]int64{}
	for _, l := range plan.Losses {
		if l.Rows > 0 {
			got[l.String()] = l.Rows
		}
	}
	require.Equal(t, map[string]int64{
		"rows of lorebook_entries where scan_depth = 0 (rewritten or deleted)": 1,
		"column lorebook_entries.sticky (not 0)":                               1,
		"column lorebooks.scan_depth (not NULL)":                               1,
		// the two entries' revisions (migration 000070) go with their table.
		"table entry_revisions": 2,
	}, got)
}
