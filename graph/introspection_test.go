package graph_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/graphtest"
)

// graphiqlIntrospection is the schema query GraphiQL 3 sends (graphql-js
// 16's getIntrospectionQuery with deprecated input values: 15 levels deep).
const graphiqlIntrospection = `query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args(includeDeprecated: true) { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args(includeDeprecated: true) { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields(includeDeprecated: true) { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue isDeprecated deprecationReason }
fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } } } }
`

// TestExplorerIntrospection: with introspection on, GraphiQL's schema
// query passes the request limits (its docs and completion work), while
// an ordinary operation keeps the ordinary depth limit.
func TestExplorerIntrospection(t *testing.T) {
	a := wrap(t, graphtest.New(t, graphtest.Options{NoStore: true, Introspection: true}))
	r := a.do(serviceKey, graphiqlIntrospection, nil)
	require.Empty(t, r.Errors)
	require.Contains(t, string(r.Data["__schema"]), `"name":"Query"`)
	mixed := strings.Replace(graphiqlIntrospection, "__schema {", `server(discordId: "1") { name } __schema {`, 1)
	r = a.do(serviceKey, mixed, nil)
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "QUERY_TOO_DEEP", r.Errors[0].Extensions["code"], r.Errors[0].Message)
}
