package postgres_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format"
)

// TestSplitGroup stores an imported long entry as linked parts: they count
// toward the scope limit, the per-turn read joins them into one entry, keys
// and settings edited on one part are the group's, content stays per part,
// and deleting a part deletes the group.
func TestSplitGroup(t *testing.T) {
	t.Parallel()
	b := setup(t)
	long := strings.Repeat(strings.Repeat("A sentence of the long entry. ", 40)+"\n\n", 9) // 10,818 units
	book := `{"entries":{"0":{"uid":0,"key":["short"],"content":"short lore","comment":"s"},` +
		`"1":{"uid":1,"key":["long"],"content":"` + strings.ReplaceAll(long, "\n", `\n`) + `","comment":"l"}}}`
	res, err := format.Import("wi.json", []byte(book), format.Options{})
	require.NoError(t, err)
	require.Len(t, res.Report.Split, 1)
	parts := res.Report.Split[0].Parts
	require.Equal(t, 3, parts)

	const lineage = 4
	_, err = b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, Lineage: lineage}, lore.Replace, res.Book.Entries)
	require.NoError(t, err)
	require.Equal(t, 1+parts, b.scopeCount(t, lineage), "each part is a row of the scope")

	snap, err := b.store.LoadEnabledForScope(b.ctx, b.server, lineage)
	require.NoError(t, err)
	require.Len(t, snap.Entries, 2, "the engine sees one entry")
	require.Equal(t, long, snap.Entries[1].Content)

	listed, err := b.store.ListScope(b.ctx, b.server, lineage, "")
	require.NoError(t, err)
	require.Len(t, listed, 1+parts)
	second := listed[2]
	_, err = b.store.UpdateEntry(b.ctx, b.server, lineage, second.ID, lore.EntryPatch{
		Keys: &[]string{"saga"}, Probability: ptr(40), Content: ptr("edited middle. "),
	})
	require.NoError(t, err)
	listed, err = b.store.ListScope(b.ctx, b.server, lineage, "")
	require.NoError(t, err)
	for _, e := range listed[1:] {
		require.Equal(t, []string{"saga"}, e.Keys, "keys are the group's")
		require.Equal(t, 40, e.Probability)
	}
	require.Equal(t, "edited middle. ", listed[2].Content, "content is per part")
	require.NotEqual(t, "edited middle. ", listed[1].Content)
	require.Equal(t, []string{"short"}, listed[0].Keys, "other entries untouched")

	_, err = b.store.SetEntryEnabled(b.ctx, b.server, lineage, listed[3].ID, false)
	require.NoError(t, err)
	snap, err = b.store.LoadEnabledForScope(b.ctx, b.server, lineage)
	require.NoError(t, err)
	require.Len(t, snap.Entries, 1, "disabling a part disables the group")

	require.NoError(t, b.store.DeleteEntry(b.ctx, b.server, lineage, listed[1].ID))
	require.Equal(t, 1, b.scopeCount(t, lineage), "deleting a part deletes the group")
}

// TestStoreLimits: a store with raised limits admits what the defaults
// refuse, and the refusal says by how much and names the setting.
func TestStoreLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	batch := entries(b.server, 2, "", "e", 260)
	_, err := b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, Lineage: 2}, lore.Replace, batch)
	require.ErrorIs(t, err, lore.ErrScopeFull)
	require.ErrorContains(t, err, "10 over the limit of 250")
	require.ErrorContains(t, err, lore.EnvMaxScopeEntries)
	require.Zero(t, b.scopeCount(t, 2), "nothing written")

	raised := b.store.WithLimits(lore.Limits{ScopeEntries: 300, ContentChars: 5000})
	_, err = raised.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, Lineage: 2}, lore.Replace, batch)
	require.NoError(t, err)
	require.Equal(t, 260, b.scopeCount(t, 2))

	e := entry(b.server, 3, "", strings.Repeat("x", 4500))
	e.Title, e.Keys = "long", []string{"long"}
	_, err = b.store.InsertEntry(b.ctx, e)
	requireInvalidField(t, err, "content")
	_, err = raised.InsertEntry(b.ctx, e)
	require.NoError(t, err)
}
