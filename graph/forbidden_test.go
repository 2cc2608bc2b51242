package graph_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
	"loregate/lore/i18n"
)

// TestForbiddenSaysWhatIsNeeded: a refused call's FORBIDDEN error names
// what the call needs, in its message and in its reason key
// (extensions.reason, params {}), whose English text is the message. A
// manager calling a service-only life cycle mutation was told it needs
// the Manage Server permission it has, and a member exporting was told
// writing needs it; a member recording a turn or renaming the server was
// told the lore editor role would do. Every forbidden_ key of the catalog
// has a case here.
func TestForbiddenSaysWhatIsNeeded(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	member := a.member("500000000000000001", map[string]auth.Membership{serverA: {}})
	manager := a.member("500000000000000002", map[string]auth.Membership{serverA: {Manage: true}})
	tests := []struct {
		name, bearer, query, want, reason string
	}{
		{"manager deletes the server", manager, `mutation { deleteServer(input: {serverDiscordId: "` + serverA + `", confirm: false}) { error { code } } }`,
			"only a service key may do this", i18n.ForbiddenService},
		{"manager marks the server left", manager, `mutation { markServerLeft(input: {serverDiscordId: "` + serverA + `"}) { error { code } } }`,
			"only a service key may do this", i18n.ForbiddenService},
		{"member exports", member, `{ exportLorebook(input: {serverDiscordId: "` + serverA + `", lineageId: 0, collectionId: "1"}) { entries } }`,
			"exporting this server's lore needs the Manage Server permission", i18n.ForbiddenExport},
		{"member writes", member, `mutation { createCollection(input: {serverDiscordId: "` + serverA + `", name: "W"}) { error { code } } }`,
			"writing this server's lore needs the Manage Server permission", i18n.ForbiddenLoreWrite},
		{"member changes server settings", member, `mutation { updateServerSettings(input: {serverDiscordId: "` + serverA + `", maxEntries: 7}) { error { code } } }`,
			"this needs the Manage Server permission (a lore editor writes entries", i18n.ForbiddenSettings},
		{"member records a turn", member, `mutation { activateTurn(input: {serverDiscordId: "` + serverA + `", channelId: "600000000000000001", messages: [{content: "hi"}], turnId: "t1", messageCount: 1}) { error { code } } }`,
			"this needs the Manage Server permission (the lore editor role", i18n.ForbiddenManage},
		{"member renames the server", member, `mutation { upsertServer(input: {discordId: "` + serverA + `", name: "Mine"}) { error { code } } }`,
			"this needs the Manage Server permission (the lore editor role", i18n.ForbiddenManage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do(tc.bearer, tc.query, nil)
			require.Len(t, r.Errors, 1, "%v", r.Errors)
			ext := r.Errors[0].Extensions
			require.Equal(t, "FORBIDDEN", ext["code"])
			require.Contains(t, r.Errors[0].Message, tc.want)
			require.Equal(t, tc.reason, ext["reason"], "%v", ext)
			require.Equal(t, map[string]any{}, ext["params"])
			require.Equal(t, strings.TrimPrefix(r.Errors[0].Message, "forbidden: "), i18n.Text(i18n.EN, tc.reason, nil), "the key's English text is the message")
		})
	}
	var keys, tested []string
	for _, r := range i18n.Reasons() {
		if strings.HasPrefix(r.Key, "forbidden_") {
			keys = append(keys, r.Key)
		}
	}
	for _, tc := range tests {
		tested = append(tested, tc.reason)
	}
	slices.Sort(keys)
	slices.Sort(tested)
	require.Equal(t, keys, slices.Compact(tested), "every forbidden_ reason key has a case")
}
