package graph_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
)

const (
	qCreatePersonaEntry = `mutation($s: String!, $l: Int64!, $c: String!, $t: String) { createEntry(input: {serverDiscordId: $s, lineageId: $l, entry: {title: $t, content: $c, keys: ["k"]}}) {
		entry { id updatedAt } error { code message } } }`
	qUpdateContent = `mutation($s: String!, $l: Int64!, $id: ID!, $c: String!) { updateEntry(input: {serverDiscordId: $s, lineageId: $l, entryId: $id, patch: {content: $c}}) {
		entry { id updatedAt } error { code message } } }`
	qDeleteEntry = `mutation($s: String!, $l: Int64!, $id: ID!) { deleteEntry(input: {serverDiscordId: $s, lineageId: $l, entryId: $id}) { ok error { code message } } }`
	qRevisions   = `query($s: String!, $l: Int64!, $id: ID!, $first: Int, $after: String) { server(discordId: $s) { entry(lineageId: $l, id: $id) {
		revisions(first: $first, after: $after) { edges { node { id entryId kind by at deleted changedFields title content keys entry { id content } } } pageInfo { hasNextPage endCursor } } } } }`
	qDeleted = `query($s: String!) { server(discordId: $s) { deletedEntries(first: 5) { edges { node { id entryId kind deleted title content } } } } }`
	qRestore = `mutation($s: String!, $r: ID!, $at: Time) { restoreEntryRevision(input: {serverDiscordId: $s, revisionId: $r, expectedUpdatedAt: $at}) {
		entry { id content updatedAt } error { code message } } }`
)

type revisionNode struct {
	ID, EntryID, Kind, By, At, Title, Content string
	Deleted                                   bool
	ChangedFields, Keys                       []string
	Entry                                     struct{ ID, Content string }
}

type entryPayloadT struct {
	Entry *struct{ ID, Content, UpdatedAt string }
	Error *mutationError
}

// TestRevisionsAPI: every write of an entry is listed newest first with
// who, the kind and the changed fields; a deleted entry is listed in
// deletedEntries and restored with its id; members read but cannot
// restore; another server's member sees nothing.
func TestRevisionsAPI(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	setupServer(t, a, serverB)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 4, "n": "Mira"}, "upsertPersona", &pp)
	manager := a.member("900000000000000001", map[string]auth.Membership{serverA: {Manage: true}})
	member := a.member("900000000000000002", map[string]auth.Membership{serverA: {}})
	outsider := a.member("900000000000000003", map[string]auth.Membership{serverB: {Manage: true}})

	var c entryPayloadT
	a.must(manager, qCreatePersonaEntry, map[string]any{"s": serverA, "l": 4, "c": "The moon is cheese.", "t": "Moon"}, "createEntry", &c)
	require.Nil(t, c.Error)
	id := c.Entry.ID
	var u entryPayloadT
	a.must(manager, qUpdateContent, map[string]any{"s": serverA, "l": 4, "id": id, "c": "The moon is rock."}, "updateEntry", &u)
	require.Nil(t, u.Error)

	revs := func(bearer string) (out []revisionNode, next *string) {
		var s *struct {
			Entry *struct {
				Revisions struct {
					Edges    []struct{ Node revisionNode }
					PageInfo struct {
						HasNextPage bool
						EndCursor   *string
					}
				}
			}
		}
		a.must(bearer, qRevisions, map[string]any{"s": serverA, "l": 4, "id": id, "first": 10}, "server", &s)
		if s == nil || s.Entry == nil {
			return nil, nil
		}
		for _, e := range s.Entry.Revisions.Edges {
			out = append(out, e.Node)
		}
		return out, s.Entry.Revisions.PageInfo.EndCursor
	}
	list, _ := revs(member)
	require.Len(t, list, 2)
	require.Equal(t, "UPDATE", list[0].Kind)
	require.Equal(t, "user:900000000000000001", list[0].By)
	require.Equal(t, []string{"content"}, list[0].ChangedFields)
	require.Equal(t, "The moon is rock.", list[0].Content)
	require.Equal(t, "CREATE", list[1].Kind)
	require.Equal(t, "The moon is cheese.", list[1].Entry.Content)
	require.Equal(t, id, list[1].Entry.ID)
	require.Equal(t, []string{"k"}, list[1].Keys)
	require.Equal(t, "Moon", list[1].Title)
	out, _ := revs(outsider)
	require.Empty(t, out, "a member of another server reads nothing")

	// Delete, list as deleted, restore (members may not).
	var d struct{ Ok bool }
	a.must(manager, qDeleteEntry, map[string]any{"s": serverA, "l": 4, "id": id}, "deleteEntry", &d)
	require.True(t, d.Ok)
	var sd struct {
		DeletedEntries struct{ Edges []struct{ Node revisionNode } }
	}
	a.must(member, qDeleted, map[string]any{"s": serverA}, "server", &sd)
	require.Len(t, sd.DeletedEntries.Edges, 1)
	del := sd.DeletedEntries.Edges[0].Node
	require.Equal(t, id, del.EntryID)
	require.True(t, del.Deleted)
	require.Equal(t, "DELETE", del.Kind)
	require.Equal(t, "The moon is rock.", del.Content)

	r := a.do(member, qRestore, map[string]any{"s": serverA, "r": list[1].ID})
	require.NotEmpty(t, r.Errors, "a member cannot restore")
	var rp entryPayloadT
	a.must(outsider, qRestore, map[string]any{"s": serverB, "r": list[1].ID}, "restoreEntryRevision", &rp)
	require.NotNil(t, rp.Error)
	require.Equal(t, "NOT_FOUND", rp.Error.Code, "another server's revision")
	a.must(manager, qRestore, map[string]any{"s": serverA, "r": list[1].ID, "at": u.Entry.UpdatedAt}, "restoreEntryRevision", &rp)
	require.NotNil(t, rp.Error)
	require.Equal(t, "STALE_TARGET", rp.Error.Code, "a deleted entry has no version to expect")
	a.must(manager, qRestore, map[string]any{"s": serverA, "r": list[1].ID}, "restoreEntryRevision", &rp)
	require.Nil(t, rp.Error)
	require.Equal(t, id, rp.Entry.ID)
	require.Equal(t, "The moon is cheese.", rp.Entry.Content)
	list, cursor := revs(manager)
	require.Len(t, list, 4)
	require.Equal(t, "RESTORE", list[0].Kind)
	require.Equal(t, []string{"content"}, list[0].ChangedFields)
	require.NotNil(t, cursor)
	sd.DeletedEntries.Edges = nil
	a.must(member, qDeleted, map[string]any{"s": serverA}, "server", &sd)
	require.Empty(t, sd.DeletedEntries.Edges)

	// Revisions nested in an entries list are priced per revision: 100
	// entries x 100 revisions of the full state is refused before it runs,
	// 50 x 10 of a few fields passes.
	nested := func(entries, revisions int) gqlResponse {
		return a.do(member, `query($s: String!, $e: Int, $r: Int) { server(discordId: $s) { personaBook(lineageId: 4) { entries(first: $e) { edges { node {
			revisions(first: $r) { edges { node { id kind title content keys secondaryKeys entry { id title content keys } } } } } } } } } }`,
			map[string]any{"s": serverA, "e": entries, "r": revisions})
	}
	r = nested(100, 100)
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "COMPLEXITY_LIMIT_EXCEEDED", r.Errors[0].Extensions["code"])
	require.Empty(t, nested(50, 10).Errors)
}
