package pglocal_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"loregate/cmd/internal/pglocal"
)

// TestLifecycle starts a cluster in a new directory (initdb), refuses a
// second launcher on the same directory, stops, and restarts on the same data.
func TestLifecycle(t *testing.T) {
	if _, err := pglocal.FindBinDir(); errors.Is(err, pglocal.ErrNoBinaries) {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx := context.Background()
	// Not t.TempDir: its parent is private, and as root the cluster runs as
	// another user that must reach the directory.
	dir, err := os.MkdirTemp("", "pglocal-test-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))

	c, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Ephemeral: true})
	require.NoError(t, err)
	conn, err := pgx.Connect(ctx, c.URL())
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)")
	require.NoError(t, err)
	require.NoError(t, conn.Close(ctx))

	_, err = pglocal.Start(ctx, pglocal.Options{Dir: dir})
	require.ErrorIs(t, err, pglocal.ErrInUse)

	require.NoError(t, c.Stop(ctx))
	_, err = pgx.Connect(ctx, c.URL())
	require.Error(t, err, "stopped cluster must not accept connections")

	c2, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Ephemeral: true})
	require.NoError(t, err)
	defer c2.Stop(ctx)
	conn, err = pgx.Connect(ctx, c2.URL())
	require.NoError(t, err)
	defer conn.Close(ctx)
	var v int
	require.NoError(t, conn.QueryRow(ctx, "SELECT v FROM kept").Scan(&v))
	require.Equal(t, 42, v, "restart reuses the data directory")
}

func TestMaskURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://postgres:s3cret@127.0.0.1:5432/db?sslmode=disable", "postgres://postgres:xxxxx@127.0.0.1:5432/db?sslmode=disable"},
		{"postgres://u@h/db", "postgres://u@h/db"},
		{"postgres://u:p%40ss@h/db", "postgres://u:xxxxx@h/db"},
		{"postgresql://u@h/db?password=secret&sslmode=disable", "postgresql://u@h/db?password=xxxxx&sslmode=disable"},
		{"host=h user=u password=secret", "(connection string set, masked)"},
		{"postgres://u:secret@h:port/db", "(connection string set, masked)"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, pglocal.MaskURL(tt.in))
	}
}
