package graph

import (
	"context"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"loregate/lore"
)

// Per-operation loading: a dashboard listing collections with their entries
// would otherwise read the store once per collection. The Serverwide scope
// (all collections of a server, at most lore.MaxEntriesPerScope entries) is
// read once per operation and server, and each Collection.entries takes its
// part from that read.

type loadersKey struct{}

type loaders struct {
	mu         sync.Mutex
	serverwide map[string]*scopeLoad
	// lastActive caches Entry.lastActivatedAt by entry id (turn.go); its
	// own lock is held during the read, so one read serves a whole scope.
	lastMu     sync.Mutex
	lastActive map[int64]*time.Time
	// embStates caches Entry.embeddingState by entry id (embeddings.go),
	// "" for an entry that is not a candidate; one read per scope.
	embMu     sync.Mutex
	embStates map[int64]lore.EmbeddingState
	// books holds the per-book reads of Collection and PersonaBook
	// (bookloader.go): description and tags, categories.
	books bookLoads
	// decisions holds the unseen decisions of the listed servers
	// (decision.go).
	decisions decisionLoads
}

type scopeLoad struct {
	once    sync.Once
	entries []lore.Entry
	err     error
}

// withLoaders is the operation middleware that gives each operation its own
// loaders (installed by NewServer and NewExecutor with AroundOperations, so
// in-process callers such as the Discord adapter get them too).
func withLoaders(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	return next(context.WithValue(ctx, loadersKey{}, &loaders{serverwide: map[string]*scopeLoad{}}))
}

// collectionEntries returns the entries of one Serverwide collection, in
// insertion order, from the operation's single read of the server's
// Serverwide scope (or a direct read outside an operation).
func (r *Resolver) collectionEntries(ctx context.Context, server, collection string) ([]lore.Entry, error) {
	l, _ := ctx.Value(loadersKey{}).(*loaders)
	if l == nil {
		return r.Store.ListScope(ctx, server, lore.Serverwide, collection)
	}
	l.mu.Lock()
	load := l.serverwide[server]
	if load == nil {
		load = &scopeLoad{}
		l.serverwide[server] = load
	}
	l.mu.Unlock()
	load.once.Do(func() {
		load.entries, load.err = r.Store.ListScope(ctx, server, lore.Serverwide, "")
	})
	if load.err != nil {
		return nil, load.err
	}
	var out []lore.Entry
	for _, e := range load.entries {
		if e.Collection == collection {
			out = append(out, e)
		}
	}
	return out, nil
}
