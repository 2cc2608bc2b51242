package graph_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
	"loregate/lore"
)

// TestExpectedUpdatedAtAPI: every edit a dashboard editor makes takes
// expectedUpdatedAt; the version read is accepted once, then answers
// STALE_TARGET (field expectedUpdatedAt) and writes nothing; omitting it
// keeps the old behaviour.
func TestExpectedUpdatedAtAPI(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 4, "n": "Iris"}, "upsertPersona", &pp)
	require.Nil(t, pp.Error)
	var cp struct {
		Collection struct{ ID string }
	}
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "Edited"}) { collection { id } } }`,
		map[string]any{"s": serverA}, "createCollection", &cp)
	var ep struct {
		Entry struct{ ID string }
	}
	a.must(serviceKey, `mutation($s: String!, $c: ID) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c, entry: {content: "v0"}}) { entry { id } } }`,
		map[string]any{"s": serverA, "c": cp.Collection.ID}, "createEntry", &ep)
	// A persona book gets a version once settings are stored.
	a.must(serviceKey, `mutation($s: String!) { updatePersonaBookSettings(input: {serverDiscordId: $s, lineageId: 4, settings: {scanDepth: 1}}) { error { code } } }`,
		map[string]any{"s": serverA}, "updatePersonaBookSettings", &pp)
	require.Nil(t, pp.Error)

	cases := []struct {
		name, mutation, field string
		// read returns the target's updatedAt and the edited value.
		read  string
		vars  func(v int) map[string]any
		value func(data map[string]any) (string, string)
	}{
		{
			name:     "updateEntry",
			mutation: `mutation($s: String!, $id: ID!, $v: Int!, $at: Time) { updateEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: $id, patch: {priority: $v}, expectedUpdatedAt: $at}) { entry { updatedAt } error { code field message } } }`,
			field:    "updateEntry",
			read:     `query($s: String!) { server(discordId: $s) { collection(name: "Edited") { entries { edges { node { updatedAt priority } } } } } }`,
			vars:     func(v int) map[string]any { return map[string]any{"id": ep.Entry.ID, "v": v} },
			value: func(d map[string]any) (string, string) {
				n := d["collection"].(map[string]any)["entries"].(map[string]any)["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)
				return n["updatedAt"].(string), fmt.Sprint(n["priority"])
			},
		},
		{
			name:     "updateCollectionSettings",
			mutation: `mutation($s: String!, $id: ID!, $v: Int!, $at: Time) { updateCollectionSettings(input: {serverDiscordId: $s, collectionId: $id, settings: {scanDepth: $v}, expectedUpdatedAt: $at}) { collection { updatedAt } error { code field message } } }`,
			field:    "updateCollectionSettings",
			read:     `query($s: String!) { server(discordId: $s) { collection(name: "Edited") { updatedAt bookSettings { scanDepth } } } }`,
			vars:     func(v int) map[string]any { return map[string]any{"id": cp.Collection.ID, "v": v} },
			value: func(d map[string]any) (string, string) {
				c := d["collection"].(map[string]any)
				return c["updatedAt"].(string), fmt.Sprint(c["bookSettings"].(map[string]any)["scanDepth"])
			},
		},
		{
			name:     "updatePersonaBookSettings",
			mutation: `mutation($s: String!, $v: Int!, $at: Time) { updatePersonaBookSettings(input: {serverDiscordId: $s, lineageId: 4, settings: {scanDepth: $v}, expectedUpdatedAt: $at}) { personaBook { updatedAt } error { code field message } } }`,
			field:    "updatePersonaBookSettings",
			read:     `query($s: String!) { server(discordId: $s) { personaBook(lineageId: 4) { updatedAt bookSettings { scanDepth } } } }`,
			vars:     func(v int) map[string]any { return map[string]any{"v": v} },
			value: func(d map[string]any) (string, string) {
				b := d["personaBook"].(map[string]any)
				return b["updatedAt"].(string), fmt.Sprint(b["bookSettings"].(map[string]any)["scanDepth"])
			},
		},
		{
			name:     "updateServerSettings",
			mutation: `mutation($s: String!, $v: Int!, $at: Time) { updateServerSettings(input: {serverDiscordId: $s, budgetLimit: $v, expectedUpdatedAt: $at}) { server { settings { updatedAt } } error { code field message } } }`,
			field:    "updateServerSettings",
			read:     `query($s: String!) { server(discordId: $s) { settings { updatedAt budgetLimit } } }`,
			vars:     func(v int) map[string]any { return map[string]any{"v": 1000 + v} },
			value: func(d map[string]any) (string, string) {
				s := d["settings"].(map[string]any)
				return s["updatedAt"].(string), fmt.Sprint(s["budgetLimit"].(float64) - 1000)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			read := func() (string, string) {
				var d map[string]any
				a.must(serviceKey, tc.read, map[string]any{"s": serverA}, "server", &d)
				return tc.value(d)
			}
			write := func(at any, v int) *mutationError {
				vars := tc.vars(v)
				vars["s"], vars["at"] = serverA, at
				var p struct{ Error *mutationError }
				a.must(serviceKey, tc.mutation, vars, tc.field, &p)
				return p.Error
			}
			at, _ := read()
			require.Nil(t, write(at, 7), "the version read is accepted")
			at2, v := read()
			require.Equal(t, "7", v)
			require.NotEqual(t, at, at2, "updatedAt moved")
			me := write(at, 8)
			require.NotNil(t, me, "the old version is stale")
			require.Equal(t, "STALE_TARGET", me.Code)
			require.Equal(t, "expectedUpdatedAt", *me.Field)
			require.Contains(t, me.Message, "nothing was written")
			at3, v := read()
			require.Equal(t, "7", v, "nothing was written")
			require.Equal(t, at2, at3)
			require.Nil(t, write(nil, 9), "omitted: no check")
			_, v = read()
			require.Equal(t, "9", v)
		})
	}
	// A member without Manage Server is refused before any check.
	reader := a.member("42", map[string]auth.Membership{serverA: {}})
	r := a.do(reader, cases[3].mutation, map[string]any{"s": serverA, "v": 1100, "at": "2020-01-01T00:00:00Z"})
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "FORBIDDEN", r.Errors[0].Extensions["code"])
}

// TestViewerServers: a member sees the registered guilds of its token with
// canManage per guild; a service sees every server; pages follow names.
func TestViewerServers(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	setupServer(t, a, serverB)
	const serverC = "333333333333333333" // in the token, not registered
	type viewer struct {
		Kind, ID string
		Servers  struct {
			TotalCount int
			PageInfo   struct {
				HasNextPage bool
				EndCursor   *string
			}
			Edges []struct {
				Node struct {
					DiscordID, Name string
					CanManage       bool
				}
			}
		}
	}
	const q = `query($first: Int, $after: String) { viewer { kind id servers(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { node { discordId name canManage } } } } }`
	member := a.member("777", map[string]auth.Membership{serverA: {Manage: true}, serverB: {}, serverC: {Manage: true}})
	var v viewer
	a.must(member, q, nil, "viewer", &v)
	require.Equal(t, "MEMBER", v.Kind)
	require.Equal(t, "777", v.ID)
	require.Equal(t, 2, v.Servers.TotalCount)
	require.Len(t, v.Servers.Edges, 2)
	require.Equal(t, serverA, v.Servers.Edges[0].Node.DiscordID)
	require.True(t, v.Servers.Edges[0].Node.CanManage)
	require.Equal(t, serverB, v.Servers.Edges[1].Node.DiscordID)
	require.False(t, v.Servers.Edges[1].Node.CanManage)

	// Paging one at a time.
	var ids []string
	var after any
	for range 3 {
		var p viewer
		a.must(member, q, map[string]any{"first": 1, "after": after}, "viewer", &p)
		for _, e := range p.Servers.Edges {
			ids = append(ids, e.Node.DiscordID)
		}
		if !p.Servers.PageInfo.HasNextPage {
			break
		}
		after = *p.Servers.PageInfo.EndCursor
	}
	require.Equal(t, []string{serverA, serverB}, ids)

	var s viewer
	a.must(serviceKey, q, nil, "viewer", &s)
	require.Equal(t, "SERVICE", s.Kind)
	require.Equal(t, 2, s.Servers.TotalCount)
	for _, e := range s.Servers.Edges {
		require.True(t, e.Node.CanManage)
	}
	r := a.do(member, q, map[string]any{"after": "bm90LWEtY3Vyc29y"})
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "BAD_USER_INPUT", r.Errors[0].Extensions["code"])
}

// TestEntriesSearchAndOrderAPI pages a 260-entry persona book through the
// API sorted by title, searches it, and refuses a cursor of another order
// and an overlong search.
func TestEntriesSearchAndOrderAPI(t *testing.T) {
	a := newAPILimits(t, lore.Limits{ScopeEntries: 300})
	setupServer(t, a, serverA)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 3, "n": "Iris"}, "upsertPersona", &pp)
	batch := make([]map[string]any, 260)
	for i := range batch {
		batch[i] = map[string]any{"title": fmt.Sprintf("T%03d", 259-i), "content": fmt.Sprintf("lore %d", i), "keys": []string{fmt.Sprintf("k%d", i)}}
	}
	var rp struct {
		Count *int
		Error *mutationError
	}
	a.must(serviceKey, `mutation($s: String!, $e: [EntryInput!]!) { replacePersonaBook(input: {serverDiscordId: $s, lineageId: 3, entries: $e}) { count error { code message } } }`,
		map[string]any{"s": serverA, "e": batch}, "replacePersonaBook", &rp)
	require.Nil(t, rp.Error)
	require.Equal(t, 260, *rp.Count)

	type conn struct {
		TotalCount int
		PageInfo   struct {
			HasNextPage bool
			EndCursor   *string
		}
		Edges []struct{ Node struct{ Title string } }
	}
	list := func(vars map[string]any) (conn, gqlResponse) {
		vars["s"] = serverA
		r := a.do(serviceKey, `query($s: String!, $first: Int, $after: String, $search: String, $order: EntryOrder) { server(discordId: $s) {
			personaBook(lineageId: 3) { entryCount entries(first: $first, after: $after, search: $search, orderBy: $order) { totalCount pageInfo { hasNextPage endCursor } edges { node { title } } } } } }`, vars)
		var out struct{ PersonaBook struct{ Entries conn } }
		if len(r.Errors) == 0 {
			require.NoError(t, json.Unmarshal(r.Data["server"], &out))
		}
		return out.PersonaBook.Entries, r
	}
	byTitle := map[string]any{"field": "TITLE", "direction": "ASC"}
	var titles []string
	var after any
	for range 5 {
		c, r := list(map[string]any{"first": 100, "after": after, "order": byTitle})
		require.Empty(t, r.Errors)
		require.Equal(t, 260, c.TotalCount)
		for _, e := range c.Edges {
			titles = append(titles, e.Node.Title)
		}
		if !c.PageInfo.HasNextPage {
			break
		}
		after = *c.PageInfo.EndCursor
	}
	require.Len(t, titles, 260)
	for i, title := range titles {
		require.Equal(t, fmt.Sprintf("T%03d", i), title)
	}

	c, r := list(map[string]any{"search": "t25", "order": map[string]any{"field": "TITLE", "direction": "DESC"}})
	require.Empty(t, r.Errors)
	require.Equal(t, 10, c.TotalCount, "T250-T259")
	require.Equal(t, "T259", c.Edges[0].Node.Title)
	c, r = list(map[string]any{"search": "LORE 1"})
	require.Empty(t, r.Errors)
	require.Equal(t, 111, c.TotalCount, "lore 1, 10-19, 100-199")

	first, _ := list(map[string]any{"first": 1, "order": byTitle})
	_, r = list(map[string]any{"after": *first.PageInfo.EndCursor, "order": map[string]any{"field": "PRIORITY"}})
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "BAD_USER_INPUT", r.Errors[0].Extensions["code"])
	require.Contains(t, r.Errors[0].Message, "orderBy")
	// A cursor whose position does not parse for its order (edited by
	// hand) is bad input naming after, not a failed SQL cast.
	byPriority := map[string]any{"field": "PRIORITY"}
	first, _ = list(map[string]any{"first": 1, "order": byPriority})
	raw, err := base64.RawURLEncoding.DecodeString(*first.PageInfo.EndCursor)
	require.NoError(t, err)
	var pos map[string]any
	require.NoError(t, json.Unmarshal(bytes.TrimPrefix(raw, []byte("k:")), &pos))
	for _, key := range []string{"x", "99999999999", ""} {
		pos["k"] = key
		b, err := json.Marshal(pos)
		require.NoError(t, err)
		_, r = list(map[string]any{"after": base64.RawURLEncoding.EncodeToString(append([]byte("k:"), b...)), "order": byPriority})
		require.NotEmpty(t, r.Errors, "key %q", key)
		require.Equal(t, "BAD_USER_INPUT", r.Errors[0].Extensions["code"], "key %q: %s", key, r.Errors[0].Message)
		require.Contains(t, r.Errors[0].Message, "after")
	}
	_, r = list(map[string]any{"search": fmt.Sprintf("%0201d", 0)})
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "BAD_USER_INPUT", r.Errors[0].Extensions["code"])
	require.Contains(t, r.Errors[0].Message, "search")
}

// TestExpectedUpdatedAtSetters: the single-purpose edits of a collection
// or an entry and the deletes take expectedUpdatedAt too; a stale one
// changes and deletes nothing.
func TestExpectedUpdatedAtSetters(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var cp struct {
		Collection struct{ ID string }
	}
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "C0"}) { collection { id } } }`,
		map[string]any{"s": serverA}, "createCollection", &cp)
	newEntry := func() string {
		var ep struct {
			Entry struct{ ID string }
		}
		a.must(serviceKey, `mutation($s: String!, $c: ID) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c, entry: {content: "x"}}) { entry { id } } }`,
			map[string]any{"s": serverA, "c": cp.Collection.ID}, "createEntry", &ep)
		return ep.Entry.ID
	}
	entryID := newEntry()
	// state returns the collection's and the entry's updatedAt and a
	// summary of what the edits change.
	state := func(entry string) (col, ent, summary string) {
		var d struct {
			Collections struct {
				Edges []struct {
					Node struct {
						UpdatedAt, Name string
						Enabled         bool
						ChannelIds      []string
						Entries         struct {
							Edges []struct {
								Node struct {
									ID, UpdatedAt string
									Enabled       bool
								}
							}
						}
					}
				}
			}
		}
		a.must(serviceKey, `query($s: String!) { server(discordId: $s) { collections { edges { node { updatedAt name enabled channelIds entries { edges { node { id updatedAt enabled } } } } } } } }`,
			map[string]any{"s": serverA}, "server", &d)
		if len(d.Collections.Edges) == 0 {
			return "", "", "no collection"
		}
		c := d.Collections.Edges[0].Node
		var ids []string
		for _, e := range c.Entries.Edges {
			ids = append(ids, e.Node.ID)
			if e.Node.ID == entry {
				ent = e.Node.UpdatedAt
				summary = fmt.Sprintf("entry enabled=%v ", e.Node.Enabled)
			}
		}
		return c.UpdatedAt, ent, summary + fmt.Sprintf("%s %v %v %v", c.Name, c.Enabled, c.ChannelIds, ids)
	}
	cases := []struct {
		name, field, mutation string
		entry                 bool // expects the entry's updatedAt, else the collection's
		vars                  func(v int) map[string]any
	}{
		{"setEntryEnabled", "setEntryEnabled", `mutation($s: String!, $e: ID!, $b: Boolean!, $at: Time) { setEntryEnabled(input: {serverDiscordId: $s, lineageId: 0, entryId: $e, enabled: $b, expectedUpdatedAt: $at}) { error { code field } } }`,
			true, func(v int) map[string]any { return map[string]any{"b": v%2 == 0} }},
		{"renameCollection", "renameCollection", `mutation($s: String!, $c: ID!, $n: String!, $at: Time) { renameCollection(input: {serverDiscordId: $s, collectionId: $c, name: $n, expectedUpdatedAt: $at}) { error { code field } } }`,
			false, func(v int) map[string]any { return map[string]any{"n": fmt.Sprintf("C%d", v)} }},
		{"setCollectionEnabled", "setCollectionEnabled", `mutation($s: String!, $c: ID!, $b: Boolean!, $at: Time) { setCollectionEnabled(input: {serverDiscordId: $s, collectionId: $c, enabled: $b, expectedUpdatedAt: $at}) { error { code field } } }`,
			false, func(v int) map[string]any { return map[string]any{"b": v%2 == 0} }},
		{"setCollectionChannels", "setCollectionChannels", `mutation($s: String!, $c: ID!, $ch: [String!]!, $at: Time) { setCollectionChannels(input: {serverDiscordId: $s, collectionId: $c, channelIds: $ch, expectedUpdatedAt: $at}) { error { code field } } }`,
			false, func(v int) map[string]any { return map[string]any{"ch": []string{fmt.Sprintf("3%017d", v)}} }},
		{"deleteEntry", "deleteEntry", `mutation($s: String!, $e: ID!, $at: Time) { deleteEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: $e, expectedUpdatedAt: $at}) { ok error { code field } } }`,
			true, func(int) map[string]any { return map[string]any{} }},
		{"deleteCollection", "deleteCollection", `mutation($s: String!, $c: ID!, $at: Time) { deleteCollection(input: {serverDiscordId: $s, collectionId: $c, expectedUpdatedAt: $at}) { ok error { code field } } }`,
			false, func(int) map[string]any { return map[string]any{} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			write := func(at any, v int) *mutationError {
				vars := tc.vars(v)
				vars["s"], vars["at"] = serverA, at
				if strings.Contains(tc.mutation, "$c:") {
					vars["c"] = cp.Collection.ID
				}
				if strings.Contains(tc.mutation, "$e:") {
					vars["e"] = entryID
				}
				var p struct{ Error *mutationError }
				a.must(serviceKey, tc.mutation, vars, tc.field, &p)
				return p.Error
			}
			version := func() string {
				col, ent, _ := state(entryID)
				if tc.entry {
					return ent
				}
				return col
			}
			old := version()
			switch tc.name {
			case "deleteEntry": // another manager edits the entry meanwhile
				var p struct{ Error *mutationError }
				a.must(serviceKey, `mutation($s: String!, $e: ID!) { updateEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: $e, patch: {title: "edited"}}) { error { code } } }`,
					map[string]any{"s": serverA, "e": entryID}, "updateEntry", &p)
				require.Nil(t, p.Error)
			case "deleteCollection":
				var p struct{ Error *mutationError }
				a.must(serviceKey, `mutation($s: String!, $c: ID!) { updateCollectionSettings(input: {serverDiscordId: $s, collectionId: $c, settings: {scanDepth: 3}}) { error { code } } }`,
					map[string]any{"s": serverA, "c": cp.Collection.ID}, "updateCollectionSettings", &p)
				require.Nil(t, p.Error)
			default:
				require.Nil(t, write(nil, 1), "omitted: no check")
			}
			_, _, before := state(entryID)
			me := write(old, 2)
			require.NotNil(t, me, "the version before the first write is stale")
			require.Equal(t, "STALE_TARGET", me.Code)
			require.Equal(t, "expectedUpdatedAt", *me.Field)
			_, _, after := state(entryID)
			require.Equal(t, before, after, "a stale write changes nothing")
			if tc.name == "deleteEntry" || tc.name == "deleteCollection" {
				require.Contains(t, after, entryID, "a stale delete deletes nothing")
			}
			require.Nil(t, write(version(), 3), "the current version is accepted")
			if tc.name == "deleteEntry" {
				_, _, after = state(entryID)
				require.NotContains(t, after, entryID)
				entryID = newEntry()
			}
		})
	}
	_, _, s := state(entryID)
	require.Equal(t, "no collection", s, "deleteCollection ran last, with the current version")
}

// TestExpectedUpdatedAtRaceAPI: two managers rename one collection at once,
// both expecting the version they read: exactly one rename wins, the other
// is STALE_TARGET (the check and the write share the server-row lock).
func TestExpectedUpdatedAtRaceAPI(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var cp struct {
		Collection struct{ ID, UpdatedAt string }
	}
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "R"}) { collection { id updatedAt } } }`,
		map[string]any{"s": serverA}, "createCollection", &cp)
	at := cp.Collection.UpdatedAt
	for round := range 5 {
		type result struct {
			Collection *struct{ Name, UpdatedAt string }
			Error      *mutationError
		}
		results := make([]result, 2)
		replies := make([]gqlResponse, 2)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				replies[w] = a.do(serviceKey, `mutation($s: String!, $c: ID!, $n: String!, $at: Time) { renameCollection(input: {serverDiscordId: $s, collectionId: $c, name: $n, expectedUpdatedAt: $at}) { collection { name updatedAt } error { code field } } }`,
					map[string]any{"s": serverA, "c": cp.Collection.ID, "n": fmt.Sprintf("R%d-%d", round, w), "at": at})
			}()
		}
		close(start)
		wg.Wait()
		for w, r := range replies {
			require.Empty(t, r.Errors)
			require.NoError(t, json.Unmarshal(r.Data["renameCollection"], &results[w]))
		}
		won := -1
		for w, r := range results {
			if r.Error == nil {
				require.Equal(t, -1, won, "round %d: both renames won", round)
				won = w
				continue
			}
			require.Equal(t, "STALE_TARGET", r.Error.Code)
		}
		require.NotEqual(t, -1, won, "round %d: one rename wins", round)
		require.Equal(t, fmt.Sprintf("R%d-%d", round, won), results[won].Collection.Name)
		at = results[won].Collection.UpdatedAt
	}
}

// TestExpectedUpdatedAtIdempotent: a retry with the same idempotencyKey
// replays the first answer even though its expectedUpdatedAt is stale by
// then (the first call changed the target); the write is not run again.
func TestExpectedUpdatedAtIdempotent(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var cp struct {
		Collection struct{ ID, UpdatedAt string }
	}
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "I"}) { collection { id updatedAt } } }`,
		map[string]any{"s": serverA}, "createCollection", &cp)
	for _, m := range []struct{ field, query string }{
		{"setCollectionEnabled", `mutation($s: String!, $c: ID!, $at: Time) { setCollectionEnabled(input: {serverDiscordId: $s, collectionId: $c, enabled: false, expectedUpdatedAt: $at, idempotencyKey: "k1"}) { collection { updatedAt enabled } error { code } } }`},
		{"updateCollectionSettings", `mutation($s: String!, $c: ID!, $at: Time) { updateCollectionSettings(input: {serverDiscordId: $s, collectionId: $c, settings: {scanDepth: 2}, expectedUpdatedAt: $at, idempotencyKey: "k2"}) { collection { updatedAt enabled } error { code } } }`},
	} {
		var first, again struct {
			Collection *struct {
				UpdatedAt string
				Enabled   bool
			}
			Error *mutationError
		}
		vars := map[string]any{"s": serverA, "c": cp.Collection.ID, "at": cp.Collection.UpdatedAt}
		a.must(serviceKey, m.query, vars, m.field, &first)
		require.Nil(t, first.Error, m.field)
		a.must(serviceKey, m.query, vars, m.field, &again)
		require.Nil(t, again.Error, "%s: the retry replays the first answer", m.field)
		var now struct{ Collection struct{ UpdatedAt string } }
		a.must(serviceKey, `query($s: String!) { server(discordId: $s) { collection(name: "I") { updatedAt } } }`, map[string]any{"s": serverA}, "server", &now)
		require.Equal(t, first.Collection.UpdatedAt, now.Collection.UpdatedAt, "%s: the write ran once", m.field)
		cp.Collection.UpdatedAt = first.Collection.UpdatedAt
	}
}

// TestServerEntry: an editor reads one entry by scope and id; an id of
// another scope or server, or a malformed id, is null.
func TestServerEntry(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	setupServer(t, a, serverB)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 5, "n": "Iris"}, "upsertPersona", &pp)
	var ep struct {
		Entry struct{ ID string }
	}
	a.must(serviceKey, `mutation($s: String!) { createEntry(input: {serverDiscordId: $s, lineageId: 5, entry: {title: "Moon", content: "Silver", keys: ["moon"], sticky: 2}}) { entry { id } } }`,
		map[string]any{"s": serverA}, "createEntry", &ep)
	const q = `query($s: String!, $l: Int64!, $id: ID!) { server(discordId: $s) { entry(lineageId: $l, id: $id) { id title content keys sticky updatedAt } } }`
	cases := []struct {
		name   string
		bearer string
		server string
		l      int64
		id     string
		want   string // title, "" = null entry, "-" = null server
	}{
		{"persona entry", serviceKey, serverA, 5, ep.Entry.ID, "Moon"},
		{"reader member", a.member("9", map[string]auth.Membership{serverA: {}}), serverA, 5, ep.Entry.ID, "Moon"},
		{"wrong scope", serviceKey, serverA, 0, ep.Entry.ID, ""},
		{"other lineage", serviceKey, serverA, 6, ep.Entry.ID, ""},
		{"other server", serviceKey, serverB, 5, ep.Entry.ID, ""},
		{"malformed id", serviceKey, serverA, 5, "x1", ""},
		{"negative lineage", serviceKey, serverA, -1, ep.Entry.ID, ""},
		{"member of another server", a.member("9", map[string]auth.Membership{serverB: {}}), serverA, 5, ep.Entry.ID, "-"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var srv *struct {
				Entry *struct {
					ID, Title, Content, UpdatedAt string
					Keys                          []string
					Sticky                        int
				}
			}
			a.must(tc.bearer, q, map[string]any{"s": tc.server, "l": tc.l, "id": tc.id}, "server", &srv)
			switch tc.want {
			case "-":
				require.Nil(t, srv)
			case "":
				require.NotNil(t, srv)
				require.Nil(t, srv.Entry)
			default:
				require.NotNil(t, srv.Entry)
				require.Equal(t, tc.want, srv.Entry.Title)
				require.Equal(t, "Silver", srv.Entry.Content)
				require.Equal(t, []string{"moon"}, srv.Entry.Keys)
				require.Equal(t, 2, srv.Entry.Sticky)
				require.NotEmpty(t, srv.Entry.UpdatedAt)
			}
		})
	}
}
