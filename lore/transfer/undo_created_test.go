package transfer_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/format"
	"loregate/lore/transfer"
)

// cardImport imports a character card as a new persona (PersonaID 0) with
// the given entry contents, book settings (scan depth 4) and the card kept
// with the book, and returns the persona and the history record id.
func (b *bundle) cardImport(t *testing.T, server, name string, contents ...string) (lore.Persona, int64) {
	t.Helper()
	entries := make([]lore.Entry, len(contents))
	for i, c := range contents {
		entries[i] = lore.NewEntry()
		entries[i].Title, entries[i].Content, entries[i].Keys = "card "+c, c, []string{"k " + c}
	}
	four := 4
	card := &format.SourceCard{Container: format.ContainerJSON, JSON: []byte(`{"spec": "chara_card_v2", "data": {"name": "` + name + `"}}`)}
	p, res, recID, err := transfer.ImportPersonaCard(b.ctx, b.store, lore.PersonaCardImport{Server: server, Name: name,
		Entries: entries, Settings: &lore.BookSettings{ScanDepth: &four}}, card, name+".json", card.JSON, "user:1")
	require.NoError(t, err)
	require.Equal(t, len(contents), res.Added)
	return p, recID
}

func (b *bundle) persona(t *testing.T, server string, id int64) (lore.Persona, bool) {
	t.Helper()
	ps, err := b.store.ListPersonas(b.ctx, server)
	require.NoError(t, err)
	i := slices.IndexFunc(ps, func(p lore.Persona) bool { return p.ID == id })
	if i < 0 {
		return lore.Persona{}, false
	}
	return ps[i], true
}

// TestUndoCreatedPersona: undoing a persona card import that created a
// persona removes the persona with its book (entries, edited ones
// included; settings; kept card), so the next import gets the same ids
// again; entries written in the book since keep the persona and its book
// (reported); an existing persona's replaced book settings come back.
func TestUndoCreatedPersona(t *testing.T) {
	b := setup(t)

	t.Run("removed with its book, edited entries included", func(t *testing.T) {
		s := b.server(t)
		_, err := b.store.UpsertPersona(b.ctx, lore.Persona{Server: s, ID: 1, Lineage: 3, Name: "Host"})
		require.NoError(t, err)
		p, recID := b.cardImport(t, s, "Nova", "one", "two")
		require.Equal(t, int64(2), p.ID)
		require.Equal(t, lore.Lineage(4), p.Lineage)
		rec, err := b.store.HistoryRecord(b.ctx, s, recID)
		require.NoError(t, err)
		require.Equal(t, p.ID, rec.CreatedPersona)
		_, err = b.store.GetBookCard(b.ctx, s, p.Lineage, 0)
		require.NoError(t, err, "the card is kept with the book")
		edited := "edited since"
		_, err = b.store.UpdateEntry(b.ctx, s, p.Lineage, rec.CreatedIDs[0], lore.EntryPatch{Content: &edited})
		require.NoError(t, err)

		u, err := transfer.Undo(b.ctx, b.store, s, recID, "user:1")
		require.NoError(t, err)
		require.Equal(t, 2, u.Removed)
		require.Equal(t, &lore.UndoPersona{ID: p.ID, Lineage: p.Lineage, Removed: true}, u.Persona)
		_, ok := b.persona(t, s, p.ID)
		require.False(t, ok, "the created persona is gone")
		_, ok = b.persona(t, s, 1)
		require.True(t, ok, "other personas stay")
		set, err := b.store.PersonaBookSettings(b.ctx, s, p.Lineage)
		require.NoError(t, err)
		require.True(t, set.IsZero(), "the book's settings are gone")
		_, err = b.store.GetBookCard(b.ctx, s, p.Lineage, 0)
		require.ErrorIs(t, err, lore.ErrNotFound, "the kept card is gone")
		require.Empty(t, b.all(t, s))

		again, _ := b.cardImport(t, s, "Nova", "one")
		require.Equal(t, p.ID, again.ID, "the undo gave the persona id back")
		require.Equal(t, p.Lineage, again.Lineage)
		undo, err := b.store.HistoryRecord(b.ctx, s, u.Record.ID)
		require.NoError(t, err)
		var rep map[string]any
		require.NoError(t, json.Unmarshal(undo.Report, &rep))
		require.Equal(t, true, rep["persona"].(map[string]any)["removed"])
	})

	t.Run("kept when lore was authored in its book since", func(t *testing.T) {
		s := b.server(t)
		p, recID := b.cardImport(t, s, "Vale", "one", "two")
		authored := b.hand(t, s, p.Lineage, "", "written later")
		u, err := transfer.Undo(b.ctx, b.store, s, recID, "user:1")
		require.NoError(t, err)
		require.Equal(t, 2, u.Removed)
		require.Equal(t, &lore.UndoPersona{ID: p.ID, Lineage: p.Lineage, AuthoredSince: 1}, u.Persona)
		got, ok := b.persona(t, s, p.ID)
		require.True(t, ok, "the persona stays with the lore written since")
		require.Equal(t, "Vale", got.Name)
		require.Equal(t, entryIDs(authored), entryIDs(b.all(t, s)))
		set, err := b.store.PersonaBookSettings(b.ctx, s, p.Lineage)
		require.NoError(t, err)
		require.NotNil(t, set.ScanDepth, "the book keeps its settings")
		require.Equal(t, 4, *set.ScanDepth)
	})

	t.Run("moved to another lineage since: kept", func(t *testing.T) {
		s := b.server(t)
		p, recID := b.cardImport(t, s, "Drift", "one")
		// A registered persona keeps its lineage; removed, it may be
		// registered again under another one.
		_, err := b.store.UpsertPersona(b.ctx, lore.Persona{Server: s, ID: p.ID, Lineage: 40, Name: "Drift"})
		require.ErrorIs(t, err, lore.ErrInvalid)
		require.NoError(t, b.store.RemovePersona(b.ctx, s, p.ID))
		_, err = b.store.UpsertPersona(b.ctx, lore.Persona{Server: s, ID: p.ID, Lineage: 40, Name: "Drift"})
		require.NoError(t, err)
		u, err := transfer.Undo(b.ctx, b.store, s, recID, "user:1")
		require.NoError(t, err)
		require.Equal(t, &lore.UndoPersona{ID: p.ID, Lineage: p.Lineage, Moved: true}, u.Persona)
		got, ok := b.persona(t, s, p.ID)
		require.True(t, ok)
		require.Equal(t, lore.Lineage(40), got.Lineage)
	})

	t.Run("existing persona: replaced settings come back, persona stays", func(t *testing.T) {
		s := b.server(t)
		_, err := b.store.UpsertPersona(b.ctx, lore.Persona{Server: s, ID: 1, Lineage: 6, Name: "Mira"})
		require.NoError(t, err)
		nine := 9
		p9 := &nine
		_, err = b.store.UpdatePersonaBookSettings(b.ctx, s, 6, lore.BookSettingsPatch{ScanDepth: &p9})
		require.NoError(t, err)
		orig := b.hand(t, s, 6, "", "hand")
		card := lore.NewEntry()
		card.Content, card.Keys = "from the card", []string{"card"}
		two := 2
		_, _, recID, err := transfer.ImportPersonaCard(b.ctx, b.store, lore.PersonaCardImport{Server: s, PersonaID: 1,
			Entries: []lore.Entry{card}, Settings: &lore.BookSettings{ScanDepth: &two}}, nil, "mira.json", []byte("x"), "user:1")
		require.NoError(t, err)
		u, err := transfer.Undo(b.ctx, b.store, s, recID, "user:1")
		require.NoError(t, err)
		require.Nil(t, u.Persona, "the import created no persona")
		_, ok := b.persona(t, s, 1)
		require.True(t, ok)
		require.Equal(t, entryIDs(orig), entryIDs(b.all(t, s)))
		set, err := b.store.PersonaBookSettings(b.ctx, s, 6)
		require.NoError(t, err)
		require.Equal(t, 9, *set.ScanDepth, "the book's settings before the import")
	})
}

// TestUndoPersonaCardCharacter: undoing a persona card import onto an
// existing persona puts back the card character it replaced (none when
// there was none); a character a later card set stays (reported).
func TestUndoPersonaCardCharacter(t *testing.T) {
	b := setup(t)
	s := b.server(t)
	_, err := b.store.UpsertPersona(b.ctx, lore.Persona{Server: s, ID: 1, Lineage: 8, Name: "Mira"})
	require.NoError(t, err)
	onto := func(name string) int64 {
		c := &lore.CharacterContext{Name: name, Tags: []string{"t"}, Description: name + " rides north."}
		_, _, recID, err := transfer.ImportPersonaCard(b.ctx, b.store, lore.PersonaCardImport{Server: s, PersonaID: 1, Character: c},
			nil, name+".json", []byte(name), "user:1")
		require.NoError(t, err)
		return recID
	}
	character := func() *lore.CharacterContext {
		snap, err := b.store.LoadEnabledForScope(b.ctx, s, 8)
		require.NoError(t, err)
		return snap.Character
	}
	first, second := onto("Aether"), onto("Amy")
	require.Equal(t, "Amy", character().Name)
	u, err := transfer.Undo(b.ctx, b.store, s, second, "user:1")
	require.NoError(t, err)
	require.True(t, u.Card)
	require.Equal(t, &lore.CharacterContext{Name: "Aether", Tags: []string{"t"}, Description: "Aether rides north."}, character())
	u, err = transfer.Undo(b.ctx, b.store, s, first, "user:1")
	require.NoError(t, err)
	require.True(t, u.Card)
	require.Nil(t, character(), "the persona had no card before the first import")

	third := onto("Vex")
	onto("Ilse")
	u, err = transfer.Undo(b.ctx, b.store, s, third, "user:1")
	require.NoError(t, err)
	require.True(t, u.CardKept)
	require.False(t, u.Card)
	require.Equal(t, "Ilse", character().Name, "a later card stays")
	undo, err := b.store.HistoryRecord(b.ctx, s, u.Record.ID)
	require.NoError(t, err)
	require.JSONEq(t, `{"restored":0,"removed":0,"missing":0,"card":false,"cardKept":true}`, string(undo.Report))
}

// TestUndoBackupRestoresCollections: a backup import that changes kept
// collections' enabled flags and channels, deletes a collection and
// creates one is undone with every collection as it was: flags and
// channels put back, the deleted one recreated with its settings, the
// created one removed; a collection a manager changed again after the
// import keeps that later state (reported).
func TestUndoBackupRestoresCollections(t *testing.T) {
	b := setup(t)
	s := b.server(t)
	const chanA, chanB = "500000000000000001", "500000000000000002"

	// The backup: "Kept" disabled and scoped to chanA, "Fresh" new.
	src := b.server(t)
	kept := b.collection(t, src, "Kept")
	_, err := b.store.SetCollectionEnabled(b.ctx, src, kept.ID, false)
	require.NoError(t, err)
	_, err = b.store.SetCollectionChannels(b.ctx, src, kept.ID, []string{chanA})
	require.NoError(t, err)
	b.hand(t, src, lore.Serverwide, "Kept", "backup kept")
	b.collection(t, src, "Fresh")
	b.hand(t, src, lore.Serverwide, "Fresh", "backup fresh")
	also := b.collection(t, src, "Also")
	_, err = b.store.SetCollectionEnabled(b.ctx, src, also.ID, false)
	require.NoError(t, err)
	data := exportBackup(t, b, src)

	// The destination: "Kept" enabled for chanB with its own settings,
	// "Gone" (not in the backup) with settings.
	dk := b.collection(t, s, "Kept")
	_, err = b.store.SetCollectionChannels(b.ctx, s, dk.ID, []string{chanB})
	require.NoError(t, err)
	five := 5
	p5 := &five
	_, err = b.store.UpdateCollectionSettings(b.ctx, s, dk.ID, lore.BookSettingsPatch{ScanDepth: &p5})
	require.NoError(t, err)
	destAlso := b.collection(t, s, "Also")
	gone := b.collection(t, s, "Gone")
	_, err = b.store.SetCollectionEnabled(b.ctx, s, gone.ID, false)
	require.NoError(t, err)
	b.hand(t, s, lore.Serverwide, "Kept", "dest kept")
	b.hand(t, s, lore.Serverwide, "Gone", "dest gone")
	before := b.all(t, s)
	colsBefore, err := b.store.ListCollections(b.ctx, s)
	require.NoError(t, err)

	rep, err := transfer.ImportBackup(b.ctx, b.store, s, "backup.json", data, nil, "user:1")
	require.NoError(t, err)
	got, err := b.store.GetCollectionByName(b.ctx, s, "Kept")
	require.NoError(t, err)
	require.False(t, got.Enabled, "the backup's flag")
	require.Equal(t, []string{chanA}, got.ChannelIDs, "the backup's channels")
	_, err = b.store.GetCollectionByName(b.ctx, s, "Fresh")
	require.NoError(t, err)
	// A manager changes "Also" after the import: that choice stays.
	later, err := b.store.SetCollectionChannels(b.ctx, s, destAlso.ID, []string{chanB})
	require.NoError(t, err)
	require.False(t, later.Enabled, "the backup disabled it")

	u, err := transfer.Undo(b.ctx, b.store, s, rep.ImportID, "user:1")
	require.NoError(t, err)
	require.Equal(t, 1, u.Collections, "one kept collection's state put back")
	require.Equal(t, 1, u.CollectionsKept, "one changed since: kept")
	for i, c := range colsBefore {
		if c.Name == "Also" {
			colsBefore[i] = later // the manager's later state, not the one before the import
		}
	}
	require.Equal(t, entryIDs(before), entryIDs(b.all(t, s)))
	colsAfter, err := b.store.ListCollections(b.ctx, s)
	require.NoError(t, err)
	type state struct {
		Name     string
		Enabled  bool
		Channels []string
		Scan     *int
	}
	states := func(cs []lore.Collection) []state {
		out := make([]state, len(cs))
		for i, c := range cs {
			out[i] = state{c.Name, c.Enabled, c.ChannelIDs, c.Settings.ScanDepth}
		}
		slices.SortFunc(out, func(a, b state) int { return cmpString(a.Name, b.Name) })
		return out
	}
	require.Equal(t, states(colsBefore), states(colsAfter), "every collection as it was; Fresh removed")
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// exportBackup builds the All Personas bundle of server with the backup
// package (what the export job writes).
func exportBackup(t *testing.T, b *bundle, server string) []byte {
	t.Helper()
	sv, err := b.store.GetServer(b.ctx, server)
	require.NoError(t, err)
	cols, err := b.store.ListCollections(b.ctx, server)
	require.NoError(t, err)
	ps, err := b.store.ListPersonas(b.ctx, server)
	require.NoError(t, err)
	data, err := backup.Encode(backup.Build(sv, ps, cols, b.all(t, server), backup.BookData{}, time.Now()))
	require.NoError(t, err)
	return data
}
