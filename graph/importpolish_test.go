package graph_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFailedImportReport: a failed importLorebook or importPersonaCard
// carries the conversion's report when the file was converted (the write
// was refused: the report says what the file held) and a null report when
// it was not (no format recognised); it once answered a report with
// format "" and nothing in it.
func TestFailedImportReport(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	tests := []struct {
		name    string
		persona bool
		file    string
		data    []byte
		code    string
		format  string // "": the report is null
	}{
		{name: "not a lorebook", file: "x.json", data: []byte(`{"hello": 1}`), code: "INVALID_INPUT"},
		{name: "not JSON", file: "x.json", data: []byte("garbage"), code: "INVALID_INPUT"},
		{name: "over the scope limit", file: "GI-Core.json", data: corpus(t, "st-worldinfo/bronya-rand__GI-Core.json"),
			code: "SCOPE_FULL", format: "st-worldinfo"},
		{name: "no importable entries", file: "empty.lorebook", data: corpus(t, "novelai/grahamwaters__lorebook_generated.lorebook"),
			code: "INVALID_INPUT", format: "novelai"},
		{name: "persona card not a card", persona: true, file: "x.json", data: []byte(`{"hello": 1}`), code: "INVALID_INPUT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p struct {
				Report *struct{ Format string }
				Error  *mutationError
			}
			if tt.persona {
				r := a.upload(serviceKey, `mutation($input: ImportPersonaCardInput!) { importPersonaCard(input: $input) { report { format } error { code message } } }`,
					map[string]any{"serverDiscordId": serverA}, tt.file, tt.data)
				require.Empty(t, r.Errors)
				require.NoError(t, json.Unmarshal(r.Data["importPersonaCard"], &p))
			} else {
				r := a.upload(serviceKey, qImport, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, tt.file, tt.data)
				require.Empty(t, r.Errors)
				require.NoError(t, json.Unmarshal(r.Data["importLorebook"], &p))
			}
			require.NotNil(t, p.Error)
			require.Equal(t, tt.code, p.Error.Code, p.Error.Message)
			if tt.format == "" {
				require.Nil(t, p.Report, "nothing was converted")
				return
			}
			require.NotNil(t, p.Report)
			require.Contains(t, p.Report.Format, tt.format)
		})
	}
}

// TestImportHistoryTotalCount: importHistory's totalCount counts the
// server's records over every page, as the schema's other connections do:
// the same on every page and with first: 0, the other server's not
// included.
func TestImportHistoryTotalCount(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	setupServer(t, a, serverB)
	book := corpus(t, "st-worldinfo/sillytavern__Eldoria.json")
	for i, s := range []string{serverA, serverA, serverA, serverB} {
		imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": s, "lineageId": 0, "name": fmt.Sprint("Book ", i)}, "Eldoria.json", book)
		require.Nil(t, imp.Error)
	}
	const q = `query($s: String!, $first: Int, $after: String) { importHistory(serverDiscordId: $s, first: $first, after: $after) {
		totalCount edges { cursor } pageInfo { hasNextPage endCursor } } }`
	type conn struct {
		TotalCount int
		Edges      []struct{ Cursor string }
		PageInfo   struct{ EndCursor *string }
	}
	var page1 conn
	a.must(serviceKey, q, map[string]any{"s": serverA, "first": 2}, "importHistory", &page1)
	require.Len(t, page1.Edges, 2)
	tests := []struct {
		name   string
		server string
		first  int
		after  *string
		edges  int
		total  int
	}{
		{"first page", serverA, 2, nil, 2, 3},
		{"second page", serverA, 2, page1.PageInfo.EndCursor, 1, 3},
		{"first 0", serverA, 0, nil, 0, 3},
		{"other server", serverB, 20, nil, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]any{"s": tt.server, "first": tt.first}
			if tt.after != nil {
				vars["after"] = *tt.after
			}
			var c conn
			a.must(serviceKey, q, vars, "importHistory", &c)
			require.Len(t, c.Edges, tt.edges)
			require.Equal(t, tt.total, c.TotalCount)
		})
	}
}

// TestImportNameWithCollection: importLorebook with both collection and
// name imports into the collection, which keeps its name; name only names
// a new collection (the schema's doc of name), so no collection is created
// or renamed.
func TestImportNameWithCollection(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	book := corpus(t, "st-worldinfo/sillytavern__Eldoria.json")
	first := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": "World"}, "Eldoria.json", book)
	require.Nil(t, first.Error)
	for _, mode := range []string{"APPEND", "REPLACE"} {
		t.Run(mode, func(t *testing.T) {
			imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "mode": mode,
				"collection": first.Collection.ID, "name": "Other"}, "Eldoria.json", book)
			require.Nil(t, imp.Error)
			require.Equal(t, first.Collection.ID, imp.Collection.ID)
			require.Equal(t, "World", imp.Collection.Name)
			var srv struct {
				Collections struct {
					TotalCount int
					Edges      []struct{ Node struct{ Name string } }
				}
			}
			a.must(serviceKey, `query($id: String!) { server(discordId: $id) { collections { totalCount edges { node { name } } } } }`,
				map[string]any{"id": serverA}, "server", &srv)
			require.Equal(t, 1, srv.Collections.TotalCount)
			require.Equal(t, "World", srv.Collections.Edges[0].Node.Name)
		})
	}
}
