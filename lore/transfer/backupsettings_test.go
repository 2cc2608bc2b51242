package transfer_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/transfer"
)

func ptr[T any](v T) *T { return &v }

// settingsFixture is a server whose books have settings: collection World
// (scan depth 7, budget share 40%, case-sensitive, all entries by
// meaning), collection Lore (no recursion, whole words, a budget limit)
// and persona book 3 (scan depth 1, 3 recursion steps), each with an
// entry. It returns the settings it set, by book.
func (b *bundle) settingsFixture(t *testing.T, server string) map[string]lore.BookSettings {
	t.Helper()
	want := map[string]lore.BookSettings{
		"World": {ScanDepth: ptr(7), MaxBudgetShare: ptr(40), CaseSensitive: ptr(true), SemanticAllEntries: ptr(true)},
		"Lore":  {Recursive: ptr(false), WholeWords: ptr(true), BudgetLimit: ptr(900)},
		"":      {ScanDepth: ptr(1), MaxRecursionSteps: ptr(3)},
	}
	for _, name := range []string{"World", "Lore"} {
		b.collection(t, server, name)
		b.hand(t, server, lore.Serverwide, name, name+" one")
	}
	b.hand(t, server, 3, "", "persona one")
	for name, s := range want {
		b.setSettings(t, server, name, s)
	}
	return want
}

// setSettings stores s as the settings of collection name ("": persona
// book 3), every field (nil clears).
func (b *bundle) setSettings(t *testing.T, server, name string, s lore.BookSettings) {
	t.Helper()
	p := lore.BookSettingsPatch{ScanDepth: &s.ScanDepth, BudgetLimit: &s.BudgetLimit, MaxRecursionSteps: &s.MaxRecursionSteps,
		MaxBudgetShare: &s.MaxBudgetShare, Recursive: &s.Recursive, CaseSensitive: &s.CaseSensitive, WholeWords: &s.WholeWords,
		SemanticAllEntries: &s.SemanticAllEntries}
	if name == "" {
		_, err := b.store.UpdatePersonaBookSettings(b.ctx, server, 3, p)
		require.NoError(t, err)
		return
	}
	c, err := b.store.GetCollectionByName(b.ctx, server, name)
	require.NoError(t, err)
	_, err = b.store.UpdateCollectionSettings(b.ctx, server, c.ID, p)
	require.NoError(t, err)
}

// settingsOf returns the settings of collection name ("": persona book 3).
func (b *bundle) settingsOf(t *testing.T, server, name string) lore.BookSettings {
	t.Helper()
	if name == "" {
		s, err := b.store.PersonaBookSettings(b.ctx, server, 3)
		require.NoError(t, err)
		return s
	}
	c, err := b.store.GetCollectionByName(b.ctx, server, name)
	require.NoError(t, err)
	return c.Settings
}

// exportBackup is the workspace backup of server, through the export's
// own read (ReadWorkspace) and Build.
func (b *bundle) exportBackup(t *testing.T, server string) []byte {
	t.Helper()
	ws, err := b.store.ReadWorkspace(b.ctx, server)
	require.NoError(t, err)
	data, err := backup.Encode(backup.Build(ws.Server, ws.Personas, ws.Collections, ws.Entries, ws.Books(), time.Now()))
	require.NoError(t, err)
	return data
}

// editBackup decodes data as JSON, applies edit and encodes it again.
func editBackup(t *testing.T, data []byte, edit func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	edit(doc)
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

// books returns the persona buckets and serverwide_lorebooks of a decoded
// backup.
func books(doc map[string]any) []map[string]any {
	var out []map[string]any
	for _, key := range []string{"personas", "serverwide_lorebooks"} {
		list, _ := doc[key].([]any)
		for _, b := range list {
			out = append(out, b.(map[string]any))
		}
	}
	return out
}

// TestBackupCarriesBookSettings: a workspace backup carries every book's
// settings (docs/contract.md#backups). Restored after the settings were
// changed and a collection deleted, each book has its backed-up settings
// again, the re-created collection too; a backup without settings (one
// written before them) keeps the destination's; a settings object out of
// range or of the wrong type refuses the whole file, naming the book and
// field, with nothing written.
func TestBackupCarriesBookSettings(t *testing.T) {
	b := setup(t)
	changed := lore.BookSettings{ScanDepth: ptr(2), WholeWords: ptr(false)}
	for _, tc := range []struct {
		name string
		// edit changes the exported file (nil: as exported).
		edit func(doc map[string]any)
		// restored: the books get the backup's settings back; else they
		// keep the destination's (changed; the re-created Lore defaults).
		restored bool
		// field is the error's field for a refused file ("" accepted).
		field string
	}{
		{name: "round trip", restored: true},
		{name: "backup without settings", edit: func(doc map[string]any) {
			for _, bk := range books(doc) {
				delete(bk, "settings")
			}
		}},
		{name: "scan depth out of range", field: "personas[0].settings.scanDepth", edit: func(doc map[string]any) {
			books(doc)[0]["settings"].(map[string]any)["scanDepth"] = 101
		}},
		{name: "share out of range", field: "serverwide_lorebooks[1].settings.maxBudgetShare", edit: func(doc map[string]any) {
			books(doc)[2]["settings"].(map[string]any)["maxBudgetShare"] = 0
		}},
		{name: "share of the wrong type", field: "serverwide_lorebooks.settings.maxBudgetShare", edit: func(doc map[string]any) {
			books(doc)[2]["settings"].(map[string]any)["maxBudgetShare"] = "40%"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server := b.server(t)
			want := b.settingsFixture(t, server)
			data := b.exportBackup(t, server)
			if tc.edit != nil {
				data = editBackup(t, data, tc.edit)
			}
			// after the backup: every book's settings change, Lore is deleted.
			for _, name := range []string{"World", ""} {
				b.setSettings(t, server, name, changed)
			}
			lc, err := b.store.GetCollectionByName(b.ctx, server, "Lore")
			require.NoError(t, err)
			_, err = transfer.DeleteCollection(b.ctx, b.store, server, lc.ID, "user:1")
			require.NoError(t, err)
			entries, history := b.all(t, server), b.historyLen(t, server)

			_, err = transfer.ImportBackup(b.ctx, b.store, server, "backup.json", data, nil, "user:1")
			if tc.field != "" {
				require.ErrorIs(t, err, lore.ErrInvalid)
				require.Contains(t, err.Error(), tc.field)
				require.Equal(t, entries, b.all(t, server), "nothing written")
				require.Equal(t, history, b.historyLen(t, server), "nothing recorded")
				for _, name := range []string{"World", ""} {
					require.True(t, changed.Equal(b.settingsOf(t, server, name)), "book %q keeps its settings", name)
				}
				return
			}
			require.NoError(t, err)
			for name, w := range want {
				if !tc.restored {
					w = changed
					if name == "Lore" {
						w = lore.BookSettings{} // re-created with defaults
					}
				}
				got := b.settingsOf(t, server, name)
				require.True(t, w.Equal(got), "book %q: want %+v, got %+v", name, w, got)
			}
		})
	}
}

// TestBackupSettingsUndo: undoing a backup import puts back the settings
// of the collection and the persona book it changed, unless they were
// changed again since (bookSettingsKept).
func TestBackupSettingsUndo(t *testing.T) {
	b := setup(t)
	changed, later := lore.BookSettings{ScanDepth: ptr(2)}, lore.BookSettings{ScanDepth: ptr(4)}
	for _, tc := range []struct {
		name string
		// since changes the persona book after the import.
		since bool
	}{{name: "unchanged since"}, {name: "persona book changed since", since: true}} {
		t.Run(tc.name, func(t *testing.T) {
			server := b.server(t)
			want := b.settingsFixture(t, server)
			data := b.exportBackup(t, server)
			for _, name := range []string{"World", ""} {
				b.setSettings(t, server, name, changed)
			}
			rep, err := transfer.ImportBackup(b.ctx, b.store, server, "backup.json", data, nil, "user:1")
			require.NoError(t, err)
			for _, name := range []string{"World", ""} {
				require.True(t, want[name].Equal(b.settingsOf(t, server, name)), "book %q restored by the import", name)
			}
			if tc.since {
				b.setSettings(t, server, "", later)
			}
			u, err := transfer.Undo(b.ctx, b.store, server, rep.ImportID, "user:1")
			require.NoError(t, err)
			require.True(t, changed.Equal(b.settingsOf(t, server, "World")), "the undo puts the collection's settings back")
			persona := changed
			if tc.since {
				persona = later
			}
			require.Equal(t, tc.since, u.BookSettingsKept)
			require.True(t, persona.Equal(b.settingsOf(t, server, "")), "persona book: want %+v", persona)
		})
	}
}
