package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestIgnoreBudgetRoundTrip checks that the ignore-budget flag is stored,
// read by every path (get, list, per-turn read) and edited by a patch.
func TestIgnoreBudgetRoundTrip(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.collection(t, "World")
	e := entry(b.server, lore.Serverwide, c.Name, "always there")
	e.IgnoreBudget = true
	got := b.insert(t, e)[0]
	require.True(t, got.IgnoreBudget)

	read, err := b.store.GetEntry(b.ctx, b.server, lore.Serverwide, got.ID)
	require.NoError(t, err)
	require.True(t, read.IgnoreBudget)
	snap, err := b.store.LoadEnabledForScope(b.ctx, b.server, lore.Serverwide)
	require.NoError(t, err)
	require.Len(t, snap.Entries, 1)
	require.True(t, snap.Entries[0].IgnoreBudget)

	off := false
	edited, err := b.store.UpdateEntry(b.ctx, b.server, lore.Serverwide, got.ID, lore.EntryPatch{IgnoreBudget: &off})
	require.NoError(t, err)
	require.False(t, edited.IgnoreBudget)
	title := "kept flag"
	edited, err = b.store.UpdateEntry(b.ctx, b.server, lore.Serverwide, got.ID, lore.EntryPatch{Title: &title})
	require.NoError(t, err)
	require.False(t, edited.IgnoreBudget, "an edit that does not touch the flag keeps it")
	listed, err := b.store.ListScope(b.ctx, b.server, lore.Serverwide, c.Name)
	require.NoError(t, err)
	require.False(t, listed[0].IgnoreBudget)
}

// TestReplaceScopesEmptyServerwide: replacing the Serverwide scope with an
// empty one removes every collection, not only the entries.
func TestReplaceScopesEmptyServerwide(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.collection(t, "Old")
	b.insert(t, entry(b.server, lore.Serverwide, c.Name, "old lore"))
	require.NoError(t, b.store.ReplaceScopes(b.ctx, b.server, []lore.ScopeReplacement{{Lineage: lore.Serverwide}}))
	cols, err := b.store.ListCollections(b.ctx, b.server)
	require.NoError(t, err)
	require.Empty(t, cols, "an empty Serverwide scope keeps no collection")
	require.Equal(t, 0, b.scopeCount(t, lore.Serverwide))
}

// TestPatchServerSettings: a partial update changes only what it names.
func TestPatchServerSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	off, on := false, true
	sv, err := b.store.PatchServerSettings(b.ctx, b.server, lore.SettingsPatch{RegexKeys: &on})
	require.NoError(t, err)
	require.True(t, sv.Settings.RegexKeys)
	require.True(t, sv.Settings.ChannelScoping, "untouched settings keep their value")
	sv, err = b.store.PatchServerSettings(b.ctx, b.server, lore.SettingsPatch{ChannelScoping: &off})
	require.NoError(t, err)
	require.False(t, sv.Settings.ChannelScoping)
	require.True(t, sv.Settings.RegexKeys, "the first patch survives the second")
	_, err = b.store.PatchServerSettings(b.ctx, snowflake(t), lore.SettingsPatch{})
	require.ErrorIs(t, err, lore.ErrNotFound)

	// The selection controls are stored, read back and carried by the
	// per-turn read; out-of-range values are refused whole.
	minA, depthMax, maxE := 3, 12, 20
	sv, err = b.store.PatchServerSettings(b.ctx, b.server, lore.SettingsPatch{MinActivations: &minA,
		MinActivationsDepthMax: &depthMax, MaxEntries: &maxE, IncludeNames: &on})
	require.NoError(t, err)
	want := lore.Selection{MinActivations: 3, MinActivationsDepthMax: 12, MaxEntries: 20, IncludeNames: true}
	require.Equal(t, want, sv.Settings.Selection)
	got, err := b.store.GetServer(b.ctx, b.server)
	require.NoError(t, err)
	require.Equal(t, want, got.Settings.Selection)
	snap, err := b.store.LoadEnabledForScope(b.ctx, b.server, lore.Serverwide)
	require.NoError(t, err)
	require.Equal(t, want, snap.Server.Settings.Selection)
	bad := lore.MaxEntriesCap + 1
	_, err = b.store.PatchServerSettings(b.ctx, b.server, lore.SettingsPatch{MaxEntries: &bad, MinActivations: &minA})
	requireInvalidField(t, err, "maxEntries")
	got, err = b.store.GetServer(b.ctx, b.server)
	require.NoError(t, err)
	require.Equal(t, want, got.Settings.Selection, "a refused patch changes nothing")
}

// TestScopeFullCountsWhatIsThere: a refused collection import reports the
// entries already in the scope, not zero.
func TestScopeFullCountsWhatIsThere(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.collection(t, "Full")
	_, err := b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, CollectionID: c.ID, Collection: c.Name}, lore.Append,
		entries(b.server, lore.Serverwide, c.Name, "old", 248))
	require.NoError(t, err)
	_, _, err = b.store.CreateCollectionWithEntries(b.ctx, lore.Collection{Server: b.server, Name: "New", Enabled: true},
		entries(b.server, lore.Serverwide, "New", "new", 5))
	var full *lore.ScopeFullError
	require.ErrorAs(t, err, &full)
	require.Equal(t, 248, full.Existing)
	require.Equal(t, 5, full.Adding)
	require.Contains(t, err.Error(), "would hold 253 entries (248 kept + 5 added)")
	_, err = b.store.GetCollectionByName(b.ctx, b.server, "New")
	require.ErrorIs(t, err, lore.ErrNotFound, "no empty book is left behind")
}

// TestDuplicateNameNamed: a taken collection name is reported by name, on
// create, on create-with-entries and on rename.
func TestDuplicateNameNamed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.collection(t, "World")
	other := b.collection(t, "Other")
	var dup *lore.DuplicateNameError
	_, err := b.store.CreateCollection(b.ctx, lore.Collection{Server: b.server, Name: "World", Enabled: true})
	require.ErrorAs(t, err, &dup)
	require.Equal(t, "World", dup.Name)
	require.ErrorIs(t, err, lore.ErrDuplicateName)
	_, _, err = b.store.CreateCollectionWithEntries(b.ctx, lore.Collection{Server: b.server, Name: "World", Enabled: true},
		entries(b.server, lore.Serverwide, "World", "x", 1))
	require.ErrorAs(t, err, &dup)
	_, err = b.store.RenameCollection(b.ctx, b.server, other.ID, "World")
	require.ErrorAs(t, err, &dup)
	require.Equal(t, "World", dup.Name)
	msg, _ := lore.Explain(err)
	require.Equal(t, `a collection named "World" already exists on this server`, msg)
}
