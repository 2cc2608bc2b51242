package graph_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/format"
)

// TestCardExports: a book imported from a PNG card exports as that card
// (CARD_JSON in the payload; CARD_PNG as a download through the artifact
// route, image kept, edited book inside), and a book that came without a
// card exports as a minimal card.
func TestCardExports(t *testing.T) {
	a, _ := newJobsAPI(t, 64<<20)
	setupServer(t, a, serverA)
	src := corpus(t, "png/sillytavern__default_Seraphina.png")
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": "Sera"}, "sera.png", src)
	require.Nil(t, imp.Error)
	wi := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "Eldoria.json", corpus(t, "st-worldinfo/sillytavern__Eldoria.json"))
	require.Nil(t, wi.Error)

	const q = `query($input: ExportLorebookInput!) { exportLorebook(input: $input) {
		fileName json entries download { url fileName sizeBytes sha256 } error { code message } } }`
	type payload struct {
		FileName string
		JSON     *string
		Entries  int
		Download *struct {
			URL, FileName, Sha256 string
			SizeBytes             int
		}
		Error *mutationError
	}
	export := func(collection, f string) payload {
		var p payload
		a.must(serviceKey, q, map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": 0,
			"collectionId": collection, "format": f}}, "exportLorebook", &p)
		require.Nil(t, p.Error)
		return p
	}
	want, err := format.Import("sera.png", src, format.Options{})
	require.NoError(t, err)

	// CARD_JSON: the whole card, the book inside.
	p := export(imp.Collection.ID, "CARD_JSON")
	require.NotNil(t, p.JSON)
	var card struct {
		Spec string
		Data struct {
			Name          string
			FirstMes      string                              `json:"first_mes"`
			CharacterBook struct{ Entries []json.RawMessage } `json:"character_book"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(*p.JSON), &card))
	require.Equal(t, "chara_card_v2", card.Spec)
	require.Equal(t, "Seraphina", card.Data.Name)
	require.NotEmpty(t, card.Data.FirstMes, "the card's other fields are kept")
	require.Len(t, card.Data.CharacterBook.Entries, len(want.Book.Entries))

	// CARD_PNG: a download of the PNG with the card rewritten.
	p = export(imp.Collection.ID, "CARD_PNG")
	require.Nil(t, p.JSON)
	require.NotNil(t, p.Download)
	req, err := http.NewRequest(http.MethodGet, a.srv.URL+p.Download.URL, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+serviceKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "image/png", resp.Header.Get("Content-Type"))
	require.Len(t, body, p.Download.SizeBytes)
	again, err := format.Import("again.png", body, format.Options{})
	require.NoError(t, err)
	require.Len(t, again.Book.Entries, len(want.Book.Entries))
	require.Equal(t, want.Book.Card.File[:1000], body[:1000], "the image comes first, unchanged")

	// A persona card's book keeps its card too.
	natasha := corpus(t, "card-json/bronya-rand__Natasha_v2.json")
	pc, _ := importCard(t, a, serviceKey, map[string]any{"serverDiscordId": serverA}, "natasha.json", natasha)
	require.Nil(t, pc.Error)
	var pe payload
	a.must(serviceKey, q, map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": pc.Persona.LineageID,
		"format": "CARD_JSON"}}, "exportLorebook", &pe)
	require.Nil(t, pe.Error)
	require.NoError(t, json.Unmarshal([]byte(*pe.JSON), &card))
	require.Equal(t, "chara_card_v2", card.Spec)
	require.Equal(t, "Natasha", card.Data.Name)

	// A book without a card: a minimal V3 card named after the book.
	p = export(wi.Collection.ID, "CARD_JSON")
	require.NoError(t, json.Unmarshal([]byte(*p.JSON), &card))
	require.Equal(t, "chara_card_v3", card.Spec)
	require.Equal(t, "Eldoria", card.Data.Name)
	require.Len(t, card.Data.CharacterBook.Entries, 4)
}

// TestExportKeepsAuthorsOrder: a book whose list order is not its
// insertion order exports through the API in the order offline convert
// writes (the source's), CCv3 and CARD_JSON alike.
func TestExportKeepsAuthorsOrder(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	src := []byte(`{"spec":"lorebook_v3","data":{"name":"Order","entries":[
	  {"keys":["c"],"content":"third by order","enabled":true,"insertion_order":30,"comment":"c"},
	  {"keys":["a"],"content":"first by order","enabled":true,"insertion_order":10,"comment":"a"},
	  {"keys":["b"],"content":"second by order","enabled":true,"insertion_order":20,"comment":"b"}]}}`)
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "order.json", src)
	require.Nil(t, imp.Error)
	offline, err := format.Import("order.json", src, format.Options{})
	require.NoError(t, err)
	titles := func(js []byte, path ...string) []string {
		var v any
		require.NoError(t, json.Unmarshal(js, &v))
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		var out []string
		for _, e := range v.([]any) {
			out = append(out, e.(map[string]any)["comment"].(string))
		}
		return out
	}
	for _, tc := range []struct {
		format string
		export func(format.Book) ([]byte, error)
		path   []string
	}{
		{"CCV3_LOREBOOK", format.ExportLorebookV3, []string{"data", "entries"}},
		{"CARD_JSON", format.ExportCardJSON, []string{"data", "character_book", "entries"}},
	} {
		var p struct {
			JSON  *string
			Error *mutationError
		}
		a.must(serviceKey, `query($input: ExportLorebookInput!) { exportLorebook(input: $input) { json error { code message } } }`,
			map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collectionId": imp.Collection.ID, "format": tc.format}}, "exportLorebook", &p)
		require.Nil(t, p.Error)
		want, err := tc.export(offline.Book)
		require.NoError(t, err)
		require.Equal(t, []string{"c", "a", "b"}, titles(want, tc.path...), "offline convert keeps the source order")
		require.Equal(t, titles(want, tc.path...), titles([]byte(*p.JSON), tc.path...), "%s: the API keeps it too", tc.format)
	}
}

// TestCardJSONKeepsBookFields: a card whose book has a name, a description
// and foreign book fields, imported into a collection through the API and
// exported as CARD_JSON, carries them as offline convert of the same card
// does (the store keeps the source card; issue 26: 16 of 16 named books
// lost character_book.name).
func TestCardJSONKeepsBookFields(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	src := []byte(`{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Mira","description":"A guide.","first_mes":"Hi.",
	  "character_book":{"name":"Harbor Lore","description":"The harbor and its people.","scan_depth":4,"x_tool":{"v":2},
	    "extensions":{"chub":{"id":7}},
	    "entries":[{"keys":["harbor"],"content":"The harbor.","enabled":true,"insertion_order":10,"comment":"Harbor","id":1,"extensions":{}}]}}}`)
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": "Harbor"}, "mira.json", src)
	require.Nil(t, imp.Error)
	offline, err := format.Import("mira.json", src, format.Options{})
	require.NoError(t, err)
	offline.Book.Name = "Harbor" // the collection's name, as imported
	want, err := format.ExportCardJSON(offline.Book)
	require.NoError(t, err)
	var p struct {
		JSON  *string
		Error *mutationError
	}
	a.must(serviceKey, `query($input: ExportLorebookInput!) { exportLorebook(input: $input) { json error { code message } } }`,
		map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collectionId": imp.Collection.ID, "format": "CARD_JSON"}}, "exportLorebook", &p)
	require.Nil(t, p.Error)
	book := func(js []byte) map[string]any {
		var v struct {
			Data struct {
				CharacterBook map[string]any `json:"character_book"`
			}
		}
		require.NoError(t, json.Unmarshal(js, &v))
		return v.Data.CharacterBook
	}
	got, exp := book([]byte(*p.JSON)), book(want)
	require.Equal(t, "Harbor", got["name"], "the book's name field is written")
	for _, k := range []string{"name", "description", "scan_depth", "x_tool", "extensions"} {
		require.Equal(t, exp[k], got[k], "character_book.%s as offline convert writes it", k)
	}
	require.Equal(t, "The harbor and its people.", got["description"])
	require.Equal(t, map[string]any{"v": 2.0}, got["x_tool"])
}
