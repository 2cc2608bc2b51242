package embeddings_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"loregate/lore/embeddings"
	"loregate/lore/embeddings/embeddingstest"
	"loregate/lore/semantic"
)

func newClient(t *testing.T, fake *embeddingstest.Server, mod func(*embeddings.Config)) *embeddings.Client {
	t.Helper()
	cfg := embeddings.Config{URL: fake.URL, Model: "fake-embed", Rate: 1000, Retries: 2}
	if mod != nil {
		mod(&cfg)
	}
	c, err := embeddings.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEmbedBatches(t *testing.T) {
	fake := embeddingstest.New(16)
	defer fake.Close()
	c := newClient(t, fake, func(c *embeddings.Config) { c.APIKey = "sk-test-secret" })
	inputs := make([]string, 150)
	for i := range inputs {
		inputs[i] = fmt.Sprintf("entry %d about spirit number %d", i, i)
	}
	vecs, err := c.Embed(t.Context(), inputs)
	if err != nil {
		t.Fatal(err)
	}
	if fake.Calls() != 3 || fake.Inputs() != 150 {
		t.Fatalf("%d calls for %d inputs, want 3 batches of at most %d", fake.Calls(), fake.Inputs(), embeddings.MaxBatch)
	}
	for i, v := range vecs {
		want := embeddingstest.Vector("fake-embed\x00"+inputs[i], 16)
		if len(v) != 16 || v[0] != want[0] || v[15] != want[15] {
			t.Fatalf("vector %d is not its input's (out of order?)", i)
		}
	}
	if fake.LastAuthorization() != "Bearer sk-test-secret" {
		t.Fatalf("authorization %q", fake.LastAuthorization())
	}
	if _, err := c.Embed(t.Context(), nil); err != nil {
		t.Fatalf("no inputs: %v", err)
	}
}

func TestQueryCachesAndMakesOneCall(t *testing.T) {
	fake := embeddingstest.New(8)
	defer fake.Close()
	c := newClient(t, fake, nil)
	v1, cached, err := c.Query(t.Context(), "Tell me about Tohka")
	if err != nil || cached {
		t.Fatalf("first query: cached %v, %v", cached, err)
	}
	v2, cached, err := c.Query(t.Context(), "Tell me about Tohka")
	if err != nil || !cached || v2[0] != v1[0] {
		t.Fatalf("second query: cached %v, %v", cached, err)
	}
	if fake.Calls() != 1 {
		t.Fatalf("%d calls for one text asked twice", fake.Calls())
	}
}

func TestProviderFailures(t *testing.T) {
	cases := []struct {
		name  string
		mode  embeddingstest.Mode
		dims  int
		is    error
		calls int // for one batch, with Retries 2
	}{
		{"unavailable is retried", embeddingstest.Fail, 0, embeddings.ErrProvider, 3},
		{"malformed is not retried", embeddingstest.Malformed, 0, embeddings.ErrMalformed, 1},
		{"wrong dimensions", embeddingstest.WrongDims, 8, embeddings.ErrMalformed, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := embeddingstest.New(8)
			defer fake.Close()
			fake.SetMode(tc.mode)
			reg := prometheus.NewRegistry()
			c := newClient(t, fake, func(c *embeddings.Config) {
				c.Dimensions, c.Registerer, c.APIKey = tc.dims, reg, "sk-never-shown"
			})
			_, err := c.Embed(t.Context(), []string{"a text", "another"})
			if !errors.Is(err, tc.is) {
				t.Fatalf("Embed: %v, want %v", err, tc.is)
			}
			if strings.Contains(err.Error(), "sk-never-shown") {
				t.Fatal("the API key is in an error")
			}
			if fake.Calls() != tc.calls {
				t.Fatalf("%d calls, want %d", fake.Calls(), tc.calls)
			}
			before := fake.Calls()
			if _, _, err := c.Query(t.Context(), "a query"); !errors.Is(err, tc.is) {
				t.Fatalf("Query: %v, want %v", err, tc.is)
			}
			if fake.Calls() != before+1 {
				t.Fatal("a failed query was retried")
			}
			if n := testutil.CollectAndCount(reg, "loregate_embeddings_errors_total"); n == 0 {
				t.Fatal("errors are not counted")
			}
		})
	}
}

func TestSlowProviderQueryTimesOut(t *testing.T) {
	fake := embeddingstest.New(8)
	defer fake.Close()
	fake.SetLatency(5 * time.Second)
	c := newClient(t, fake, func(c *embeddings.Config) { c.Timeout = 50 * time.Millisecond })
	start := time.Now()
	_, _, err := c.Query(t.Context(), "a query")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow query: %v", err)
	}
	// Not a speed goal: a bound far above the timeout, so a stuck call fails.
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("query took %v with a 50ms timeout", d)
	}
}

func TestNotConfigured(t *testing.T) {
	if _, err := embeddings.New(embeddings.Config{}); !errors.Is(err, embeddings.ErrNotConfigured) {
		t.Fatalf("New without provider: %v", err)
	}
}

// TestFakeVectorsAreSemantic: the fake's vectors put texts sharing terms
// near each other, so tests can expect relevant entries to score high.
func TestFakeVectorsAreSemantic(t *testing.T) {
	q := embeddingstest.Vector("m\x00Kotori's lollipop", 256)
	near := embeddingstest.Vector("m\x00Kotori always has a lollipop in her mouth", 256)
	far := embeddingstest.Vector("m\x00The weather was pleasant by the river", 256)
	v := semantic.NewVectors(256, 2)
	_ = v.Add(1, near)
	_ = v.Add(2, far)
	s, err := v.Score(q)
	if err != nil {
		t.Fatal(err)
	}
	if s[0].Score < 0.5 || s[1].Score > 0.25 {
		t.Fatalf("near %.3f, far %.3f", s[0].Score, s[1].Score)
	}
}
