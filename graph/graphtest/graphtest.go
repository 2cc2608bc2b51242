// Package graphtest builds the GraphQL API for tests in one place: a
// resolver over a fresh database (lore/postgres/postgrestest) with the
// caches `serve` uses, River workers when asked, mounted on a test HTTP
// server with the service key ServiceKey and member tokens signed with
// JWTSecret. Every test of the API, the CLI and the adapters that needs a
// handler uses New (or NewResolver for an in-process executor) instead of
// wiring graph.Resolver by hand; in-process callers (the Discord adapter's
// and the dashboard's tests) take the API's Executor (NewInProcess when
// nothing is served over HTTP).
package graphtest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"loregate/graph"
	"loregate/graph/auth"
	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/embeddings"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/scopecache"
	"loregate/lore/turnstate"
)

// ServiceKey is the service credential of every test API; JWTSecret signs
// its member tokens.
const (
	ServiceKey = "test-service-key-0123456789"
	JWTSecret  = "test-jwt-secret-0123456789abcdef0123456789"
)

// Options shape the API; the zero value is a store on a fresh database
// with the matcher cache, turn state and metrics.
type Options struct {
	// Pool is the database; nil creates a fresh one.
	Pool *pgxpool.Pool
	// Limits are the deployment's limits (zero fields: the defaults),
	// enforced by the store and the importers.
	Limits lore.Limits
	// Store, when set without Pool, is the resolver's store (a wrapper
	// injecting faults) and no database is created; its turn state is its
	// own when it is a *postgres.Store, else none.
	Store lore.HistoryStore
	// NoStore builds a resolver without a store or database (schema and
	// transport tests).
	NoStore bool
	// ScopeCache sends turns through a scope cache (without a listener,
	// so every cached turn checks the lore version) and the text cache,
	// as in `serve`.
	ScopeCache bool
	// DeferredTurns records turns as serve's LOREGATE_TURN_COMMIT=deferred
	// does (docs/turns.md#durability).
	DeferredTurns bool
	// Jobs starts River workers for every job kind on the database; an
	// import upload above InlineImportBytes becomes a job. JobConfig, when
	// set, adjusts River's configuration (poll intervals).
	// JobsIdle makes the River client insert only: jobs wait, queued.
	Jobs              bool
	JobsIdle          bool
	InlineImportBytes int
	JobConfig         func(*river.Config)
	// Logger is the resolver's and handler's logger (nil: discard).
	Logger *slog.Logger
	// Introspection turns the schema explorer's introspection on.
	Introspection bool
	// Embeddings, when set, is the resolver's and the job workers'
	// embeddings provider (a client of embeddingstest's fake).
	Embeddings *embeddings.Client
	// Unstarted leaves the test server unstarted (API.Server.Start), for
	// a caller that mounts more on API.Mux knowing the server's address.
	Unstarted bool
}

// API is a running test API.
type API struct {
	// Server and Mux serve the API over HTTP (nil from NewInProcess).
	Server *httptest.Server
	Mux    *http.ServeMux
	// Auth checks ServiceKey and the member tokens it mints (JWTSecret).
	Auth *auth.Authenticator
	// Executor runs operations in process over Resolver, as the Discord
	// adapter and the dashboard do (graph/client.New).
	Executor *graph.Executor
	Resolver *graph.Resolver
	// Store is the resolver's store over Pool (for setup the API does not
	// offer); nil with NoStore.
	Store *postgres.Store
	Pool  *pgxpool.Pool
}

// turnStore is store's turn store: with deferred, as serve's
// LOREGATE_TURN_COMMIT=deferred makes it (postgres.Store.DeferredTurnStore,
// its flusher stopped when t ends).
func turnStore(t testing.TB, store *postgres.Store, deferred bool) turnstate.Store {
	if !deferred {
		return store.TurnStore()
	}
	turns, flusher, err := store.DeferredTurnStore(postgres.DeferredTurns{})
	require.NoError(t, err)
	t.Cleanup(flusher.Start(context.Background()))
	return turns
}

// NewResolver builds the resolver of o (see Options) and returns it with
// the store over the database (nil with NoStore) and the database.
func NewResolver(t testing.TB, o Options) (*graph.Resolver, *postgres.Store, *pgxpool.Pool) {
	t.Helper()
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	r := &graph.Resolver{Logger: logger, Cache: activation.NewCache(16), Limits: o.Limits}
	var emb jobs.Embedder
	if o.Embeddings != nil {
		r.Embeddings, emb = o.Embeddings, o.Embeddings
	}
	if o.NoStore {
		return r, nil, nil
	}
	if o.Store != nil && o.Pool == nil {
		r.Store = o.Store
		ps, _ := o.Store.(*postgres.Store)
		if ps != nil {
			r.Turns = turnStore(t, ps, o.DeferredTurns)
		}
		return r, ps, nil
	}
	pool := o.Pool
	if pool == nil {
		pool = postgrestest.NewPool(t)
	}
	store := postgres.New(pool).WithLimits(o.Limits)
	if o.ScopeCache {
		scopes := scopecache.New(postgres.New(pool).WithLimits(o.Limits), scopecache.Config{})
		store = store.WithLoreWriteHook(scopes.Invalidate)
		r.Scopes, r.Texts = scopes, activation.NewTextCache(0)
	}
	r.Store, r.Turns = store, turnStore(t, store, o.DeferredTurns)
	if o.Jobs {
		r.Jobs = &graph.Jobs{Queue: &jobs.Queue{Store: store, Client: startJobs(t, pool, jobs.Deps{Store: store, Logger: logger, Embeddings: emb}, !o.JobsIdle, o.JobConfig)},
			InlineImportBytes: o.InlineImportBytes}
	}
	return r, store, pool
}

// startJobs starts River workers for every job kind (or, without work, an
// insert-only client), stopped when the test ends.
func startJobs(t testing.TB, pool *pgxpool.Pool, deps jobs.Deps, work bool, adjust func(*river.Config)) *river.Client[pgx.Tx] {
	t.Helper()
	client, err := jobs.NewClient(pool, jobs.Config{Deps: deps, Work: work, ConfigFunc: adjust})
	require.NoError(t, err)
	if !work { // an insert-only client is not started
		return client
	}
	require.NoError(t, client.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = client.StopAndCancel(ctx)
	})
	return client
}

// New builds the resolver of o and serves it (graph.Mount, with metrics)
// on a test server closed when the test ends.
func New(t testing.TB, o Options) *API {
	t.Helper()
	r, store, pool := NewResolver(t, o)
	return Serve(t, r, o, store, pool)
}

// NewInProcess builds the resolver of o like New but serves nothing over
// HTTP: the API's Executor is the way in (Server and Mux are nil).
func NewInProcess(t testing.TB, o Options) *API {
	t.Helper()
	r, store, pool := NewResolver(t, o)
	return inProcess(t, r, store, pool)
}

func inProcess(t testing.TB, r *graph.Resolver, store *postgres.Store, pool *pgxpool.Pool) *API {
	t.Helper()
	authn, err := auth.NewAuthenticator([]string{ServiceKey}, JWTSecret)
	require.NoError(t, err)
	if r.Logger == nil {
		r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	x := graph.NewExecutor(graph.Config{Resolver: r, Logger: r.Logger})
	return &API{Auth: authn, Executor: x, Resolver: r, Store: store, Pool: pool}
}

// JobClient is the River client of the API's workers (nil without
// Options.Jobs).
func (a *API) JobClient() *river.Client[pgx.Tx] {
	if a.Resolver.Jobs == nil {
		return nil
	}
	q, _ := a.Resolver.Jobs.Queue.(*jobs.Queue)
	if q == nil {
		return nil
	}
	c, _ := q.Client.(*river.Client[pgx.Tx])
	return c
}

// Serve mounts a resolver the caller built (a benchmark's listening scope
// cache) like New; store and pool are reported in the API as given.
func Serve(t testing.TB, r *graph.Resolver, o Options, store *postgres.Store, pool *pgxpool.Pool) *API {
	t.Helper()
	a := inProcess(t, r, store, pool)
	authn := a.Auth
	mux := http.NewServeMux()
	graph.Mount(mux, graph.Config{Resolver: r, Auth: authn, Logger: r.Logger, Introspection: o.Introspection,
		Metrics: graph.NewMetrics(prometheus.NewRegistry())})
	srv := httptest.NewUnstartedServer(mux)
	if !o.Unstarted {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	a.Server, a.Mux = srv, mux
	return a
}
