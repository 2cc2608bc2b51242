package graph

import (
	"context"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"loregate/graph/generated"
)

// FuzzRequestDocument fuzzes the GraphQL request path up to execution:
// the document bounds, parsing with the token limit, validation against
// the real schema, complexity and depth, with the server's own limits
// (useLimits). Nothing may panic, an accepted operation must be within
// every bound, and only accepted documents may stay in the query cache.
func FuzzRequestDocument(f *testing.F) {
	for _, q := range []string{
		`{ __typename }`,
		`query($i: ActivateInput!) { a: activate(input: $i) { budget { used } } b: activate(input: $i) { trace { verdict } } }`,
		`{ server(discordId: "111111111111111111") { collections(first: 250) { edges { node { entries(first: 250) { edges { node { id } } } } } } } }`,
		"query { ...F0 }\nfragment F0 on Query { ...F1 ...F1 }\nfragment F1 on Query { ...F2 ...F2 }\nfragment F2 on Query { __typename }",
		"fragment A on Query { ...A } query { ...A }",
		`mutation { createEntry(input: {serverDiscordId: "1", lineageId: 7, idempotencyKey: "k", entry: {content: "c"}}) { error { code } } }`,
		"{" + strings.Repeat("__typename ", 300) + "}",
		`{ server(discordId: "1") { ... on Server { name } } }`,
	} {
		f.Add(q)
	}
	schema := generated.NewExecutableSchema(generated.Config{Resolvers: &Resolver{}, Complexity: complexity()})
	exec := executor.New(schema)
	cache := useLimits(exec)
	f.Fuzz(func(t *testing.T, query string) {
		if len(query) > 2*MaxQueryBytes {
			return
		}
		ctx := graphql.StartOperationTrace(context.Background())
		oc, errs := exec.CreateOperationContext(ctx, &graphql.RawParams{Query: query})
		if len(errs) > 0 {
			if cache.has(query) {
				// A document refused after validation (complexity, depth,
				// unknown operation) must not stay cached.
				for _, e := range errs {
					if c, _ := e.Extensions["code"].(string); c == "COMPLEXITY_LIMIT_EXCEEDED" || c == "QUERY_TOO_DEEP" {
						t.Fatalf("refused document (%s) left in the cache", c)
					}
				}
			}
			return
		}
		if len(query) > MaxQueryBytes {
			t.Fatalf("accepted a %d-byte document", len(query))
		}
		doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, MaxQueryTokens)
		if err != nil {
			t.Fatalf("accepted a document the token-limited parser refuses: %v", err)
		}
		if n := countSelections(doc, MaxQuerySelections); n > MaxQuerySelections {
			t.Fatalf("accepted %d selections", n)
		}
		if d := selectionDepth(oc.Operation.SelectionSet, oc.Doc.Fragments, 0); d > MaxQueryDepth {
			t.Fatalf("accepted depth %d", d)
		}
		if _, bytes := cache.usage(); bytes > QueryCacheBytes {
			t.Fatalf("query cache holds %d bytes", bytes)
		}
	})
}
