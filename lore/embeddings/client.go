// Package embeddings is the client of an OpenAI-compatible embeddings
// endpoint (OpenAI, Ollama, llama.cpp server, vLLM,
// text-embeddings-inference): POST <base>/embeddings with a model and a
// list of inputs, answered with one vector per input
// (docs/operations.md#embeddings). Answers are untrusted input: sizes,
// counts, indexes, dimensions and numbers are checked before anything
// uses them.
//
// Two paths: Embed, for jobs, sends batches of at most MaxBatch inputs,
// retried with backoff, bounded in rate and concurrency; Query, for a
// turn, makes at most one call within Config.Timeout, with no retry, and
// keeps the last answers in a small cache keyed by text hash.
package embeddings

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"loregate/lore/semantic"
)

// Defaults and bounds of a Config (docs/configuration.md "Embeddings").
const (
	// DefaultTimeout bounds a turn's query call (LOREGATE_EMBEDDINGS_TIMEOUT).
	DefaultTimeout = 800 * time.Millisecond
	// DefaultBatchTimeout bounds one batch request of a job.
	DefaultBatchTimeout = 60 * time.Second
	// MaxBatch is the most inputs one request carries.
	MaxBatch = 64
	// DefaultConcurrency is how many batch requests run at once.
	DefaultConcurrency = 2
	// DefaultRate is how many requests start per second at most.
	DefaultRate = 20
	// DefaultRetries is how many times a failed batch is tried again.
	DefaultRetries = 4
	// DefaultCacheSize is how many query vectors the cache keeps.
	DefaultCacheSize = 256
	// MaxResponseBytes bounds an answer's body: 64 vectors of
	// semantic.MaxDimensions numbers at up to 24 bytes each, and room.
	MaxResponseBytes = 16 << 20
	// MaxInputChars bounds one input in bytes; longer text is cut (an
	// entry holds at most a few thousand characters; a query is the last
	// few messages).
	MaxInputChars = 32 << 10
)

// Errors of the client; match them with errors.Is.
var (
	// ErrNotConfigured: no URL or no model.
	ErrNotConfigured = errors.New("no embeddings provider configured")
	// ErrMalformed wraps every refusal of an answer: not JSON, too large,
	// wrong count or index, a bad vector (semantic.ErrBadVector).
	ErrMalformed = errors.New("malformed embeddings answer")
	// ErrProvider wraps an HTTP error status.
	ErrProvider = errors.New("embeddings provider error")
)

// Config configures a Client. URL and Model are required.
type Config struct {
	// URL is the base URL; requests go to URL + "/embeddings"
	// (LOREGATE_EMBEDDINGS_URL, for example http://127.0.0.1:11434/v1).
	URL string
	// Model names the embeddings model (LOREGATE_EMBEDDINGS_MODEL).
	Model string
	// APIKey, when set, is sent as a bearer token
	// (LOREGATE_EMBEDDINGS_API_KEY). It never enters logs or errors.
	APIKey string
	// Dimensions, when > 0, is sent as "dimensions" and every answer must
	// have exactly that many (LOREGATE_EMBEDDINGS_DIMENSIONS).
	Dimensions int
	// Timeout bounds a turn's query call; 0 means DefaultTimeout
	// (LOREGATE_EMBEDDINGS_TIMEOUT).
	Timeout time.Duration
	// BatchTimeout bounds one batch request; 0 means DefaultBatchTimeout.
	BatchTimeout time.Duration
	// Concurrency, Rate (requests per second), Retries and CacheSize; 0
	// means the default.
	Concurrency, Retries, CacheSize int
	Rate                            float64
	// HTTPClient, when set, sends the requests (tests); nil uses a client
	// of its own.
	HTTPClient *http.Client
	// Registerer, when set, receives the client's metrics.
	Registerer prometheus.Registerer
}

// Configured reports whether c names a provider.
func (c Config) Configured() bool { return c.URL != "" && c.Model != "" }

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.BatchTimeout <= 0 {
		c.BatchTimeout = DefaultBatchTimeout
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Rate <= 0 {
		c.Rate = DefaultRate
	}
	if c.Retries <= 0 {
		c.Retries = DefaultRetries
	}
	if c.CacheSize <= 0 {
		c.CacheSize = DefaultCacheSize
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	return c
}

// Client calls one provider. It is safe for concurrent use.
type Client struct {
	cfg   Config
	slots chan struct{}
	rate  *limiter
	cache *queryCache
	m     *metrics
}

// New returns a client of cfg; ErrNotConfigured without URL or model.
func New(cfg Config) (*Client, error) {
	if !cfg.Configured() {
		return nil, ErrNotConfigured
	}
	cfg = cfg.WithDefaults()
	c := &Client{
		cfg:   cfg,
		slots: make(chan struct{}, cfg.Concurrency),
		rate:  newLimiter(cfg.Rate),
		cache: newQueryCache(cfg.CacheSize),
		m:     newMetrics(),
	}
	if cfg.Registerer != nil {
		if err := c.m.register(cfg.Registerer); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Embed returns one vector per input, in order, for a job: batches of at
// most MaxBatch inputs, at most Config.Concurrency at once and
// Config.Rate per second, each tried up to 1 + Config.Retries times with
// exponential backoff on network errors, 408, 429 and 5xx. A malformed
// answer is not retried. The first error stops the rest.
func (c *Client) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	out := make([][]float32, len(inputs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for start := 0; start < len(inputs); start += MaxBatch {
		end := min(start+MaxBatch, len(inputs))
		select {
		case c.slots <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			if first != nil {
				return nil, first
			}
			return nil, ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer func() { <-c.slots; wg.Done() }()
			vecs, err := c.batch(ctx, inputs[start:end])
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
					cancel()
				}
				return
			}
			copy(out[start:end], vecs)
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, nil
}

// batch sends one batch with retries.
func (c *Client) batch(ctx context.Context, inputs []string) ([][]float32, error) {
	backoff := 200 * time.Millisecond
	for attempt := 0; ; attempt++ {
		if err := c.rate.wait(ctx); err != nil {
			return nil, err
		}
		rctx, cancel := context.WithTimeout(ctx, c.cfg.BatchTimeout)
		vecs, err := c.call(rctx, "batch", inputs)
		cancel()
		if err == nil || !retryable(err) || attempt >= c.cfg.Retries || ctx.Err() != nil {
			return vecs, err
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}

// Query returns the vector of one query text for a turn: from the cache
// when the same text was asked recently, else from one call bounded by
// Config.Timeout (and ctx), never retried. ok reports a cache hit.
func (c *Client) Query(ctx context.Context, text string) (vec []float32, cached bool, err error) {
	key := semantic.TextHash(text)
	if v := c.cache.get(key); v != nil {
		return v, true, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	vecs, err := c.call(ctx, "query", []string{text})
	if err != nil {
		return nil, false, err
	}
	c.cache.put(key, vecs[0])
	return vecs[0], false, nil
}

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type response struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// statusError is an HTTP error status of the provider.
type statusError struct{ code int }

func (e *statusError) Error() string { return fmt.Sprintf("%v: HTTP status %d", ErrProvider, e.code) }
func (e *statusError) Unwrap() error { return ErrProvider }

// StatusCode is the provider's HTTP status.
func (e *statusError) StatusCode() int { return e.code }

// Retryable reports whether err (of Embed or Query) may pass when tried
// again: a network error, a timeout, HTTP 408, 429 or 5xx. A malformed
// answer or another HTTP status is about the request itself.
func (c *Client) Retryable(err error) bool { return retryable(err) }

// Model is the configured model name (the name stored vectors are kept
// under).
func (c *Client) Model() string { return c.cfg.Model }

func retryable(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return se.code == http.StatusRequestTimeout || se.code == http.StatusTooManyRequests || se.code >= 500
	}
	return !errors.Is(err, ErrMalformed) && !errors.Is(err, context.Canceled)
}

// call makes one request and checks its answer.
func (c *Client) call(ctx context.Context, kind string, inputs []string) (vecs [][]float32, err error) {
	start := time.Now()
	defer func() { c.m.observe(kind, time.Since(start), err) }()
	in := make([]string, len(inputs))
	for i, s := range inputs {
		in[i] = cut(s, MaxInputChars)
	}
	body, err := json.Marshal(request{Model: c.cfg.Model, Input: in, EncodingFormat: "float", Dimensions: c.cfg.Dimensions})
	if err != nil {
		return nil, fmt.Errorf("encode embeddings request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.URL+"/embeddings", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embeddings request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embeddings request to %s: %w", c.cfg.URL, redact(err, c.cfg.APIKey))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, &statusError{resp.StatusCode}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read embeddings answer: %w", err)
	}
	return decode(data, len(inputs), c.cfg.Dimensions)
}

// decode checks and converts an answer to n inputs: at most
// MaxResponseBytes, n items with the indexes 0..n-1 once each (in any
// order), every vector of dims dimensions (or of one common length when
// dims is 0) with finite components and a non-zero length.
func decode(data []byte, n, dims int) ([][]float32, error) {
	if len(data) > MaxResponseBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrMalformed, MaxResponseBytes)
	}
	var r response
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("%w: %d vectors for %d inputs", ErrMalformed, len(r.Data), n)
	}
	out := make([][]float32, n)
	for i, d := range r.Data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= n || out[idx] != nil {
			return nil, fmt.Errorf("%w: index %d is out of range or repeated", ErrMalformed, idx)
		}
		want := dims
		if want == 0 && i > 0 {
			want = len(out[firstSet(out)])
		}
		if err := semantic.CheckVector(d.Embedding, want); err != nil {
			return nil, fmt.Errorf("%w: vector %d: %w", ErrMalformed, idx, err)
		}
		out[idx] = d.Embedding
	}
	return out, nil
}

func firstSet(v [][]float32) int {
	for i := range v {
		if v[i] != nil {
			return i
		}
	}
	return 0
}

// cut returns s cut to at most n bytes at a character edge.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// redact removes key from an error's text (a proxy may echo headers).
func redact(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), key, "[redacted]"))
}

// Failure is what a turn's trace says of a failed call: the kind of
// failure ("timed out", "HTTP status 503", "malformed answer", "request
// cancelled", "unreachable"), never the provider's address (members read
// traces) or the request.
func Failure(err error) error {
	var se interface{ StatusCode() int }
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return errors.New("timed out")
	case errors.As(err, &se):
		return fmt.Errorf("HTTP status %d", se.StatusCode())
	case errors.Is(err, ErrMalformed), errors.Is(err, semantic.ErrBadVector):
		return errors.New("malformed answer")
	case errors.Is(err, context.Canceled):
		return errors.New("request cancelled")
	}
	return errors.New("unreachable")
}
