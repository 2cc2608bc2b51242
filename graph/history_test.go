package graph_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
)

const (
	qPreview = `mutation($input: ImportLorebookInput!) { previewImport(input: $input) {
		plan { added duplicates replaced mode lineageId collectionName newCollection scopeBefore scopeAfter report { format entries } }
		error { code message } } }`
	qImportID = `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) {
		added duplicates replaced importId collection { id name } error { code message } } }`
	qHistory = `query($s: String!, $first: Int, $after: String) { importHistory(serverDiscordId: $s, first: $first, after: $after) {
		edges { cursor node { id kind actor sourceName sourceSha256 mode lineageId collectionName created removed snapshotKept undoneBy undoOf report } }
		pageInfo { hasNextPage endCursor } } }`
	qUndo = `mutation($s: String!, $id: ID!, $k: String) { undoImport(input: {serverDiscordId: $s, importId: $id, idempotencyKey: $k}) {
		restored removed importId error { code message } } }`
)

type plan struct {
	Added, Duplicates, Replaced int
	Mode                        string
	LineageID                   int64
	CollectionName              *string
	NewCollection               bool
	ScopeBefore, ScopeAfter     int
}

type historyConn struct {
	Edges []struct {
		Cursor string
		Node   struct {
			ID, Kind, Actor, SourceName, SourceSha256, Mode string
			LineageID                                       int64
			CollectionName                                  *string
			Created, Removed                                int
			SnapshotKept                                    bool
			UndoneBy, UndoOf                                *string
		}
	}
	PageInfo struct {
		HasNextPage bool
		EndCursor   *string
	}
}

// TestImportHistoryAPI: previewImport returns importLorebook's counts and
// writes nothing; importLorebook returns the history id; importHistory
// lists records newest first for lore writers only, paged; undoImport restores
// the replaced book, is recorded and refuses a second run.
func TestImportHistoryAPI(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var pp0 struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 3, "n": "Mira"}, "upsertPersona", &pp0)
	require.Nil(t, pp0.Error)
	data := corpus(t, "st-worldinfo/bronya-rand__Eorzea.json")
	input := func(mode string) map[string]any {
		return map[string]any{"serverDiscordId": serverA, "lineageId": 3, "mode": mode}
	}
	first := a.importFile(serviceKey, input("APPEND"), "Eorzea.json", data)
	require.Nil(t, first.Error)
	require.Equal(t, 29, first.Added)

	r := a.upload(serviceKey, qPreview, input("REPLACE"), "Eldoria.json", corpus(t, "st-worldinfo/sillytavern__Eldoria.json"))
	require.Empty(t, r.Errors)
	var pp struct {
		Plan  *plan
		Error *mutationError
	}
	require.NoError(t, json.Unmarshal(r.Data["previewImport"], &pp))
	require.Nil(t, pp.Error)
	require.Equal(t, "REPLACE", pp.Plan.Mode)
	require.Equal(t, 29, pp.Plan.Replaced)
	require.Equal(t, 29, pp.Plan.ScopeBefore)

	r = a.upload(serviceKey, qImportID, input("REPLACE"), "Eldoria.json", corpus(t, "st-worldinfo/sillytavern__Eldoria.json"))
	require.Empty(t, r.Errors)
	var ip struct {
		Added, Duplicates, Replaced int
		ImportID                    *string
		Error                       *mutationError
	}
	require.NoError(t, json.Unmarshal(r.Data["importLorebook"], &ip))
	require.Nil(t, ip.Error)
	require.NotNil(t, ip.ImportID)
	require.Equal(t, pp.Plan.Added, ip.Added, "the preview's counts are the import's")
	require.Equal(t, pp.Plan.Replaced, ip.Replaced)
	require.Equal(t, pp.Plan.ScopeAfter, ip.Added)

	var h historyConn
	a.must(serviceKey, qHistory, map[string]any{"s": serverA, "first": 1}, "importHistory", &h)
	require.Len(t, h.Edges, 1)
	require.True(t, h.PageInfo.HasNextPage)
	require.Equal(t, *ip.ImportID, h.Edges[0].Node.ID, "newest first")
	require.Equal(t, "FILE", h.Edges[0].Node.Kind)
	require.Equal(t, "replace", h.Edges[0].Node.Mode)
	require.Equal(t, 29, h.Edges[0].Node.Removed)
	require.Len(t, h.Edges[0].Node.SourceSha256, 64)
	var older historyConn
	a.must(serviceKey, qHistory, map[string]any{"s": serverA, "first": 5, "after": *h.PageInfo.EndCursor}, "importHistory", &older)
	require.Len(t, older.Edges, 1)
	require.False(t, older.PageInfo.HasNextPage)
	require.Equal(t, 29, older.Edges[0].Node.Created)

	// Members who cannot manage the server see nothing.
	member := a.member("42", map[string]auth.Membership{serverA: {}})
	require.NotEmpty(t, a.do(member, qHistory, map[string]any{"s": serverA}).Errors)
	require.NotEmpty(t, a.do(member, qUndo, map[string]any{"s": serverA, "id": *ip.ImportID}).Errors)

	var u struct {
		Restored, Removed int
		ImportID          *string
		Error             *mutationError
	}
	a.must(serviceKey, qUndo, map[string]any{"s": serverA, "id": *ip.ImportID, "k": "undo-1"}, "undoImport", &u)
	require.Nil(t, u.Error)
	require.Equal(t, 29, u.Restored)
	var again struct {
		Restored int
		ImportID *string
		Error    *mutationError
	}
	a.must(serviceKey, qUndo, map[string]any{"s": serverA, "id": *ip.ImportID, "k": "undo-1"}, "undoImport", &again)
	require.Nil(t, again.Error, "a repeated key returns the first result")
	require.Equal(t, u.Restored, again.Restored)
	require.Equal(t, *u.ImportID, *again.ImportID)
	require.Equal(t, ip.Added, u.Removed)
	book, err := a.store.ListScope(t.Context(), serverA, 3, "")
	require.NoError(t, err)
	require.Len(t, book, 29, "the Eorzea book is back")
	undoID := *u.ImportID

	a.must(serviceKey, qUndo, map[string]any{"s": serverA, "id": *ip.ImportID}, "undoImport", &u)
	require.NotNil(t, u.Error, "not twice")
	require.Equal(t, "INVALID_INPUT", u.Error.Code)
	a.must(serviceKey, qHistory, map[string]any{"s": serverA}, "importHistory", &h)
	require.Len(t, h.Edges, 3)
	require.Equal(t, "UNDO", h.Edges[0].Node.Kind)
	require.Equal(t, *ip.ImportID, *h.Edges[0].Node.UndoOf)
	require.Equal(t, undoID, *h.Edges[1].Node.UndoneBy)
}
