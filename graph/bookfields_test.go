package graph_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format"
)

// apiExports are the exportLorebook formats the API matrix compares with
// offline convert (CARD_PNG and CARD_CHARX are downloads through the job
// queue's artifact store; their card JSON is CARD_JSON's).
var apiExports = []struct {
	format string
	export func(format.Book) ([]byte, error)
	kind   format.Kind // as convert writes categories (format.WriteFileCategories)
}{
	{"ST_WORLD_INFO", format.ExportST, format.KindSTWorldInfo},
	{"CCV3_LOREBOOK", format.ExportLorebookV3, format.KindLorebookV3},
	{"CARD_JSON", format.ExportCardJSON, format.KindV3Card},
	{"WORLDBOOK", format.ExportWorldbook, format.KindWorldbook},
}

// requireExportsMatchConvert exports the book of server's lineage (and
// collectionID, "" for a persona book) in every apiExports format and
// requires, field by field (values and the order of every list), what
// offline `loregate convert` writes for book (the members of an object may
// come in another order: the store keeps entry extensions as jsonb,
// docs/formats.md). It returns the API's exports by format.
func requireExportsMatchConvert(t *testing.T, a *api, server string, lineage int64, collectionID, name string, book format.Book) map[string]string {
	t.Helper()
	out := make(map[string]string, len(apiExports))
	for _, ex := range apiExports {
		converted := book
		format.WriteFileCategories(&converted, ex.kind)
		want, err := ex.export(converted)
		require.NoError(t, err)
		var p struct {
			JSON  *string
			Error *mutationError
		}
		in := map[string]any{"serverDiscordId": server, "lineageId": lineage, "format": ex.format}
		if collectionID != "" {
			in["collectionId"] = collectionID
		}
		a.must(serviceKey, `query($input: ExportLorebookInput!) { exportLorebook(input: $input) { json error { code message } } }`,
			map[string]any{"input": in}, "exportLorebook", &p)
		require.Nil(t, p.Error, "%s %s", name, ex.format)
		require.Equal(t, canonicalJSON(t, want), canonicalJSON(t, []byte(*p.JSON)), "%s as %s: the API writes what convert writes", name, ex.format)
		out[ex.format] = *p.JSON
	}
	return out
}

// matrixSources reads the books of the format matrix
// (lore/format/testdata/matrix_sources.txt): corpus paths, and the files of
// lore/format/testdata as "testdata:NAME".
func matrixSources(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "lore", "format", "testdata", "matrix_sources.txt"))
	require.NoError(t, err)
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// TestAPIExportsMatchConvert is the format matrix through the API for the
// books outside the corpus (the matrix's testdata files and two inline
// books; TestCorpusImportAtDeploymentLimits does the corpus books of the
// matrix): each book imported into a collection exports, in every
// apiExports format, what offline convert writes (issue 26: the API dropped
// world info `_meta` and `originalData`, a bare book's description,
// createdAt, modifiedAt, id, isGlobal and enabled, and a card book's fields
// on CCv3). Books kept by migration 000082.
func TestAPIExportsMatchConvert(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	type source struct {
		name string
		data []byte
	}
	var local []source
	for _, rel := range matrixSources(t) {
		if name, ok := strings.CutPrefix(rel, "testdata:"); ok {
			data, err := os.ReadFile(filepath.Join("..", "lore", "format", "testdata", name))
			require.NoError(t, err)
			local = append(local, source{name, data})
		}
	}
	require.NotEmpty(t, local, "the matrix has testdata books")
	sources := []source{
		// World info without a name, with _meta and originalData.
		{"Harbor Lore.json", []byte(`{"entries":{"0":{"uid":0,"key":["pier"],"keysecondary":[],"comment":"Pier","content":"The old pier.","constant":false,"selective":true,"order":100,"position":0,"disable":false}},
		  "_meta":{"version":"V1.2","build_time":"2026-08-08 15:02:48","entry_count":1},
		  "originalData":{"name":"Harbor","description":"The harbor and its people.","entries":[{"keys":["pier"],"content":"The old pier.","id":0}]}}`)},
		// A bare character_book with the book-level fields apps write.
		{"bare.json", []byte(`{"name":"Bare","description":"A bare book.","createdAt":1700000000000,"modifiedAt":1700000500000,"id":"bk-7","isGlobal":false,"enabled":true,"scan_depth":3,
		  "extensions":{"x":1},"entries":[{"keys":["tide"],"content":"The tide.","enabled":true,"insertion_order":5,"comment":"Tide","name":"tide-entry","id":1,"extensions":{}},
		  {"keys":["gull"],"content":"A gull.","enabled":true,"insertion_order":1,"comment":"Gull","id":2,"extensions":{}}]}`)},
	}
	for _, src := range append(sources, local...) {
		imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, src.name, src.data)
		require.Nil(t, imp.Error, src.name)
		offline, err := format.Import(src.name, src.data, format.Options{Limits: lore.DefaultLimits()})
		require.NoError(t, err, src.name)
		require.Equal(t, imp.Collection.Name, offline.Book.Name, "%s: the collection is named as convert names the book", src.name)
		requireExportsMatchConvert(t, a, serverA, 0, imp.Collection.ID, src.name, offline.Book)
	}
}

// canonicalJSON is js with every object's members sorted by name (lists
// keep their order, numbers their spelling), indented for a readable diff.
func canonicalJSON(t *testing.T, js []byte) string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	out, err := json.MarshalIndent(v, "", " ")
	require.NoError(t, err)
	return string(out)
}

// TestPersonaCardBookFields: a persona card's book keeps its book-level
// fields too (description, foreign fields) and its own name: each export
// through the API is what offline convert writes for the same card, field
// by field (issue 26: the CCv3 and world info exports named the book after
// the persona). The second card's book has no name: convert names it
// after the card's character, which is not the persona's name either.
func TestPersonaCardBookFields(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 3, "l": 6, "n": "Ayla"}, "upsertPersona", &pp)
	require.Nil(t, pp.Error)
	cards := []struct {
		file  string
		input map[string]any
		src   []byte
	}{
		{"mira.json", map[string]any{"serverDiscordId": serverA, "name": "Mira the Second"}, []byte(`{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Mira","first_mes":"Hi.",
		  "character_book":{"name":"Harbor Lore","description":"The harbor and its people.","x_tool":{"v":2},
		    "entries":[{"keys":["harbor"],"content":"The harbor.","enabled":true,"insertion_order":10,"comment":"Harbor","id":1,"extensions":{}}]}}}`)},
		{"tide.json", map[string]any{"serverDiscordId": serverA, "personaId": 3}, []byte(`{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Tide","first_mes":"Hi.",
		  "character_book":{"entries":[{"keys":["tide"],"content":"The tide.","enabled":true,"insertion_order":1,"comment":"Tide","id":1,"extensions":{}}]}}}`)},
	}
	for _, c := range cards {
		pc, _ := importCard(t, a, serviceKey, c.input, c.file, c.src)
		require.Nil(t, pc.Error, c.file)
		offline, err := format.Import(c.file, c.src, format.Options{Limits: lore.DefaultLimits(), PersonaCard: true})
		require.NoError(t, err)
		require.NotEqual(t, pc.Persona.Name, offline.Book.Name, "%s: the book's name is not the persona's", c.file)
		requireExportsMatchConvert(t, a, serverA, pc.Persona.LineageID, "", c.file, offline.Book)
	}
}
