package graph

import (
	"context"
	"fmt"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/embeddings"
	"loregate/lore/scopecache"
	"loregate/lore/semantic"
	"loregate/lore/turn"
)

// Embeddings is the embeddings provider of retrieval by meaning
// (lore/embeddings.Client; docs/operations.md#embeddings).
type Embeddings interface {
	// Model is the model name stored vectors are kept under.
	Model() string
	// Query returns the vector of a turn's query text: at most one
	// provider call within the provider's deadline, or its cache.
	Query(ctx context.Context, text string) (vec []float32, cached bool, err error)
}

// VectorStore reads the stored embeddings (lore/postgres.Store).
type VectorStore interface {
	EmbeddingsStatus(ctx context.Context, server, model string) (lore.EmbeddingsStatus, error)
	// ScopeEmbeddingStates is the state of every entry of entry id's
	// scope by entry id ("" for one that is not a candidate), in one read.
	ScopeEmbeddingStates(ctx context.Context, id int64, model string) (map[int64]lore.EmbeddingState, error)
	// EntryEmbeddingState is entry id's state alone (ok false: not a
	// candidate), read without its scope.
	EntryEmbeddingState(ctx context.Context, id int64, model string) (state lore.EmbeddingState, ok bool, err error)
}

var errNoEmbeddings = fmt.Errorf("no embeddings provider is configured on this deployment (LOREGATE_EMBEDDINGS_URL, LOREGATE_EMBEDDINGS_MODEL; the lexical ranker needs none): %w", lore.ErrUnavailable)

// vectors returns the store's vector reads and the model, ok false
// without a provider.
func (r *Resolver) vectors() (VectorStore, string, bool) {
	vs, ok := r.Store.(VectorStore)
	if !ok || r.Embeddings == nil {
		return nil, "", false
	}
	return vs, r.Embeddings.Model(), true
}

// embeddingsStatus resolves Server.embeddingsStatus (the server was read
// through visibleServer, so the caller may read it): null without a
// provider or when the server's ranker keeps its lore on the machine.
func (r *Resolver) embeddingsStatus(ctx context.Context, obj *model.Server) (*model.EmbeddingsStatus, error) {
	vs, m, ok := r.vectors()
	if !ok || !obj.Settings.SemanticRanker.SendsOut() {
		return nil, nil
	}
	st, err := vs.EmbeddingsStatus(ctx, obj.DiscordID, m)
	if err != nil {
		return nil, err
	}
	return &model.EmbeddingsStatus{Model: st.Model, Ready: st.Ready, Pending: st.Pending, Failed: st.Failed}, nil
}

// entryEmbeddingState resolves Entry.embeddingState (the entry was read
// by a caller who may read it): an entry read alone (entry(id), an
// entry payload) reads its own state; an entry of a list (its field path
// has a list index) reads its whole scope's once per operation (the
// operation's loaders), so listing a book reads its states once.
func (r *Resolver) entryEmbeddingState(ctx context.Context, obj *model.Entry) (*lore.EmbeddingState, error) {
	vs, m, ok := r.vectors()
	if !ok {
		return nil, nil
	}
	id, err := strconv.ParseInt(obj.ID, 10, 64)
	if err != nil || id <= 0 {
		return nil, nil
	}
	l, _ := ctx.Value(loadersKey{}).(*loaders)
	if l == nil || !inList(ctx) {
		st, _, err := vs.EntryEmbeddingState(ctx, id, m)
		return statePtr(st), err
	}
	l.embMu.Lock()
	defer l.embMu.Unlock()
	if st, ok := l.embStates[id]; ok {
		return statePtr(st), nil
	}
	states, err := vs.ScopeEmbeddingStates(ctx, id, m)
	if err != nil {
		return nil, err
	}
	if l.embStates == nil {
		l.embStates = make(map[int64]lore.EmbeddingState, len(states)+1)
	}
	for eid, st := range states {
		l.embStates[eid] = st
	}
	l.embStates[id] = states[id] // unknown: asked once
	return statePtr(states[id]), nil
}

// inList reports whether the field being resolved sits in a list of the
// response (some field of its path is a list element).
func inList(ctx context.Context) bool {
	for fc := graphql.GetFieldContext(ctx); fc != nil; fc = fc.Parent {
		if fc.Index != nil {
			return true
		}
	}
	return false
}

// statePtr is st, nil for "" (not a candidate).
func statePtr(st lore.EmbeddingState) *lore.EmbeddingState {
	if st == "" {
		return nil
	}
	return &st
}

// reindexEmbeddings queues the server's embed job with force (managers
// only; UNAVAILABLE without a provider or jobs).
func (r *Resolver) reindexEmbeddings(ctx context.Context, in model.ReindexEmbeddingsInput) (*model.JobPayload, error) {
	if err := r.authorizeWrite(ctx, in.ServerDiscordID, lore.Serverwide); err != nil {
		return jobPayload(nil, err)
	}
	if _, _, ok := r.vectors(); !ok {
		return jobPayload(nil, errNoEmbeddings)
	}
	if r.Jobs == nil {
		return jobPayload(nil, errJobsUnavailable)
	}
	row, err := r.Jobs.Queue.EnqueueEmbed(ctx, in.ServerDiscordID, true)
	if err != nil {
		return jobPayload(nil, err)
	}
	return jobPayload(jobToModel(row), nil)
}

// ScopeVectorStore reads a scope's stored vectors (lore/postgres.Store).
type ScopeVectorStore interface {
	ScopeVectors(ctx context.Context, server string, lineage lore.Lineage, model string) (map[int64]lore.EntryVector, error)
}

// rankers are the turn's rankers: the lexical index cached with the scope
// (built per turn when the scope is not cached) and, with a provider and
// a ranker that may use it (AUTO, EMBEDDINGS), the stored vectors scored
// against the query's embedding (docs/contract.md#semantic).
func (r *Resolver) rankers(scope *scopecache.Scope, server string, lineage lore.Lineage, t *turn.Turn) turn.Rankers {
	var rk turn.Rankers
	all := t.Semantic.AllEntries
	if scope != nil {
		rk.Candidates = func(build func() []semantic.Candidate) []semantic.Candidate {
			return scope.Candidates(all, build)
		}
		rk.Lexical = func(cands []semantic.Candidate) *semantic.Lexical {
			return scope.Lexical(all, func() *semantic.Lexical { return turn.NewLexical(cands) })
		}
	}
	vs, ok := r.Store.(ScopeVectorStore)
	if r.Embeddings == nil || !ok || !t.Semantic.Ranker.SendsOut() {
		return rk
	}
	model := r.Embeddings.Model()
	rk.Embeddings = func(ctx context.Context, query string, cands []semantic.Candidate) (map[int64]float64, int, error) {
		pending := 0
		load := func() (*semantic.Vectors, bool, error) {
			stored, err := vs.ScopeVectors(ctx, server, lineage, model)
			if err != nil {
				return nil, false, err
			}
			var v *semantic.Vectors
			v, pending = candidateVectors(cands, stored)
			return v, pending == 0, nil
		}
		var v *semantic.Vectors
		var complete bool
		var err error
		if scope != nil {
			v, complete, err = scope.Vectors(model, all, load)
		} else {
			v, complete, err = load()
		}
		if err != nil {
			return nil, 0, err
		}
		if !complete {
			return nil, pending, nil
		}
		return r.scoreQuery(ctx, query, v)
	}
	return rk
}

// candidateVectors builds the vectors of cands from stored ones whose
// hash is the candidate's current text's; pending counts the others.
func candidateVectors(cands []semantic.Candidate, stored map[int64]lore.EntryVector) (*semantic.Vectors, int) {
	var v *semantic.Vectors
	pending := 0
	for _, c := range cands {
		sv, ok := stored[c.ID]
		if !ok || sv.Hash != c.Hash {
			pending++
			continue
		}
		if v == nil {
			v = semantic.NewVectors(len(sv.Vector), len(cands))
		}
		if v.Add(c.ID, sv.Vector) != nil {
			pending++ // another model's length, or a bad row: embedded again
		}
	}
	return v, pending
}

// scoreQuery embeds the query (one provider call at most, within the
// provider's deadline, or its cache) and scores v against it.
func (r *Resolver) scoreQuery(ctx context.Context, query string, v *semantic.Vectors) (map[int64]float64, int, error) {
	q, _, err := r.Embeddings.Query(ctx, query)
	if err != nil {
		return nil, 0, embeddings.Failure(err)
	}
	scores, err := v.ScoreByID(q)
	return scores, 0, err
}
