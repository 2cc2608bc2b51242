package graph

import (
	"container/list"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Bounds on one GraphQL document, checked before it is validated, costed or
// cached (docs/api.md "Limits"). gqlparser's validation is quadratic in the
// number of fields of one selection set and the complexity walk expands
// every fragment spread, so both run only on documents within these bounds.
const (
	// MaxQueryBytes is the longest document text.
	MaxQueryBytes = 64 << 10
	// MaxQueryTokens is the parser's token limit.
	MaxQueryTokens = 10_000
	// MaxQuerySelections bounds the fields (each alias counts) and fragment
	// spreads of the operation with every fragment spread expanded,
	// counted in time linear in the document.
	MaxQuerySelections = 2_000
	// QueryCacheBytes bounds the total text of the parsed documents kept in
	// the query cache (a parsed document takes about 25 times its text).
	QueryCacheBytes = 2 << 20
)

// Error codes of documents refused by the bounds (extensions.code).
const (
	CodeQueryTooLarge   = "QUERY_TOO_LARGE"
	CodeQueryTooComplex = "QUERY_TOO_COMPLEX"
)

// limitable is what useLimits configures: a *handler.Server or an
// *executor.Executor.
type limitable interface {
	SetQueryCache(graphql.Cache[*ast.QueryDocument])
	SetParserTokenLimit(int)
	Use(graphql.HandlerExtension)
}

// useLimits installs the bounded work before execution: the parser's token
// limit, automatic persisted queries, the document bounds before
// validation, complexity and depth after it; refused documents never stay
// in the query cache, which is bounded in bytes, as is the persisted-query
// cache. Call it after any extension that must see operations first. It
// returns the query cache.
func useLimits(srv limitable) *queryCache {
	cache := newQueryCache(QueryCacheBytes)
	srv.SetQueryCache(cache)
	srv.SetParserTokenLimit(MaxQueryTokens)
	srv.Use(extension.AutomaticPersistedQuery{Cache: newBoundedCache(QueryCacheBytes, func(hash, query string) int { return len(hash) + len(query) })})
	srv.Use(documentLimits{cache: cache})
	srv.Use(operationLimits{complexity: extension.FixedComplexityLimit(MaxComplexity), depth: depthLimit{max: MaxQueryDepth}, cache: cache})
	return cache
}

// documentLimits refuses documents over MaxQueryBytes, MaxQueryTokens or
// MaxQuerySelections before gqlgen parses, validates and caches them.
// Documents already in the cache passed these checks and are not parsed
// again.
type documentLimits struct{ cache *queryCache }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = documentLimits{}

func (documentLimits) ExtensionName() string                   { return "DocumentLimits" }
func (documentLimits) Validate(graphql.ExecutableSchema) error { return nil }

func (l documentLimits) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	return checkDocument(p.Query, l.cache)
}

// checkDocument applies the document bounds to query; cache, when set,
// skips documents already cached.
func checkDocument(query string, cache *queryCache) *gqlerror.Error {
	if len(query) > MaxQueryBytes {
		return &gqlerror.Error{
			Message:    fmt.Sprintf("the query is %d bytes long, at most %d allowed", len(query), MaxQueryBytes),
			Extensions: map[string]any{"code": CodeQueryTooLarge},
		}
	}
	if cache != nil && cache.has(query) {
		return nil
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, MaxQueryTokens)
	if err != nil {
		// Syntax errors are gqlgen's to report; the token limit is ours.
		if ge, ok := err.(*gqlerror.Error); ok && isTokenLimit(ge) {
			return &gqlerror.Error{
				Message:    fmt.Sprintf("the query has more than %d tokens", MaxQueryTokens),
				Extensions: map[string]any{"code": CodeQueryTooLarge},
			}
		}
		return nil
	}
	if n := countSelections(doc, MaxQuerySelections); n > MaxQuerySelections {
		return &gqlerror.Error{
			Message:    fmt.Sprintf("the query selects more than %d fields and fragment spreads (fragments expanded)", MaxQuerySelections),
			Extensions: map[string]any{"code": CodeQueryTooComplex},
		}
	}
	return nil
}

func isTokenLimit(e *gqlerror.Error) bool {
	return strings.HasPrefix(e.Message, "exceeded token limit")
}

// countSelections returns the number of fields and fragment spreads of the
// document's operations with every fragment spread expanded, saturating
// just above limit. Each fragment is counted once (memoized), so the time
// is linear in the document; cyclic spreads count nothing (validation
// refuses them).
func countSelections(doc *ast.QueryDocument, limit int) int {
	const visiting = -1
	memo := make(map[string]int, len(doc.Fragments))
	sat := func(a, b int) int { return min(a+b, limit+1) }
	var count func(ast.SelectionSet) int
	count = func(set ast.SelectionSet) int {
		n := 0
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				n = sat(n, sat(1, count(s.SelectionSet)))
			case *ast.InlineFragment:
				n = sat(n, count(s.SelectionSet))
			case *ast.FragmentSpread:
				c, seen := memo[s.Name]
				if !seen {
					memo[s.Name] = visiting
					c = 0
					if f := doc.Fragments.ForName(s.Name); f != nil {
						c = count(f.SelectionSet)
					}
					memo[s.Name] = c
				} else if c == visiting {
					c = 0
				}
				n = sat(n, sat(1, c))
			}
			if n > limit {
				return n
			}
		}
		return n
	}
	total := 0
	for _, op := range doc.Operations {
		total = sat(total, count(op.SelectionSet))
	}
	return total
}

// operationLimits runs the complexity and depth limits after validation and
// removes a refused document from the query cache, so that only documents
// that can run are kept.
type operationLimits struct {
	complexity *extension.ComplexityLimit
	depth      depthLimit
	cache      *queryCache
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = operationLimits{}

func (operationLimits) ExtensionName() string { return "OperationLimits" }
func (o operationLimits) Validate(es graphql.ExecutableSchema) error {
	return o.complexity.Validate(es)
}

func (o operationLimits) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	err := o.complexity.MutateOperationContext(ctx, oc)
	if err == nil {
		err = o.depth.MutateOperationContext(ctx, oc)
	}
	if err != nil {
		o.cache.remove(oc.RawQuery)
	}
	return err
}

// boundedCache is an LRU cache (graphql.Cache) bounded by the total size
// of its entries as measured by size: the query cache of parsed documents
// (measured by their text) and the persisted-query cache of texts.
type boundedCache[T any] struct {
	mu       sync.Mutex
	maxBytes int
	size     func(key string, v T) int
	bytes    int
	order    *list.List // of *cacheItem[T], most recent first
	items    map[string]*list.Element
}

// queryCache is the cache of parsed and validated documents.
type queryCache = boundedCache[*ast.QueryDocument]

type cacheItem[T any] struct {
	key  string
	v    T
	size int
}

var _ graphql.Cache[*ast.QueryDocument] = (*queryCache)(nil)

func newQueryCache(maxBytes int) *queryCache {
	return newBoundedCache(maxBytes, func(query string, _ *ast.QueryDocument) int { return len(query) })
}

func newBoundedCache[T any](maxBytes int, size func(string, T) int) *boundedCache[T] {
	return &boundedCache[T]{maxBytes: maxBytes, size: size, order: list.New(), items: map[string]*list.Element{}}
}

// Get implements graphql.Cache.
func (c *boundedCache[T]) Get(_ context.Context, key string) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		var zero T
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheItem[T]).v, true
}

// Add implements graphql.Cache; an entry larger than the whole bound is
// not kept.
func (c *boundedCache[T]) Add(_ context.Context, key string, v T) {
	n := c.size(key, v)
	if n > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.removeElement(el)
	}
	c.items[key] = c.order.PushFront(&cacheItem[T]{key: key, v: v, size: n})
	c.bytes += n
	for c.bytes > c.maxBytes {
		c.removeElement(c.order.Back())
	}
}

func (c *boundedCache[T]) has(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.items[key]
	return ok
}

func (c *boundedCache[T]) remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.removeElement(el)
	}
}

func (c *boundedCache[T]) removeElement(el *list.Element) {
	it := c.order.Remove(el).(*cacheItem[T])
	delete(c.items, it.key)
	c.bytes -= it.size
}

// usage returns the number of entries and their total size.
func (c *boundedCache[T]) usage() (entries, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.bytes
}

// textBudget is the text every activation of one operation may scan
// together: MaxActivateChars per request, however many aliases of
// activate (or assemblePrompt) the operation has.
type textBudget struct{ left atomic.Int64 }

type textBudgetKey struct{}

// withTextBudget is the operation middleware giving each operation its
// textBudget.
func withTextBudget(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	b := &textBudget{}
	b.left.Store(MaxActivateChars)
	return next(context.WithValue(ctx, textBudgetKey{}, b))
}

// chargeText takes n bytes from the operation's text budget, refusing when
// the operation's activations together would exceed MaxActivateChars.
// Outside an operation (direct resolver calls) only the per-call limit
// applies.
func chargeText(ctx context.Context, n int) error {
	b, _ := ctx.Value(textBudgetKey{}).(*textBudget)
	if b == nil {
		return nil
	}
	if left := b.left.Add(-int64(n)); left < 0 {
		b.left.Add(int64(n))
		return lore.Reject("messages", i18n.RequestTextBudget, lore.Params{"max": MaxActivateChars, "over": -left})
	}
	return nil
}
