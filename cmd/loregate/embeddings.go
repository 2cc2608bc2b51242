package main

import (
	"context"
	"log/slog"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"

	"loregate/cmd/internal/cli"
	"loregate/graph"
	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/embeddings"
)

// MaxEmbeddingsTimeout bounds LOREGATE_EMBEDDINGS_TIMEOUT: a turn waits at
// most this long for the provider before it ranks lexically.
const MaxEmbeddingsTimeout = 10 * time.Second

// validateEmbeddings checks that the provider is either off (no URL and no
// model) or fully named: an absolute http or https URL and a model.
func validateEmbeddings(e embeddings.Config) error {
	switch {
	case e.URL == "" && e.Model == "":
		if e.APIKey != "" || e.Dimensions != 0 {
			return cli.Usagef("LOREGATE_EMBEDDINGS_API_KEY and LOREGATE_EMBEDDINGS_DIMENSIONS need LOREGATE_EMBEDDINGS_URL and LOREGATE_EMBEDDINGS_MODEL")
		}
		return nil
	case e.URL == "":
		return cli.Usagef("LOREGATE_EMBEDDINGS_MODEL is set but LOREGATE_EMBEDDINGS_URL is not: set both (the provider's base URL, such as http://127.0.0.1:11434/v1) or neither")
	case e.Model == "":
		return cli.Usagef("LOREGATE_EMBEDDINGS_URL is set but LOREGATE_EMBEDDINGS_MODEL is not: set both or neither")
	}
	u, err := url.Parse(e.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cli.Usagef("LOREGATE_EMBEDDINGS_URL must be an absolute http or https URL such as http://127.0.0.1:11434/v1, got %q", maskedURL(e.URL))
	}
	if len(e.Model) > 200 {
		return cli.Usagef("LOREGATE_EMBEDDINGS_MODEL must be at most 200 bytes")
	}
	return nil
}

// embeddingsLogAttrs describes the provider for the start-up log line: the
// URL without credentials, the model, and whether a key is set (masked).
func embeddingsLogAttrs(e embeddings.Config) []any {
	if !e.Configured() {
		return []any{"embeddings", "off (vectorized entries are ranked by the built-in lexical ranker)"}
	}
	key := "unset"
	if e.APIKey != "" {
		key = "set (masked)"
	}
	return []any{"embeddings_url", maskedURL(e.URL), "embeddings_model", e.Model, "embeddings_api_key", key,
		"embeddings_dimensions", e.Dimensions, "embeddings_timeout", e.Timeout.String()}
}

// maskedURL is raw without user information, query or fragment (where
// credentials hide), clipped for messages.
func maskedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return lore.ClipBytes(u.String(), 200)
}

// wireEmbeddings builds the embeddings client when the provider is
// configured and gives it to the resolver and the job workers; the
// returned trigger (nil when off) enqueues embed jobs after lore writes:
// the caller hooks its Touch to the resolver's store and runs it once the
// job client exists (runTrigger). The workers' own store gets the hook
// here. resolver and reg may be nil (loregate worker).
func wireEmbeddings(cfg *config, resolver *graph.Resolver, reg prometheus.Registerer, logger *slog.Logger) (*jobs.EmbedTrigger, error) {
	if !cfg.Embeddings.Configured() {
		return nil, nil
	}
	e := cfg.Embeddings
	e.Registerer = reg
	client, err := embeddings.New(e)
	if err != nil {
		return nil, err
	}
	if resolver != nil {
		resolver.Embeddings = client
	}
	trigger := jobs.NewEmbedTrigger(logger)
	cfg.Jobs.embedder, cfg.Jobs.onWrite = client, trigger.Touch
	return trigger, nil
}

// runTrigger runs trigger (nil: nothing) with client until the returned
// stop is called; stop waits for it.
func runTrigger(ctx context.Context, trigger *jobs.EmbedTrigger, client *river.Client[pgx.Tx]) (stop func()) {
	if trigger == nil {
		return func() {}
	}
	tctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); trigger.Run(tctx, client.Insert) }()
	return func() { cancel(); <-done }
}
