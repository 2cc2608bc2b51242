// Package embeddingstest is a fake OpenAI-compatible embeddings server for
// tests: POST /embeddings answers with deterministic vectors (Vector), and
// the server counts calls and inputs, and can be made slow, failing or
// malformed. It listens on loopback only.
package embeddingstest

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"loregate/lore/semantic"
)

// Mode says how the fake answers.
type Mode int

// The fake's modes.
const (
	// OK answers every request.
	OK Mode = iota
	// Fail answers 503.
	Fail
	// Malformed answers 200 with a string among a vector's numbers and one
	// vector too few.
	Malformed
	// WrongDims answers vectors of the wrong length.
	WrongDims
)

// Server is a running fake. Its fields may be changed while it runs
// through the setters.
type Server struct {
	// URL is the base URL to configure (LOREGATE_EMBEDDINGS_URL).
	URL string
	// Dims is the length of the vectors.
	Dims int

	srv     *httptest.Server
	calls   atomic.Int64
	inputs  atomic.Int64
	mu      sync.Mutex
	latency time.Duration
	mode    Mode
	auth    string
	refuse  string
}

// New starts a fake answering dims-dimensional vectors; Close stops it.
func New(dims int) *Server {
	s := &Server{Dims: dims}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Calls is the number of requests answered (or refused) so far.
func (s *Server) Calls() int { return int(s.calls.Load()) }

// Inputs is the number of texts asked for so far.
func (s *Server) Inputs() int { return int(s.inputs.Load()) }

// LastAuthorization is the Authorization header of the last request.
func (s *Server) LastAuthorization() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.auth
}

// SetLatency makes every answer wait d first.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	s.latency = d
	s.mu.Unlock()
}

// Refuse makes the fake answer 400 to every request with an input
// containing substr ("" stops it): a provider refusing one text.
func (s *Server) Refuse(substr string) {
	s.mu.Lock()
	s.refuse = substr
	s.mu.Unlock()
}

// SetMode changes how the fake answers.
func (s *Server) SetMode(m Mode) {
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.calls.Add(1)
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Input) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	s.inputs.Add(int64(len(req.Input)))
	s.mu.Lock()
	latency, mode, refuse := s.latency, s.mode, s.refuse
	s.auth = r.Header.Get("Authorization")
	s.mu.Unlock()
	for _, in := range req.Input {
		if refuse != "" && strings.Contains(in, refuse) {
			http.Error(w, "input refused", http.StatusBadRequest)
			return
		}
	}
	if latency > 0 {
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return
		}
	}
	type item struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	var data []item
	for i, text := range req.Input {
		var emb any = Vector(req.Model+"\x00"+text, s.Dims)
		switch mode {
		case Fail:
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		case Malformed:
			emb = []any{1, "NaN", 0}
		case WrongDims:
			emb = Vector(text, s.Dims+1)
		}
		data = append(data, item{"embedding", i, emb})
	}
	if mode == Malformed {
		data = data[:len(data)-1]
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data})
}

// Vector is the fake's embedding of key (model name, NUL, text): the
// text's lexical terms (semantic.Terms) hashed into dims signed buckets,
// scaled to unit length, plus a small direction from the model name so
// that two models give different vectors. Texts sharing terms are near;
// an empty text gets the model's direction alone.
func Vector(key string, dims int) []float32 {
	model, text := key, ""
	for i := 0; i < len(key); i++ {
		if key[i] == 0 {
			model, text = key[:i], key[i+1:]
			break
		}
	}
	v := make([]float32, dims)
	add := func(term string, w float32) {
		h := fnv.New64a()
		_, _ = h.Write([]byte(term))
		x := h.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[x%uint64(dims)] += sign * w
	}
	for _, t := range semantic.Terms(text) {
		add(t, 1)
	}
	add("\x00model:"+model, 0.25)
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	return v
}
