package activatecmd

import (
	"context"
	"net/url"

	"loregate/lore/embeddings"
	"loregate/lore/semantic"
	"loregate/lore/turn"
)

// provider is --embeddings-url and --embeddings-model (with
// LOREGATE_EMBEDDINGS_API_KEY from the environment): an OpenAI-compatible
// embeddings provider the turn ranks with, as serve does with
// LOREGATE_EMBEDDINGS_URL and LOREGATE_EMBEDDINGS_MODEL
// (docs/contract.md#semantic). Both empty: no provider, the lexical ranker.
type provider struct {
	url, model, apiKey string
}

// check refuses half a provider and a URL that is not absolute http(s).
func (p provider) check() error {
	switch {
	case p.url == "" && p.model == "":
		return nil
	case p.url == "" || p.model == "":
		return bad("--embeddings-url and --embeddings-model go together: give both (the provider's base URL, such as http://127.0.0.1:11434/v1, and its model name) or neither")
	case len(p.model) > 200:
		return bad("--embeddings-model must be at most 200 bytes")
	}
	if u, err := url.Parse(p.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return bad("--embeddings-url must be an absolute http or https URL such as http://127.0.0.1:11434/v1")
	}
	return nil
}

// rankers are the turn's rankers: none without a provider (the lexical
// ranker); with one, the embeddings of the candidates' texts and of the
// query, asked together (the CLI keeps no stored vectors: one request per
// 64 texts, retried as the embed job's are) and scored by cosine
// similarity as a served turn scores them. A failing provider or a bad
// answer leaves the turn to the lexical ranker, with the reason in the
// trace.
func (p provider) rankers() (turn.Rankers, error) {
	if p.url == "" {
		return turn.Rankers{}, nil
	}
	client, err := embeddings.New(embeddings.Config{URL: p.url, Model: p.model, APIKey: p.apiKey})
	if err != nil {
		return turn.Rankers{}, bad("--embeddings-url: %v", err)
	}
	return turn.Rankers{Embeddings: func(ctx context.Context, query string, cands []semantic.Candidate) (map[int64]float64, int, error) {
		texts := make([]string, 0, len(cands)+1)
		for _, c := range cands {
			texts = append(texts, c.Text)
		}
		vecs, err := client.Embed(ctx, append(texts, query))
		if err != nil {
			return nil, 0, embeddings.Failure(err)
		}
		set := semantic.NewVectors(len(vecs[0]), len(cands))
		for i, c := range cands {
			if err := set.Add(c.ID, vecs[i]); err != nil {
				return nil, 0, embeddings.Failure(err)
			}
		}
		scores, err := set.ScoreByID(vecs[len(cands)])
		if err != nil {
			return nil, 0, embeddings.Failure(err)
		}
		return scores, 0, nil
	}}, nil
}
