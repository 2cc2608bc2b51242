package graph_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/graphtest"
)

// TestOperationChoice: a document whose operation cannot be chosen gets an
// error naming the problem and the document's operations, not gqlgen's
// "operation  not found".
func TestOperationChoice(t *testing.T) {
	a := wrap(t, graphtest.New(t, graphtest.Options{NoStore: true}))
	const two = `query A { __typename } mutation B { __typename }`
	for _, tc := range []struct {
		name, doc, op, want string
	}{
		{"two operations, no name", two, "",
			`operationName is required when a document has more than one operation: the document has 2 operations: "A", "B"`},
		{"unknown name", two, "C",
			`operationName "C" names no operation of the document: the document has 2 operations: "A", "B"`},
		{"anonymous operation, a name given", `{ __typename }`, "B",
			`operationName "B" names no operation of the document: the document has 1 operation: an anonymous query`},
		{"one operation, wrong name", `query A { __typename }`, "B",
			`operationName "B" names no operation of the document: the document has 1 operation: "A"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := json.Marshal(map[string]any{"query": tc.doc, "operationName": tc.op})
			require.NoError(t, err)
			r := a.raw(serviceKey, string(body))
			require.Len(t, r.Errors, 1)
			require.Equal(t, tc.want, r.Errors[0].Message)
			require.Equal(t, "GRAPHQL_VALIDATION_FAILED", r.Errors[0].Extensions["code"])
		})
	}
	body, err := json.Marshal(map[string]any{"query": two, "operationName": "A"})
	require.NoError(t, err)
	r := a.raw(serviceKey, string(body))
	require.Empty(t, r.Errors, "a named choice runs")
	require.JSONEq(t, `"Query"`, string(r.Data["__typename"]))
}
