package graph

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"loregate/graph/auth"
	"loregate/graph/explorer"
	"loregate/graph/generated"
)

// Limits on untrusted GraphQL input. They are loregate's choices, sized for
// the dashboard's and the bot's real queries with room to spare.
const (
	// MaxJSONUploadBytes is the largest JSON attachment the Discord bot
	// downloads (2 MiB); the importer refuses a JSON lorebook over the
	// deployment's lore.Limits.JSONBytes (docs/contract.md#limits: 2 MB by
	// default).
	MaxJSONUploadBytes = 2 << 20
	// MaxUploadBytes is the largest upload of any kind (PNG and CHARX
	// cards); the format importer enforces each carrier's own ceiling.
	MaxUploadBytes = 16 << 20
	// MaxBodyBytes bounds a non-multipart request body.
	MaxBodyBytes = 4 << 20
	// MaxQueryDepth bounds the nesting of a selection set.
	MaxQueryDepth = 12
	// MaxIntrospectionDepth bounds the nesting of an operation that selects
	// only introspection fields (__schema, __type, __typename): the
	// standard introspection query of graphql-js 16, which GraphiQL sends
	// for its docs and completion, is 15 deep (nine nested ofType), and
	// the schema bounds its answer.
	MaxIntrospectionDepth = 16
	// MaxComplexity bounds the computed cost of an operation.
	MaxComplexity = 25000
	// RequestTimeout bounds one GraphQL request.
	RequestTimeout = 30 * time.Second
)

// timeoutBody is the answer (HTTP 503) to a request over RequestTimeout.
const timeoutBody = `{"errors":[{"message":"request timed out","extensions":{"code":"TIMEOUT"}}]}`

// Config configures the HTTP handler.
type Config struct {
	Resolver *Resolver
	Auth     *auth.Authenticator
	Logger   *slog.Logger
	Metrics  *Metrics
	// Introspection enables schema introspection (and GraphiQL's docs).
	Introspection bool
	// AllowedOrigins lists the CORS origins of dashboards; empty = no CORS.
	AllowedOrigins []string
	// NoLeanTurns sends the bot's per-turn activate through gqlgen's
	// general executor too (lean.go, docs/api.md "Lean turns"): for tests and
	// A/B measurements.
	NoLeanTurns bool
}

// WithDefaults returns a copy of c with every zero field that has a
// default set: Logger one that discards. Resolver and Auth are required.
func (c Config) WithDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// NewServer builds the gqlgen server: POST, GET and multipart transports,
// a query cache bounded in bytes, automatic persisted queries, the
// document, complexity and depth limits (limits.go), the error presenter
// and panic recovery.
func NewServer(cfg Config) *handler.Server {
	srv := handler.New(newSchema(cfg))
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.AddTransport(multipartForm{transport.MultipartForm{MaxUploadSize: MaxUploadBytes, MaxMemory: 8 << 20}})
	configure(srv, cfg)
	return srv
}

func newSchema(cfg Config) graphql.ExecutableSchema {
	return generated.NewExecutableSchema(generated.Config{Resolvers: cfg.Resolver, Complexity: complexity()})
}

// configurable is what configure sets up: a *handler.Server (NewServer)
// or an *executor.Executor (NewExecutor).
type configurable interface {
	limitable
	AroundOperations(graphql.OperationMiddleware)
	AroundFields(graphql.FieldMiddleware)
	SetErrorPresenter(graphql.ErrorPresenterFunc)
	SetRecoverFunc(graphql.RecoverFunc)
}

// configure installs what every way of running the schema shares: the
// per-operation loaders and text budget, idempotency keys, introspection
// when enabled, the limits, metrics, the error presenter and panic
// recovery.
func configure(srv configurable, cfg Config) {
	cfg = cfg.WithDefaults()
	srv.AroundOperations(withLoaders)
	srv.AroundOperations(withTextBudget)
	srv.AroundFields(cfg.Resolver.idempotent)
	if cfg.Introspection {
		srv.Use(extension.Introspection{})
	}
	useLimits(srv)
	if cfg.Metrics != nil {
		srv.Use(cfg.Metrics)
	}
	srv.SetErrorPresenter(presentError(cfg.Logger))
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		cfg.Logger.ErrorContext(ctx, "panic in resolver", "request_id", RequestID(ctx), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		return &gqlerror.Error{Message: "internal error (request " + RequestID(ctx) + ")", Extensions: map[string]any{"code": CodeInternal}}
	})
}

// Mount registers the API on mux: /graphql (authenticated), GraphiQL at
// / with its embedded assets under /explorer/ (package explorer), and, when the resolver has Jobs, GET /artifacts/{id} (authenticated
// backup downloads, artifact.go). Every request gets a request id, an access log line and a timeout.
func Mount(mux *http.ServeMux, cfg Config) {
	cfg = cfg.WithDefaults()
	api := NewServer(cfg)
	// gqlgen runs under the timeout handler (its own goroutine, the answer
	// buffered); the lean turn before it, in the request's goroutine under
	// a deadline of its own (leanHandler.serve): the bot's turn pays for
	// neither the goroutine nor the copy.
	var h http.Handler = http.TimeoutHandler(api, RequestTimeout, timeoutBody)
	if !cfg.NoLeanTurns {
		h = newLeanHandler(h, cfg, newSchema(cfg).Schema())
	}
	h = cfg.Auth.Middleware(h)
	h = cors(cfg.AllowedOrigins, h)
	h = bodyLimit(cfg.Resolver.Limits.WithDefaults().JSONBytes, h)
	mux.Handle("/graphql", accessLog(cfg.Logger, h))
	if cfg.Resolver.Jobs != nil {
		mux.Handle("GET /artifacts/{id}", accessLog(cfg.Logger, cfg.Auth.Middleware(artifactHandler(cfg.Resolver.Jobs, cfg.Logger))))
	}
	ide := explorer.Handler("loregate GraphQL", "/graphql")
	mux.Handle("GET /{$}", ide)
	mux.Handle("GET "+explorer.AssetPrefix, ide)
}

// depthLimit refuses operations nested deeper than max.
type depthLimit struct{ max int }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string                   { return "DepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }
func (d depthLimit) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	limit := d.max
	if introspectionOnly(oc.Operation.SelectionSet) {
		limit = max(limit, MaxIntrospectionDepth)
	}
	if depth := selectionDepth(oc.Operation.SelectionSet, oc.Doc.Fragments, 0); depth > limit {
		return &gqlerror.Error{
			Message:    fmt.Sprintf("operation is nested %d levels deep, at most %d allowed", depth, limit),
			Extensions: map[string]any{"code": "QUERY_TOO_DEEP"},
		}
	}
	return nil
}

// introspectionOnly reports whether every root selection of set is an
// introspection field (a fragment at the root is not counted as one).
func introspectionOnly(set ast.SelectionSet) bool {
	for _, sel := range set {
		f, ok := sel.(*ast.Field)
		if !ok || !strings.HasPrefix(f.Name, "__") {
			return false
		}
	}
	return len(set) > 0
}

func selectionDepth(set ast.SelectionSet, frags ast.FragmentDefinitionList, seen int) int {
	if seen > 64 { // cyclic fragments are rejected by validation; stay bounded anyway
		return seen
	}
	deepest := 0
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if len(s.SelectionSet) == 0 {
				d = 1
			} else {
				d = 1 + selectionDepth(s.SelectionSet, frags, seen+1)
			}
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, frags, seen+1)
		case *ast.FragmentSpread:
			if f := frags.ForName(s.Name); f != nil {
				d = selectionDepth(f.SelectionSet, frags, seen+1)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}

type requestIDKey struct{}

// RequestID returns the request id in ctx ("-" when none).
func RequestID(ctx context.Context) string {
	if id, ok := ctx.Value(requestIDKey{}).(string); ok {
		return id
	}
	return "-"
}

// WithRequestID returns ctx carrying id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

func newRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) { s.status = code; s.ResponseWriter.WriteHeader(code) }
func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// accessLog gives every request an id (X-Request-Id, echoed back) and logs
// one structured line per request: method, path, status, bytes, duration and
// the principal. Bodies are never logged.
func accessLog(logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if id == "" || len(id) > 64 || strings.ContainsFunc(id, func(r rune) bool { return r < '!' || r > '~' }) {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		rec := &statusRecorder{ResponseWriter: w}
		start := time.Now()
		ctx := WithRequestID(r.Context(), id)
		next.ServeHTTP(rec, r.WithContext(ctx))
		logger.LogAttrs(ctx, slog.LevelInfo, "http request",
			slog.String("request_id", id),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", rec.status),
			slog.Int("bytes", rec.bytes),
			slog.Duration("duration", time.Since(start)),
		)
	})
}

// CodeRequestTooLarge is the error code of a request body over its limit
// (HTTP 413).
const CodeRequestTooLarge = "REQUEST_TOO_LARGE"

// bodyLimit caps request bodies: MaxUploadBytes (plus form overhead) for
// multipart uploads, MaxBodyBytes otherwise. A body whose declared length
// is over the limit is refused at once with HTTP 413 and
// CodeRequestTooLarge; the message names the upload limits, jsonBytes
// being the deployment's JSON lorebook limit (lore.Limits.JSONBytes).
func bodyLimit(jsonBytes int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit := int64(MaxBodyBytes)
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
			limit = MaxUploadBytes + 1<<20
		}
		if r.ContentLength > limit {
			// Refused before reading: a clear message with a code, not the
			// transport's bare "request body too large".
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			body, _ := json.Marshal(map[string]any{"errors": []any{map[string]any{
				"message":    fmt.Sprintf("request body too large: %d bytes, at most %d accepted (uploads: JSON lorebooks %d bytes, cards %d bytes)", r.ContentLength, limit, jsonBytes, MaxUploadBytes),
				"extensions": map[string]any{"code": CodeRequestTooLarge},
			}}})
			_, _ = w.Write(body)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}

// cors answers preflights and sets CORS headers for the allowed origins.
func cors(origins []string, next http.Handler) http.Handler {
	if len(origins) == 0 {
		return next
	}
	allowed := make(map[string]bool, len(origins))
	for _, o := range origins {
		allowed[strings.TrimSpace(o)] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && (allowed[origin] || allowed["*"]) {
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Add("Vary", "Origin")
			w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id")
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			w.Header().Set("Access-Control-Max-Age", "600")
		}
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}
