package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

func TestBookSettingsStoredReadAndValidated(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const lineage lore.Lineage = 4
	world := b.collection(t, "World")
	b.insert(t, entry(b.server, lore.Serverwide, "World", "sw"), entry(b.server, lineage, "", "persona"))

	set := lore.BookSettings{ScanDepth: ptr(0), BudgetLimit: ptr(12000), Recursive: ptr(true),
		MaxRecursionSteps: ptr(3), CaseSensitive: ptr(false), WholeWords: ptr(true), MaxBudgetShare: ptr(40),
		SemanticAllEntries: ptr(true)}
	v := b.loreVersion(t)
	c, err := b.store.UpdateCollectionSettings(b.ctx, b.server, world.ID, replaceAll(set))
	require.NoError(t, err)
	require.Equal(t, set, c.Settings)
	require.Equal(t, v+1, b.loreVersion(t), "a settings write bumps the lore version")
	got, err := b.store.GetCollection(b.ctx, b.server, world.ID)
	require.NoError(t, err)
	require.Equal(t, set, got.Settings)

	pset := lore.BookSettings{ScanDepth: ptr(6), Recursive: ptr(false), MaxBudgetShare: ptr(100), SemanticAllEntries: ptr(false)}
	_, err = b.store.UpdatePersonaBookSettings(b.ctx, b.server, lineage, lore.BookSettingsPatch{ScanDepth: ptr(ptr(6))})
	require.NoError(t, err)
	_, err = b.store.UpdatePersonaBookSettings(b.ctx, b.server, lineage, lore.BookSettingsPatch{MaxBudgetShare: ptr(ptr(100))})
	require.NoError(t, err)
	_, err = b.store.UpdatePersonaBookSettings(b.ctx, b.server, lineage, lore.BookSettingsPatch{SemanticAllEntries: ptr(ptr(false))})
	require.NoError(t, err)
	out, err := b.store.UpdatePersonaBookSettings(b.ctx, b.server, lineage, lore.BookSettingsPatch{Recursive: ptr(ptr(false))})
	require.NoError(t, err)
	require.Equal(t, pset, out, "a patch keeps the settings it does not name")
	require.Equal(t, v+5, b.loreVersion(t))
	read, err := b.store.PersonaBookSettings(b.ctx, b.server, lineage)
	require.NoError(t, err)
	require.Equal(t, pset, read)
	none, err := b.store.PersonaBookSettings(b.ctx, b.server, 99)
	require.NoError(t, err)
	require.True(t, none.IsZero(), "a lineage without settings has none")

	snap, err := b.store.LoadEnabledForScope(b.ctx, b.server, lineage)
	require.NoError(t, err)
	require.Equal(t, pset, snap.PersonaBook, "the per-turn read carries the persona book's settings")
	require.Equal(t, set, snap.Collections["World"].Settings, "and each collection's")
	snap, err = b.store.LoadEnabledForScope(b.ctx, b.server, lore.Serverwide)
	require.NoError(t, err)
	require.True(t, snap.PersonaBook.IsZero())

	// Budget limits are validated in the server's unit, under the lock.
	_, err = b.store.UpdateCollectionSettings(b.ctx, b.server, world.ID, lore.BookSettingsPatch{BudgetLimit: ptr(ptr(0))})
	requireInvalidField(t, err, "settings.budgetLimit")
	unit := lore.BudgetTokens
	_, err = b.store.PatchServerSettings(b.ctx, b.server, lore.SettingsPatch{BudgetUnit: &unit})
	require.NoError(t, err)
	_, err = b.store.UpdatePersonaBookSettings(b.ctx, b.server, lineage, lore.BookSettingsPatch{BudgetLimit: ptr(ptr(40000))})
	requireInvalidField(t, err, "settings.budgetLimit")
	_, err = b.store.UpdateCollectionSettings(b.ctx, b.server, world.ID, lore.BookSettingsPatch{MaxRecursionSteps: ptr(ptr(11))})
	requireInvalidField(t, err, "settings.maxRecursionSteps")
	_, err = b.store.UpdatePersonaBookSettings(b.ctx, b.server, lineage, lore.BookSettingsPatch{MaxBudgetShare: ptr(ptr(0))})
	requireInvalidField(t, err, "settings.maxBudgetShare")
	read, err = b.store.PersonaBookSettings(b.ctx, b.server, lineage)
	require.NoError(t, err)
	require.Equal(t, pset, read, "a refused write changes nothing")

	// Clearing deletes the row; unknown ids and servers are not found.
	_, err = b.store.UpdatePersonaBookSettings(b.ctx, b.server, lineage, replaceAll(lore.BookSettings{}))
	require.NoError(t, err)
	require.Zero(t, b.count(t, `SELECT count(*) FROM persona_books WHERE server_id = $1`, b.server))
	_, err = b.store.UpdateCollectionSettings(b.ctx, b.server, world.ID+1000, replaceAll(set))
	require.ErrorIs(t, err, lore.ErrNotFound)
	_, err = b.store.UpdatePersonaBookSettings(b.ctx, snowflake(t), lineage, replaceAll(pset))
	require.ErrorIs(t, err, lore.ErrNotFound)
	_, err = b.store.UpdatePersonaBookSettings(b.ctx, b.server, lore.Serverwide, replaceAll(pset))
	requireInvalidField(t, err, "lineage")

	// A wipe that removes persona lore removes persona book settings too.
	_, err = b.store.UpdatePersonaBookSettings(b.ctx, b.server, lineage, replaceAll(pset))
	require.NoError(t, err)
	require.NoError(t, b.store.WipeServerLore(b.ctx, b.server, true))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM persona_books WHERE server_id = $1`, b.server))
	require.NoError(t, b.store.WipeServerLore(b.ctx, b.server, false))
	require.Zero(t, b.count(t, `SELECT count(*) FROM persona_books WHERE server_id = $1`, b.server))
}

// replaceAll returns the patch that sets every setting to s's.
func replaceAll(s lore.BookSettings) lore.BookSettingsPatch {
	return lore.BookSettingsPatch{ScanDepth: &s.ScanDepth, BudgetLimit: &s.BudgetLimit, Recursive: &s.Recursive,
		MaxRecursionSteps: &s.MaxRecursionSteps, CaseSensitive: &s.CaseSensitive, WholeWords: &s.WholeWords,
		MaxBudgetShare: &s.MaxBudgetShare, SemanticAllEntries: &s.SemanticAllEntries}
}

func TestImportStoresBookSettingsOnReplace(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const lineage lore.Lineage = 3
	world := b.collection(t, "World")
	imported := lore.BookSettings{ScanDepth: ptr(9), BudgetLimit: ptr(5000), Recursive: ptr(true)}

	target := lore.ImportTarget{Server: b.server, CollectionID: world.ID, Collection: "World", Settings: &imported}
	_, err := b.store.ImportEntries(b.ctx, target, lore.Append, []lore.Entry{entry(b.server, lore.Serverwide, "", "a")})
	require.NoError(t, err)
	c, err := b.store.GetCollection(b.ctx, b.server, world.ID)
	require.NoError(t, err)
	require.True(t, c.Settings.IsZero(), "Append keeps the book's own settings")

	res, err := b.store.ImportEntries(b.ctx, target, lore.Replace, []lore.Entry{entry(b.server, lore.Serverwide, "", "b")})
	require.NoError(t, err)
	require.Equal(t, imported, res.Collection.Settings, "Replace stores the imported settings")

	ptarget := lore.ImportTarget{Server: b.server, Lineage: lineage, Settings: &imported}
	_, err = b.store.ImportEntries(b.ctx, ptarget, lore.Replace, []lore.Entry{entry(b.server, lineage, "", "p")})
	require.NoError(t, err)
	got, err := b.store.PersonaBookSettings(b.ctx, b.server, lineage)
	require.NoError(t, err)
	require.Equal(t, imported, got)

	bad := lore.BookSettings{ScanDepth: ptr(500)}
	ptarget.Settings = &bad
	_, err = b.store.ImportEntries(b.ctx, ptarget, lore.Replace, []lore.Entry{entry(b.server, lineage, "", "q")})
	requireInvalidField(t, err, "settings.scanDepth")
	list, err := b.store.ListScope(b.ctx, b.server, lineage, "")
	require.NoError(t, err)
	require.Equal(t, []string{"p"}, contents(list), "invalid settings refuse the whole import")
}

func TestUpdateEntryPatchesActivationFields(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := entry(b.server, 2, "", "x")
	require.Equal(t, lore.DefaultGroupWeight, e.GroupWeight)
	e.Group, e.UseGroupScoring = "g1", ptr(true)
	stored := b.insert(t, e)[0]
	var noScoring *bool
	got, err := b.store.UpdateEntry(b.ctx, b.server, 2, stored.ID, lore.EntryPatch{
		GroupOverride: ptr(true), GroupWeight: ptr(5), UseGroupScoring: &noScoring, ExcludeRecursion: ptr(true),
		DelayUntilRecursion: ptr(1), Sticky: ptr(2), Cooldown: ptr(3), Delay: ptr(4), ScanDepth: ptr(ptr(0)),
	})
	require.NoError(t, err)
	read, err := b.store.GetEntry(b.ctx, b.server, 2, stored.ID)
	require.NoError(t, err)
	require.Equal(t, got, read)
	require.Equal(t, "g1", read.Group, "untouched fields keep their value")
	require.True(t, read.GroupOverride)
	require.Equal(t, 5, read.GroupWeight)
	require.Nil(t, read.UseGroupScoring, "a pointer to nil clears the override")
	require.True(t, read.ExcludeRecursion)
	require.False(t, read.PreventRecursion)
	require.Equal(t, []int{1, 2, 3, 4, 0}, []int{read.DelayUntilRecursion, read.Sticky, read.Cooldown, read.Delay, *read.ScanDepth})

	_, err = b.store.UpdateEntry(b.ctx, b.server, 2, stored.ID, lore.EntryPatch{GroupWeight: ptr(-3)})
	requireInvalidField(t, err, "groupWeight")
}
