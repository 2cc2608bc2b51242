package graph_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
)

// TestServerLifecycleAPI: markServerLeft sets Server.leftAt and keeps the
// lore; upsertServer (the bot rejoining) restores it; reconcileServers marks
// the servers READY did not list; deleteServer answers the counts with
// confirm false (changing nothing) and deletes with confirm true. Every one
// is for service keys only: a manager is refused.
func TestServerLifecycleAPI(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	setupServer(t, a, serverB)
	for _, s := range []string{serverA, serverB} {
		a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "World"}) { collection { id } } }`,
			map[string]any{"s": s}, "createCollection", &struct{}{})
	}
	const qLeft = `mutation($s: String!) { markServerLeft(input: {serverDiscordId: $s}) { server { discordId leftAt } error { code } } }`
	const qServer = `query($s: String!) { server(discordId: $s) { leftAt collections { totalCount } } }`
	const qDelete = `mutation($s: String!, $c: Boolean!) { deleteServer(input: {serverDiscordId: $s, confirm: $c}) { deleted rows { table rows } error { code message } } }`

	manager := a.member("42", map[string]auth.Membership{serverA: {Manage: true}})
	for _, q := range []string{qLeft, qDelete} {
		r := a.do(manager, q, map[string]any{"s": serverA, "c": false})
		require.NotEmpty(t, r.Errors, "a manager may not %s", q)
	}

	var left struct {
		Server struct {
			LeftAt *string `json:"leftAt"`
		} `json:"server"`
	}
	a.must(serviceKey, qLeft, map[string]any{"s": serverA}, "markServerLeft", &left)
	require.NotNil(t, left.Server.LeftAt)
	var sv struct {
		LeftAt      *string `json:"leftAt"`
		Collections struct {
			TotalCount int `json:"totalCount"`
		} `json:"collections"`
	}
	a.must(serviceKey, qServer, map[string]any{"s": serverA}, "server", &sv)
	require.NotNil(t, sv.LeftAt)
	require.Equal(t, 1, sv.Collections.TotalCount, "left keeps the lore")

	setupServer(t, a, serverA) // the bot rejoins
	a.must(serviceKey, qServer, map[string]any{"s": serverA}, "server", &sv)
	require.Nil(t, sv.LeftAt)
	require.Equal(t, 1, sv.Collections.TotalCount)

	var rec struct {
		MarkedLeft []string `json:"markedLeft"`
	}
	a.must(serviceKey, `mutation($p: [String!]!) { reconcileServers(input: {presentServerDiscordIds: $p}) { markedLeft error { code } } }`,
		map[string]any{"p": []string{serverA}}, "reconcileServers", &rec)
	require.Equal(t, []string{serverB}, rec.MarkedLeft)

	var del struct {
		Deleted bool `json:"deleted"`
		Rows    []struct {
			Table string `json:"table"`
			Rows  int    `json:"rows"`
		} `json:"rows"`
		Error *struct{ Code string } `json:"error"`
	}
	a.must(serviceKey, qDelete, map[string]any{"s": serverB, "c": false}, "deleteServer", &del)
	require.False(t, del.Deleted)
	counts := map[string]int{}
	for _, r := range del.Rows {
		counts[r.Table] = r.Rows
	}
	require.Equal(t, 1, counts["servers"])
	require.Equal(t, 1, counts["lorebooks"])
	a.must(serviceKey, qServer, map[string]any{"s": serverB}, "server", &sv)
	require.Equal(t, 1, sv.Collections.TotalCount, "confirm false changes nothing")

	a.must(serviceKey, qDelete, map[string]any{"s": serverB, "c": true}, "deleteServer", &del)
	require.True(t, del.Deleted)
	r := a.do(serviceKey, qServer, map[string]any{"s": serverB})
	require.Empty(t, r.Errors)
	require.JSONEq(t, "null", string(r.Data["server"]), "deleted")
	a.must(serviceKey, qDelete, map[string]any{"s": serverB, "c": true}, "deleteServer", &del)
	require.NotNil(t, del.Error)
	require.Equal(t, "NOT_FOUND", del.Error.Code)
	a.must(serviceKey, qServer, map[string]any{"s": serverA}, "server", &sv)
	require.Equal(t, 1, sv.Collections.TotalCount, "the other server is untouched")
}
