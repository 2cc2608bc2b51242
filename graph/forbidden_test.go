package graph_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
)

// TestForbiddenSaysWhatIsNeeded: a refused call's FORBIDDEN message names
// what the call needs. A manager calling a service-only life cycle
// mutation was told it needs the Manage Server permission it has, and a
// member exporting was told writing needs it.
func TestForbiddenSaysWhatIsNeeded(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	member := a.member("500000000000000001", map[string]auth.Membership{serverA: {}})
	manager := a.member("500000000000000002", map[string]auth.Membership{serverA: {Manage: true}})
	for _, tc := range []struct {
		name, bearer, query, want string
	}{
		{"manager deletes the server", manager, `mutation { deleteServer(input: {serverDiscordId: "` + serverA + `", confirm: false}) { error { code } } }`, "only a service key may do this"},
		{"manager marks the server left", manager, `mutation { markServerLeft(input: {serverDiscordId: "` + serverA + `"}) { error { code } } }`, "only a service key may do this"},
		{"member exports", member, `{ exportLorebook(input: {serverDiscordId: "` + serverA + `", lineageId: 0, collectionId: "1"}) { entries } }`, "exporting this server's lore needs the Manage Server permission"},
		{"member writes", member, `mutation { createCollection(input: {serverDiscordId: "` + serverA + `", name: "W"}) { error { code } } }`, "writing this server's lore needs the Manage Server permission"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do(tc.bearer, tc.query, nil)
			require.Len(t, r.Errors, 1, "%v", r.Errors)
			require.Equal(t, "FORBIDDEN", r.Errors[0].Extensions["code"])
			require.Contains(t, r.Errors[0].Message, tc.want)
		})
	}
}
