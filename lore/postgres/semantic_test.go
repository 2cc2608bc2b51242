package postgres_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/migrations"
)

// TestVectorizedFlag: the flag is stored, edited by a patch (absent keeps
// it), and migration 000065 gives it to entries stored before it that kept
// SillyTavern's flag in their extensions; down removes the column and keeps
// those extensions.
func TestVectorizedFlag(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := b.ctx
	e := entry(b.server, 4, "", "vector lore")
	e.Vectorized = true
	got := b.insert(t, e)[0]
	require.True(t, got.Vectorized)
	up, err := b.store.UpdateEntry(ctx, b.server, 4, got.ID, lore.EntryPatch{Title: ptr("renamed")})
	require.NoError(t, err)
	require.True(t, up.Vectorized, "a patch without the field keeps it")
	up, err = b.store.UpdateEntry(ctx, b.server, 4, got.ID, lore.EntryPatch{Vectorized: ptr(false)})
	require.NoError(t, err)
	require.False(t, up.Vectorized)

	// Entries imported before the column kept the flag in extensions.
	st := entry(b.server, 4, "", "from world info")
	st.Extensions = map[string]json.RawMessage{"st/vectorized": json.RawMessage(`true`)}
	card := entry(b.server, 4, "", "from a card")
	card.Extensions = map[string]json.RawMessage{"card/extensions/vectorized": json.RawMessage(`true`)}
	off := entry(b.server, 4, "", "not vectorized")
	off.Extensions = map[string]json.RawMessage{"st/vectorized": json.RawMessage(`false`)}
	b.insert(t, st, card, off)

	conn, err := b.pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = migrations.Down(ctx, conn.Conn(), 65)
	require.NoError(t, err)
	require.Zero(t, b.count(t, `SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema()
  AND table_name = 'lorebook_entries' AND column_name = 'vectorized'`), "down drops the column")
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM lorebook_entries WHERE server_id = $1
  AND (extensions ? 'st/vectorized' OR extensions ? 'card/extensions/vectorized') AND content <> 'not vectorized'`, b.server),
		"the source flags are kept")
	_, err = migrations.Up(ctx, conn.Conn())
	require.NoError(t, err)
	list, err := b.store.ListServerEntries(ctx, b.server)
	require.NoError(t, err)
	flags := map[string]bool{}
	for _, e := range list {
		flags[e.Content] = e.Vectorized
	}
	require.Equal(t, map[string]bool{"vector lore": false, "from world info": true, "from a card": true, "not vectorized": false}, flags)
}
