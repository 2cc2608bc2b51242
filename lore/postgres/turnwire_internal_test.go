package postgres

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"loregate/lore/postgres/postgrestest"
)

// TestPipeAfterSchemaChange: a statement pipe prepared on a connection
// whose result type a schema change altered since fails once ("cached
// plan must not change result type") and is prepared again for the next
// call, on the same connection.
func TestPipeAfterSchemaChange(t *testing.T) {
	pool := postgrestest.NewPool(t)
	ctx := context.Background()
	_, err := pool.Exec(ctx, `CREATE TABLE pipe_probe (a bigint); INSERT INTO pipe_probe VALUES (1)`)
	require.NoError(t, err)
	c, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer c.Release()
	columns := func() (int, error) {
		n := 0
		err := New(pool).pipe(ctx, c.Conn(), []wireStatement{{`SELECT * FROM pipe_probe`, nil}}, func(_ int, v [][]byte) error {
			n = len(v)
			return nil
		})
		return n, err
	}
	n, err := columns()
	require.NoError(t, err)
	require.Equal(t, 1, n)
	_, err = pool.Exec(ctx, `ALTER TABLE pipe_probe ADD COLUMN b bigint DEFAULT 2`)
	require.NoError(t, err)
	_, err = columns()
	var pgErr *pgconn.PgError
	require.True(t, errors.As(err, &pgErr), "%v", err)
	require.Equal(t, pgFeatureNotSupported, pgErr.Code)
	n, err = columns()
	require.NoError(t, err)
	require.Equal(t, 2, n)
}
