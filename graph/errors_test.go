package graph_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph"
	"loregate/graph/graphtest"
	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// renameDuringImport is the real store, except that just before an import
// writes, the target collection is renamed — the race of
// docs/contract.md#locks (a book renamed during a file download). The rename runs in the import's
// transaction, before the store re-checks the target under its lock.
type renameDuringImport struct {
	lore.HistoryStore
}

func (s renameDuringImport) Atomic(ctx context.Context, server string, fn func(context.Context, lore.HistoryStore) error) error {
	return s.HistoryStore.Atomic(ctx, server, func(ctx context.Context, st lore.HistoryStore) error {
		return fn(ctx, renameDuringImport{st})
	})
}

func (s renameDuringImport) ImportEntries(ctx context.Context, t lore.ImportTarget, mode lore.ImportMode, entries []lore.Entry) (lore.ImportResult, error) {
	if _, err := s.HistoryStore.RenameCollection(ctx, t.Server, t.CollectionID, t.Collection+" (renamed)"); err != nil {
		return lore.ImportResult{}, err
	}
	return s.HistoryStore.ImportEntries(ctx, t, mode, entries)
}

func newAPIWithStore(t testing.TB, store lore.HistoryStore) *api {
	t.Helper()
	return newAPIWith(t, store, false)
}

func newAPIWith(t testing.TB, store lore.HistoryStore, introspection bool) *api {
	t.Helper()
	return wrap(t, graphtest.New(t, graphtest.Options{Store: store, Introspection: introspection}))
}

func TestStaleTargetOverHTTP(t *testing.T) {
	pool := postgrestest.NewPool(t)
	a := newAPIWithStore(t, renameDuringImport{postgres.New(pool)})
	setupServer(t, a, serverA)
	var cp struct {
		Collection *struct{ ID string }
		Error      *mutationError
	}
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "World"}) { collection { id } error { code } } }`, map[string]any{"s": serverA}, "createCollection", &cp)
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collection": cp.Collection.ID}, "Eldoria.json", corpus(t, "st-worldinfo/sillytavern__Eldoria.json"))
	require.NotNil(t, imp.Error)
	require.Equal(t, "STALE_TARGET", imp.Error.Code)
	entries, err := postgres.New(pool).ListScope(context.Background(), serverA, lore.Serverwide, "")
	require.NoError(t, err)
	require.Empty(t, entries, "a stale import writes nothing")
}

func TestUnavailableOverHTTP(t *testing.T) {
	pool := postgrestest.NewPool(t)
	store := postgres.New(pool)
	a := newAPIWithStore(t, store)
	setupServer(t, a, serverA)
	pool.Close() // the database goes away

	var cp struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "World"}) { error { code message } } }`, map[string]any{"s": serverA}, "createCollection", &cp)
	require.Equal(t, "UNAVAILABLE", cp.Error.Code)
	require.NotContains(t, cp.Error.Message, "pool", "no driver detail reaches clients")

	r := a.do(serviceKey, `{ server(discordId: "`+serverA+`") { name } }`, nil)
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "UNAVAILABLE", r.Errors[0].Extensions["code"])

	// A chat turn goes on with no lore (docs/contract.md#results: a failed
	// per-turn read activates no lore), and says so.
	var act struct {
		Admitted         []any
		StoreUnavailable bool
	}
	a.must(serviceKey, `query($s: String!) { activate(input: {serverDiscordId: $s, messages: [{content: "hi"}]}) { admitted { id } storeUnavailable } }`,
		map[string]any{"s": serverA}, "activate", &act)
	require.True(t, act.StoreUnavailable)
	require.Empty(t, act.Admitted)
}

func TestRequestLimits(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	// Depth: nested fragments cannot hide depth.
	deep := `{ server(discordId: "` + serverA + `") { collections { edges { node { entries { edges { node { id } } } } } } } }`
	r := a.do(serviceKey, deep, nil)
	require.Empty(t, r.Errors, "an ordinary dashboard query passes")
	r = a.do(serviceKey, `{ __schema { queryType { name } } }`, nil)
	require.Equal(t, "INTROSPECTION_DISABLED", r.Errors[0].Extensions["code"])
	// With introspection on, the schema's type graph is cyclic: nesting hidden
	// in fragment spreads still counts.
	ia := newAPIWith(t, postgres.New(postgrestest.NewPool(t)), true)
	r = ia.do(serviceKey, `{ __schema { queryType { name } } }`, nil)
	require.Empty(t, r.Errors, "introspection is on for this server")
	deepFrags := `query { __schema { types { ...A } } }
		fragment A on __Type { fields { type { ...B } } }
		fragment B on __Type { ofType { ofType { ...C } } }
		fragment C on __Type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } }`
	r = ia.do(serviceKey, deepFrags, nil)
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "QUERY_TOO_DEEP", r.Errors[0].Extensions["code"], r.Errors[0].Message)
	r = ia.do(serviceKey, `query { __schema { types { ...A } } } fragment A on __Type { fields { type { ofType { name } } } }`, nil)
	require.Empty(t, r.Errors, "a shallow fragment query passes")
	// Complexity: asking for huge pages is refused before execution.
	r = a.do(serviceKey, `{ server(discordId: "`+serverA+`") { collections(first: 250) { edges { node { entries(first: 250) { edges { node { id title content keys } } } } } } } }`, nil)
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "COMPLEXITY_LIMIT_EXCEEDED", r.Errors[0].Extensions["code"])
	// Body size.
	big := `{"query":"{ __typename }","variables":{"x":"` + strings.Repeat("a", graph.MaxBodyBytes) + `"}}`
	r = a.raw(serviceKey, big)
	require.NotEmpty(t, r.Errors)
	require.Contains(t, r.Errors[0].Message, "too large")
	// Persisted queries: a registered hash is accepted without the text.
	const q = `{ __typename }`
	hash := "7f56e67dd21ab3f30d1ff8b7bed08893f0a0db86449836189b361dd1e56ddb4b" // sha256("{ __typename }")
	r = a.do(serviceKey, "", nil)
	require.NotEmpty(t, r.Errors)
	body := `{"query":"` + q + `","extensions":{"persistedQuery":{"version":1,"sha256Hash":"` + hash + `"}}}`
	r = a.raw(serviceKey, body)
	require.Empty(t, r.Errors)
	r = a.raw(serviceKey, `{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"`+hash+`"}}}`)
	require.Empty(t, r.Errors, "the hash alone runs the registered query")
	require.JSONEq(t, `"Query"`, string(r.Data["__typename"]))
}

func (a *api) raw(bearer, body string) gqlResponse {
	a.t.Helper()
	req, err := http.NewRequest(http.MethodPost, a.srv.URL+"/graphql", strings.NewReader(body))
	require.NoError(a.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	return a.send(req)
}

func TestHostileCursor(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	for _, cursor := range []string{"bzo5MjIzMzcyMDM2ODU0Nzc1ODA3", "bzotMQ", "not-a-cursor", "bzo5OTk5OTk5OTk5"} {
		r := a.do(serviceKey, `query($id: String!, $c: String) { server(discordId: $id) { collections(after: $c) { totalCount edges { cursor } } } }`,
			map[string]any{"id": serverA, "c": cursor})
		if len(r.Errors) > 0 {
			require.Equal(t, "BAD_USER_INPUT", r.Errors[0].Extensions["code"], cursor)
			continue
		}
		require.Contains(t, string(r.Data["server"]), `"edges":[]`, cursor)
	}
}

// countingStore is the real store, counting scope listings.
type countingStore struct {
	lore.HistoryStore
	lists atomic.Int32
}

func (s *countingStore) ListScope(ctx context.Context, server string, lineage lore.Lineage, collection string) ([]lore.Entry, error) {
	s.lists.Add(1)
	return s.HistoryStore.ListScope(ctx, server, lineage, collection)
}

// TestCollectionsEntriesOneRead: listing several collections with their
// entries reads the Serverwide scope once per operation, not once per
// collection, and each collection still gets only its own entries.
func TestCollectionsEntriesOneRead(t *testing.T) {
	store := &countingStore{HistoryStore: postgres.New(postgrestest.NewPool(t))}
	a := newAPIWithStore(t, store)
	setupServer(t, a, serverA)
	for _, name := range []string{"A", "B", "C"} {
		var cp struct {
			Collection *struct{ ID string }
			Error      *mutationError
		}
		a.must(serviceKey, `mutation($s: String!, $n: String!) { createCollection(input: {serverDiscordId: $s, name: $n}) { collection { id } error { code } } }`, map[string]any{"s": serverA, "n": name}, "createCollection", &cp)
		for i := range 2 {
			var ep struct{ Error *mutationError }
			a.must(serviceKey, `mutation($s: String!, $c: ID, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c, entry: $e}) { error { code } } }`,
				map[string]any{"s": serverA, "c": cp.Collection.ID, "e": map[string]any{"content": fmt.Sprintf("%s lore %d", name, i)}}, "createEntry", &ep)
			require.Nil(t, ep.Error)
		}
	}
	store.lists.Store(0)
	var srv struct {
		Collections struct {
			Edges []struct {
				Node struct {
					Name    string
					Entries struct {
						Edges []struct{ Node struct{ Content string } }
					}
				}
			}
		}
	}
	a.must(serviceKey, `query($id: String!) { server(discordId: $id) { collections { edges { node { name entries { edges { node { content } } } } } } } }`,
		map[string]any{"id": serverA}, "server", &srv)
	require.EqualValues(t, 1, store.lists.Load(), "one scope read for three collections")
	require.Len(t, srv.Collections.Edges, 3)
	for _, e := range srv.Collections.Edges {
		require.Len(t, e.Node.Entries.Edges, 2)
		for _, en := range e.Node.Entries.Edges {
			require.True(t, strings.HasPrefix(en.Node.Content, e.Node.Name+" lore"), "collection %s got %q", e.Node.Name, en.Node.Content)
		}
	}
}
