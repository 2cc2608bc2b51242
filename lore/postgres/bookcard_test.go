package postgres_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
)

// TestBookCards: a book keeps the card it came in, replaced by the next,
// gone with its collection; a book without one is not found.
func TestBookCards(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.collection(t, "Cards")
	_, err := b.store.GetBookCard(b.ctx, b.server, 0, c.ID)
	require.ErrorIs(t, err, lore.ErrNotFound)

	put := postgres.BookCard{Server: b.server, CollectionID: c.ID, Container: "png", Card: []byte(`{"spec":"chara_card_v2"}`), File: []byte("\x89PNG...")}
	require.NoError(t, b.store.PutBookCard(b.ctx, put))
	got, err := b.store.GetBookCard(b.ctx, b.server, 0, c.ID)
	require.NoError(t, err)
	require.Equal(t, put.Card, got.Card)
	require.Equal(t, put.File, got.File)

	put.Container, put.File = "json", nil
	require.NoError(t, b.store.PutBookCard(b.ctx, put))
	got, err = b.store.GetBookCard(b.ctx, b.server, 0, c.ID)
	require.NoError(t, err)
	require.Equal(t, "json", got.Container)
	require.Nil(t, got.File)

	persona := postgres.BookCard{Server: b.server, Lineage: 3, Container: "json", Card: []byte(`{}`)}
	require.NoError(t, b.store.PutBookCard(b.ctx, persona))
	_, err = b.store.GetBookCard(b.ctx, b.server, 3, 0)
	require.NoError(t, err)

	require.NoError(t, b.store.DeleteCollection(b.ctx, b.server, c.ID))
	_, err = b.store.GetBookCard(b.ctx, b.server, 0, c.ID)
	require.ErrorIs(t, err, lore.ErrNotFound, "the card goes with its collection")
	put.CollectionID = c.ID
	require.ErrorIs(t, b.store.PutBookCard(b.ctx, put), lore.ErrNotFound)
}

// TestBookSources: a book keeps its source's book-level fields byte for
// byte (key order and spacing of each value too); an append (replace
// false) keeps a book's own, a replace takes the new; they go with the
// collection; too large fields are refused.
func TestBookSources(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.collection(t, "Sources")
	_, err := b.store.GetBookSource(b.ctx, b.server, 0, c.ID)
	require.ErrorIs(t, err, lore.ErrNotFound)

	meta := json.RawMessage(`{"version":"V1", "b":2,"a":[1, 2.50]}`)
	put := postgres.BookSource{Server: b.server, CollectionID: c.ID, Name: "Harbor Lore", NameFromFile: true,
		Description: "The harbor.", Fields: map[string]json.RawMessage{"st/_meta": meta, "st/originalData": json.RawMessage(`{"z":1,"a":0}`)}}
	require.NoError(t, b.store.PutBookSource(b.ctx, put, false))
	got, err := b.store.GetBookSource(b.ctx, b.server, 0, c.ID)
	require.NoError(t, err)
	require.Equal(t, string(meta), string(got.Fields["st/_meta"]), "verbatim")
	require.Equal(t, `{"z":1,"a":0}`, string(got.Fields["st/originalData"]))
	require.Equal(t, "Harbor Lore", got.Name)
	require.True(t, got.NameFromFile)
	require.Equal(t, "The harbor.", got.Description)

	other := postgres.BookSource{Server: b.server, CollectionID: c.ID, Name: "Other", Fields: map[string]json.RawMessage{"card/x": json.RawMessage(`1`)}}
	require.NoError(t, b.store.PutBookSource(b.ctx, other, false))
	got, err = b.store.GetBookSource(b.ctx, b.server, 0, c.ID)
	require.NoError(t, err)
	require.Equal(t, "Harbor Lore", got.Name, "an append keeps the book's fields")
	require.NoError(t, b.store.PutBookSource(b.ctx, other, true))
	got, err = b.store.GetBookSource(b.ctx, b.server, 0, c.ID)
	require.NoError(t, err)
	require.Equal(t, "Other", got.Name, "a replace takes the new ones")
	require.Equal(t, map[string]json.RawMessage{"card/x": json.RawMessage(`1`)}, got.Fields)

	persona := postgres.BookSource{Server: b.server, Lineage: 3, Name: "Mira"}
	require.NoError(t, b.store.PutBookSource(b.ctx, persona, true))
	got, err = b.store.GetBookSource(b.ctx, b.server, 3, 0)
	require.NoError(t, err)
	require.Empty(t, got.Fields)

	big := postgres.BookSource{Server: b.server, CollectionID: c.ID, Fields: map[string]json.RawMessage{"st/x": json.RawMessage(`"` + strings.Repeat("a", 16<<20) + `"`)}}
	var inv *lore.InvalidError
	require.ErrorAs(t, b.store.PutBookSource(b.ctx, big, true), &inv)

	require.NoError(t, b.store.DeleteCollection(b.ctx, b.server, c.ID))
	_, err = b.store.GetBookSource(b.ctx, b.server, 0, c.ID)
	require.ErrorIs(t, err, lore.ErrNotFound, "the fields go with their collection")
	for _, replace := range []bool{false, true} {
		require.ErrorIs(t, b.store.PutBookSource(b.ctx, put, replace), lore.ErrNotFound)
	}
}
