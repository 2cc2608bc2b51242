package postgres_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// testBundle is what every database test starts from: a fresh migrated
// database, a Store on it and one registered server.
type testBundle struct {
	ctx    context.Context
	pool   *pgxpool.Pool
	store  *postgres.Store
	server string
}

func setup(t testing.TB) *testBundle {
	t.Helper()
	pool := postgrestest.NewPool(t)
	b := &testBundle{ctx: context.Background(), pool: pool, store: postgres.New(pool), server: snowflake(t)}
	_, err := b.store.UpsertServer(b.ctx, b.server, "Test Guild")
	require.NoError(t, err)
	return b
}

// snowflake returns a random syntactically valid Discord snowflake.
func snowflake(t testing.TB) string {
	t.Helper()
	n, err := rand.Int(rand.Reader, big.NewInt(1e17))
	require.NoError(t, err)
	return fmt.Sprintf("1%017d", n)
}

// entry returns a valid entry with distinct content, keyed by content.
func entry(server string, lineage lore.Lineage, collection, content string) lore.Entry {
	e := lore.NewEntry()
	e.Server, e.Lineage, e.Collection = server, lineage, collection
	e.Title = "title " + content
	e.Content = content
	e.Keys = []string{"key " + content}
	return e
}

// entries returns n entries with contents prefix-0 .. prefix-(n-1).
func entries(server string, lineage lore.Lineage, collection, prefix string, n int) []lore.Entry {
	out := make([]lore.Entry, n)
	for i := range out {
		out[i] = entry(server, lineage, collection, fmt.Sprintf("%s-%d", prefix, i))
	}
	return out
}

// collection creates a Serverwide collection.
func (b *testBundle) collection(t testing.TB, name string) lore.Collection {
	t.Helper()
	c, err := b.store.CreateCollection(b.ctx, lore.Collection{Server: b.server, Name: name, Enabled: true})
	require.NoError(t, err)
	return c
}

// insert stores entries one by one.
func (b *testBundle) insert(t testing.TB, es ...lore.Entry) []lore.Entry {
	t.Helper()
	out := make([]lore.Entry, len(es))
	for i, e := range es {
		var err error
		out[i], err = b.store.InsertEntry(b.ctx, e)
		require.NoError(t, err)
	}
	return out
}

// count returns the number of rows of a query's count(*).
func (b *testBundle) count(t testing.TB, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(b.ctx, query, args...).Scan(&n))
	return n
}

func (b *testBundle) scopeCount(t testing.TB, lineage lore.Lineage) int {
	t.Helper()
	counts, err := b.store.CountByScope(b.ctx, b.server)
	require.NoError(t, err)
	return counts[lineage]
}

func (b *testBundle) loreVersion(t testing.TB) int64 {
	t.Helper()
	sv, err := b.store.GetServer(b.ctx, b.server)
	require.NoError(t, err)
	return sv.LoreVersion
}

func contents(es []lore.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Content
	}
	return out
}

// requireInvalidField asserts err is an *lore.InvalidError for field.
func requireInvalidField(t testing.TB, err error, field string) {
	t.Helper()
	require.ErrorIs(t, err, lore.ErrInvalid)
	var ie *lore.InvalidError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, field, ie.Field)
}
