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
