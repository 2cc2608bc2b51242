package graph

import (
	"context"
	"fmt"
	"strconv"

	"loregate/graph/model"
	"loregate/lore"
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
	EntryEmbeddingState(ctx context.Context, id int64, model string) (lore.EmbeddingState, bool, error)
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
// by a caller who may read it).
func (r *Resolver) entryEmbeddingState(ctx context.Context, obj *model.Entry) (*lore.EmbeddingState, error) {
	vs, m, ok := r.vectors()
	if !ok {
		return nil, nil
	}
	id, err := strconv.ParseInt(obj.ID, 10, 64)
	if err != nil || id <= 0 {
		return nil, nil
	}
	st, ok, err := vs.EntryEmbeddingState(ctx, id, m)
	if err != nil || !ok {
		return nil, err
	}
	return &st, nil
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
