package graph_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format"
)

// TestAPIExportsMatchConvert is the format matrix through the API: each
// book imported into a collection and exported by exportLorebook as world
// info, CCv3, a card JSON and a worldbook is, field by field (values
// and the order of every list), what offline `loregate convert` writes for
// the same file (the members of an object may come in another order: the
// store keeps entry extensions as jsonb, docs/formats.md)
// (issue 26: the API dropped world info `_meta` and `originalData`, a bare
// book's description, createdAt, modifiedAt, id, isGlobal and enabled, and
// a card book's fields on CCv3). Books kept by migration 000082.
func TestAPIExportsMatchConvert(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	worldbook, err := os.ReadFile(filepath.Join("..", "lore", "format", "testdata", "tavern_helper_worldbook.json"))
	require.NoError(t, err)
	sources := []struct {
		name string
		data []byte
	}{
		// World info without a name, with _meta and originalData.
		{"Harbor Lore.json", []byte(`{"entries":{"0":{"uid":0,"key":["pier"],"keysecondary":[],"comment":"Pier","content":"The old pier.","constant":false,"selective":true,"order":100,"position":0,"disable":false}},
		  "_meta":{"version":"V1.2","build_time":"2026-08-08 15:02:48","entry_count":1},
		  "originalData":{"name":"Harbor","description":"The harbor and its people.","entries":[{"keys":["pier"],"content":"The old pier.","id":0}]}}`)},
		// A bare character_book with the book-level fields apps write.
		{"bare.json", []byte(`{"name":"Bare","description":"A bare book.","createdAt":1700000000000,"modifiedAt":1700000500000,"id":"bk-7","isGlobal":false,"enabled":true,"scan_depth":3,
		  "extensions":{"x":1},"entries":[{"keys":["tide"],"content":"The tide.","enabled":true,"insertion_order":5,"comment":"Tide","name":"tide-entry","id":1,"extensions":{}},
		  {"keys":["gull"],"content":"A gull.","enabled":true,"insertion_order":1,"comment":"Gull","id":2,"extensions":{}}]}`)},
		{"Eorzea.json", corpus(t, "st-worldinfo/bronya-rand__Eorzea.json")},
		{"DateALive.json", corpus(t, "st-worldinfo/archkrrr__Date_a_Live_12.0.0.json")},
		{"Natasha.json", corpus(t, "card-json/bronya-rand__Natasha_v2.json")},
		{"ai_v3_zh.json", corpus(t, "card-json/lide4144__ai_v3_zh.json")},
		{"risu.json", corpus(t, "risu/dootaang__lorebook_export_risu_ko.json")},
		{"descriptor.lorebook", corpus(t, "novelai/travelingrobot__the_descriptor_v1_2.lorebook")},
		{"worldbook.json", worldbook},
	}
	exports := []struct {
		format string
		export func(format.Book) ([]byte, error)
	}{
		{"ST_WORLD_INFO", format.ExportST},
		{"CCV3_LOREBOOK", format.ExportLorebookV3},
		{"CARD_JSON", format.ExportCardJSON},
		{"WORLDBOOK", format.ExportWorldbook},
	}
	const q = `query($input: ExportLorebookInput!) { exportLorebook(input: $input) { json error { code message } } }`
	for _, src := range sources {
		imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, src.name, src.data)
		require.Nil(t, imp.Error, src.name)
		offline, err := format.Import(src.name, src.data, format.Options{Limits: lore.DefaultLimits()})
		require.NoError(t, err, src.name)
		require.Equal(t, imp.Collection.Name, offline.Book.Name, "%s: the collection is named as convert names the book", src.name)
		for _, ex := range exports {
			want, err := ex.export(offline.Book)
			require.NoError(t, err)
			var p struct {
				JSON  *string
				Error *mutationError
			}
			a.must(serviceKey, q, map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": 0,
				"collectionId": imp.Collection.ID, "format": ex.format}}, "exportLorebook", &p)
			require.Nil(t, p.Error, "%s %s", src.name, ex.format)
			require.Equal(t, canonicalJSON(t, want), canonicalJSON(t, []byte(*p.JSON)), "%s as %s: the API writes what convert writes", src.name, ex.format)
		}
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
	exports := []struct {
		format string
		export func(format.Book) ([]byte, error)
	}{
		{"ST_WORLD_INFO", format.ExportST},
		{"CCV3_LOREBOOK", format.ExportLorebookV3},
		{"CARD_JSON", format.ExportCardJSON},
		{"WORLDBOOK", format.ExportWorldbook},
	}
	for _, c := range cards {
		pc, _ := importCard(t, a, serviceKey, c.input, c.file, c.src)
		require.Nil(t, pc.Error, c.file)
		offline, err := format.Import(c.file, c.src, format.Options{Limits: lore.DefaultLimits(), PersonaCard: true})
		require.NoError(t, err)
		require.NotEqual(t, pc.Persona.Name, offline.Book.Name, "%s: the book's name is not the persona's", c.file)
		for _, ex := range exports {
			want, err := ex.export(offline.Book)
			require.NoError(t, err)
			var p struct {
				JSON  *string
				Error *mutationError
			}
			a.must(serviceKey, `query($input: ExportLorebookInput!) { exportLorebook(input: $input) { json error { code message } } }`,
				map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": pc.Persona.LineageID, "format": ex.format}}, "exportLorebook", &p)
			require.Nil(t, p.Error, ex.format)
			require.Equal(t, canonicalJSON(t, want), canonicalJSON(t, []byte(*p.JSON)), "%s as %s: the API writes what convert writes", c.file, ex.format)
		}
	}
}
