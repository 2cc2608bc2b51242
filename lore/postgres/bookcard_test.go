package postgres_test

import (
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
