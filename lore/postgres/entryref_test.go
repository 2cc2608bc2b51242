package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestEntriesByID reads entries of both scopes by id in the order asked;
// another server's entry (same database), an unknown id and a repeat are left out, and
// more than MaxEntriesByID ids are refused.
func TestEntriesByID(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.collection(t, "World")
	got := b.insert(t, entry(b.server, 0, "World", "glade"), entry(b.server, 3, "", "tower"))
	second := snowflake(t)
	_, err := b.store.UpsertServer(b.ctx, second, "Second")
	require.NoError(t, err)
	_, err = b.store.CreateCollection(b.ctx, lore.Collection{Server: second, Name: "Theirs", Enabled: true})
	require.NoError(t, err)
	theirs := b.insert(t, entry(second, 0, "Theirs", "theirs"))[0]

	list, err := b.store.EntriesByID(b.ctx, b.server, []int64{got[1].ID, theirs.ID, 999999, got[0].ID, got[1].ID})
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, "tower", list[0].Content)
	require.Equal(t, lore.Lineage(3), list[0].Lineage)
	require.Equal(t, "glade", list[1].Content)
	require.Equal(t, "World", list[1].Collection)

	_, err = b.store.EntriesByID(b.ctx, b.server, make([]int64, lore.MaxEntriesByID+1))
	require.ErrorIs(t, err, lore.ErrInvalid)
	var inv *lore.InvalidError
	require.ErrorAs(t, err, &inv)
	require.Equal(t, "too_many_ids", inv.Key)
}
