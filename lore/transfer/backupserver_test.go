package transfer_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/transfer"
)

// The Discord ids of the server settings fixtures.
const (
	backupChannel = "300000000000000001"
	backupRole    = "300000000000000002"
	otherChannel  = "300000000000000003"
	otherRole     = "300000000000000004"
)

// serverFixture gives server settings unlike the defaults in every field
// (a token budget with cl100k_base, regex keys on, channel scoping and
// memory tagging off, the lexical ranker, the selection controls) and
// workbench settings (proposals off, a proposal channel and a lore
// editor role), plus a collection Lore with a book budget and an entry.
// It returns both as stored.
func (b *bundle) serverFixture(t *testing.T, server string) (lore.ServerSettings, lore.WorkbenchSettings) {
	t.Helper()
	set := lore.ServerSettings{ChannelScoping: false, MemoryTagging: false, RegexKeys: true, BudgetUnit: lore.BudgetTokens,
		BudgetLimit: 3000, Tokenizer: lore.TokenizerCL100k,
		Semantic:  lore.SemanticSettings{Ranker: lore.RankerLexical, AllEntries: true, Threshold: ptr(0.4), QueryMessages: ptr(3)},
		Selection: lore.Selection{MinActivations: 3, MinActivationsDepthMax: 20, MaxEntries: 7, IncludeNames: true}}
	sv, err := b.store.UpdateServerSettings(b.ctx, server, set)
	require.NoError(t, err)
	w, err := b.store.UpdateWorkbenchSettings(b.ctx, server, lore.WorkbenchSettingsPatch{ProposalsEnabled: ptr(false),
		ProposalChannelID: ptr(backupChannel), LoreEditorRoleID: ptr(backupRole)})
	require.NoError(t, err)
	b.collection(t, server, "Lore")
	b.hand(t, server, lore.Serverwide, "Lore", "lore one")
	b.setSettings(t, server, "Lore", lore.BookSettings{BudgetLimit: ptr(900)})
	return sv.Settings, w
}

// changeServer gives server the default settings and other workbench ids
// (proposals on), as a server looks after the backup was written.
func (b *bundle) changeServer(t *testing.T, server string) (lore.ServerSettings, lore.WorkbenchSettings) {
	t.Helper()
	sv, err := b.store.UpdateServerSettings(b.ctx, server, lore.DefaultServerSettings())
	require.NoError(t, err)
	w, err := b.store.UpdateWorkbenchSettings(b.ctx, server, lore.WorkbenchSettingsPatch{ProposalsEnabled: ptr(true),
		ProposalChannelID: ptr(otherChannel), LoreEditorRoleID: ptr(otherRole)})
	require.NoError(t, err)
	return sv.Settings, w
}

// serverState reads server's settings and workbench settings.
func (b *bundle) serverState(t *testing.T, server string) (lore.ServerSettings, lore.WorkbenchSettings) {
	t.Helper()
	sv, err := b.store.GetServer(b.ctx, server)
	require.NoError(t, err)
	w, err := b.store.GetWorkbenchSettings(b.ctx, server)
	require.NoError(t, err)
	return sv.Settings, w
}

// serverPart returns the "server" object of a decoded backup.
func serverPart(doc map[string]any) map[string]any { return doc["server"].(map[string]any) }

// TestBackupCarriesServerSettings: a workspace backup carries the server's
// settings and workbench settings (docs/contract.md#backups). Restored
// onto the same server after they changed, both come back, Discord ids
// included; onto another server the settings come and the proposal
// channel and lore editor role (ids of the source server) are skipped
// and named in the report; a backup written before settings were carried
// restores as before, keeping the destination's; settings out of range,
// and a book budget out of the range of the backup's own budget unit,
// refuse the whole file with nothing written.
func TestBackupCarriesServerSettings(t *testing.T) {
	b := setup(t)
	for _, tc := range []struct {
		name string
		// other: import into another server than the exported one.
		other bool
		// edit changes the exported file (nil: as exported).
		edit func(doc map[string]any)
		// settings, ids: the destination gets the backup's settings, and
		// its proposal channel and lore editor role; else it keeps its own.
		settings, ids bool
		// field is the error's field for a refused file ("" accepted).
		field string
	}{
		{name: "same server", settings: true, ids: true},
		{name: "another server", other: true, settings: true},
		{name: "backup written before server settings", edit: func(doc map[string]any) {
			delete(serverPart(doc), "settings")
			delete(serverPart(doc), "workbench")
		}},
		{name: "budget limit out of range", field: "server.settings.budgetLimit", edit: func(doc map[string]any) {
			serverPart(doc)["settings"].(map[string]any)["budgetLimit"] = 50 // tokens: 100-32000
		}},
		{name: "unknown tokenizer", field: "server.settings.tokenizer", edit: func(doc map[string]any) {
			serverPart(doc)["settings"].(map[string]any)["tokenizer"] = "gpt2"
		}},
		{name: "role id not a snowflake", field: "server.workbench.loreEditorRoleId", edit: func(doc map[string]any) {
			serverPart(doc)["workbench"].(map[string]any)["loreEditorRoleId"] = "editors"
		}},
		{name: "book budget checked in the backup's unit", field: "serverwide_lorebooks[0].settings.budgetLimit", edit: func(doc map[string]any) {
			// 50 is a valid character budget (the destination's unit
			// after the change) but not a token budget (the backup's).
			books(doc)[0]["settings"].(map[string]any)["budgetLimit"] = 50
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			source := b.server(t)
			wantSet, wantWB := b.serverFixture(t, source)
			data := b.exportBackup(t, source)
			if tc.edit != nil {
				data = editBackup(t, data, tc.edit)
			}
			dest := source
			if tc.other {
				dest = b.server(t)
			}
			changedSet, changedWB := b.changeServer(t, dest)
			entries, history := b.all(t, dest), b.historyLen(t, dest)

			rep, err := transfer.ImportBackup(b.ctx, b.store, dest, "backup.json", data, nil, "user:1")
			gotSet, gotWB := b.serverState(t, dest)
			if tc.field != "" {
				require.ErrorIs(t, err, lore.ErrInvalid)
				require.Contains(t, err.Error(), tc.field)
				require.Equal(t, entries, b.all(t, dest), "nothing written")
				require.Equal(t, history, b.historyLen(t, dest), "nothing recorded")
				require.True(t, changedSet.Equal(gotSet), "settings kept: %+v", gotSet)
				require.True(t, changedWB.Same(gotWB), "workbench kept: %+v", gotWB)
				return
			}
			require.NoError(t, err)
			sp := rep.ServerSettings
			require.Equal(t, tc.settings, sp.Included, "report: included")
			require.Equal(t, tc.settings, sp.Changed, "report: changed")
			require.Equal(t, !tc.other, sp.SameServer, "report: same server")
			if !tc.settings {
				require.True(t, changedSet.Equal(gotSet), "settings kept: %+v", gotSet)
				require.True(t, changedWB.Same(gotWB), "workbench kept: %+v", gotWB)
				require.Empty(t, sp.Skipped)
				return
			}
			require.True(t, wantSet.Equal(gotSet), "settings restored: want %+v, got %+v", wantSet, gotSet)
			require.Equal(t, wantWB.ProposalsEnabled, gotWB.ProposalsEnabled, "the proposals switch is restored onto any server")
			if tc.ids {
				require.Equal(t, backupChannel, gotWB.ProposalChannelID)
				require.Equal(t, backupRole, gotWB.LoreEditorRoleID)
				require.Empty(t, sp.Skipped)
			} else {
				require.Equal(t, otherChannel, gotWB.ProposalChannelID, "another server keeps its channel")
				require.Equal(t, otherRole, gotWB.LoreEditorRoleID, "another server keeps its role")
				require.Equal(t, []string{"proposalChannelId", "loreEditorRoleId"}, sp.Skipped)
				require.Equal(t, backup.SkippedOtherServer, sp.SkippedReason)
			}
			require.True(t, lore.BookSettings{BudgetLimit: ptr(900)}.Equal(b.settingsOf(t, dest, "Lore")), "the book's token budget")
			// The stored job report says it too.
			raw, err := json.Marshal(rep)
			require.NoError(t, err)
			require.Contains(t, string(raw), `"server_settings":{"included":true,"workbench":true`)
		})
	}
}

// TestBackupServerSettingsUndo: undoing a backup import puts back the
// server's settings and workbench settings it replaced, unless they were
// changed again since (ServerSettingsKept).
func TestBackupServerSettingsUndo(t *testing.T) {
	b := setup(t)
	for _, tc := range []struct {
		name string
		// since changes the settings after the import.
		since bool
	}{{name: "unchanged since"}, {name: "changed since", since: true}} {
		t.Run(tc.name, func(t *testing.T) {
			server := b.server(t)
			wantSet, _ := b.serverFixture(t, server)
			data := b.exportBackup(t, server)
			changedSet, changedWB := b.changeServer(t, server)
			rep, err := transfer.ImportBackup(b.ctx, b.store, server, "backup.json", data, nil, "user:1")
			require.NoError(t, err)
			gotSet, _ := b.serverState(t, server)
			require.True(t, wantSet.Equal(gotSet), "restored by the import")
			later := gotSet
			if tc.since {
				later.RegexKeys = false
				_, err := b.store.UpdateServerSettings(b.ctx, server, later)
				require.NoError(t, err)
			}
			u, err := transfer.Undo(b.ctx, b.store, server, rep.ImportID, "user:1")
			require.NoError(t, err)
			require.Equal(t, tc.since, u.ServerSettingsKept, "kept")
			require.True(t, u.ServerSettings, "the workbench settings come back in both cases")
			gotSet, gotWB := b.serverState(t, server)
			require.True(t, changedWB.Same(gotWB), "workbench put back: %+v", gotWB)
			if tc.since {
				require.True(t, later.Equal(gotSet), "settings changed since stay")
			} else {
				require.True(t, changedSet.Equal(gotSet), "settings put back: %+v", gotSet)
			}
		})
	}
}

// byActivationOrder returns the titles of es in the order the engine
// admits entries of equal insertion order: by id.
func byActivationOrder(es []lore.Entry) []string {
	es = slices.Clone(es)
	slices.SortFunc(es, func(a, b lore.Entry) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return int(a.ID - b.ID)
	})
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Title
	}
	return out
}

// TestBackupRenumbersInOrder: a restored backup gives its entries new ids
// (docs/contract.md#backups) in the source's id order within each scope,
// so entries of equal insertion order in different collections keep the
// order the engine admits them in (ties by id); each entry is filed under
// its category again. A backup without entry ids (written before them)
// restores in the file's order.
func TestBackupRenumbersInOrder(t *testing.T) {
	b := setup(t)
	for _, tc := range []struct {
		name string
		edit func(doc map[string]any)
		// want is the Serverwide order after the restore.
		want []string
	}{
		{name: "ids kept in order", want: []string{"hand Zeta first", "hand Alpha second", "hand Zeta third"}},
		{name: "backup without entry ids", edit: func(doc map[string]any) {
			for _, e := range doc["serverwide_lorebook_entries"].([]any) {
				delete(e.(map[string]any), "id")
			}
		}, want: []string{"hand Alpha second", "hand Zeta first", "hand Zeta third"}}, // by collection name
	} {
		t.Run(tc.name, func(t *testing.T) {
			server := b.server(t)
			b.collection(t, server, "Zeta")
			b.collection(t, server, "Alpha")
			b.hand(t, server, lore.Serverwide, "Zeta", "Zeta first")
			b.hand(t, server, lore.Serverwide, "Alpha", "Alpha second")
			b.hand(t, server, lore.Serverwide, "Zeta", "Zeta third")
			b.hand(t, server, 3, "", "persona first", "persona second")
			before := b.all(t, server)
			sw := func(es []lore.Entry) (out []lore.Entry) {
				for _, e := range es {
					if e.Lineage.IsServerwide() {
						out = append(out, e)
					}
				}
				return out
			}
			require.Equal(t, []string{"hand Zeta first", "hand Alpha second", "hand Zeta third"}, byActivationOrder(sw(before)))
			data := b.exportBackup(t, server)
			if tc.edit != nil {
				data = editBackup(t, data, tc.edit)
			}
			_, err := transfer.ImportBackup(b.ctx, b.store, server, "backup.json", data, nil, "user:1")
			require.NoError(t, err)
			after := b.all(t, server)
			require.Len(t, after, len(before))
			old := map[int64]bool{}
			for _, e := range before {
				old[e.ID] = true
			}
			for _, e := range after {
				require.False(t, old[e.ID], "entry %q has a new id", e.Title)
			}
			require.Equal(t, tc.want, byActivationOrder(sw(after)))
			persona := func(es []lore.Entry) (out []lore.Entry) {
				for _, e := range es {
					if !e.Lineage.IsServerwide() {
						out = append(out, e)
					}
				}
				return out
			}
			require.Equal(t, []string{"hand persona first", "hand persona second"}, byActivationOrder(persona(after)))
		})
	}
}

// TestBackupKeepsLocalRanker: a restore never widens where lore goes
// (docs/contract.md#backups). A destination whose semantic ranker never
// sends lore out (LEXICAL, OFF) keeps it when the backup's would (AUTO,
// EMBEDDINGS): the preview and the import's report name semanticRanker
// with its reason, every other setting is restored, and an undo puts the
// destination's settings back. A ranker that narrows or keeps lore local
// is restored as before.
func TestBackupKeepsLocalRanker(t *testing.T) {
	b := setup(t)
	for _, tc := range []struct {
		name       string
		from, dest lore.SemanticRanker
		other      bool
		// kept: the destination keeps its ranker (skipped).
		kept bool
	}{
		{name: "lexical keeps its ranker against auto", from: lore.RankerAuto, dest: lore.RankerLexical, kept: true},
		{name: "off keeps its ranker against embeddings", from: lore.RankerEmbeddings, dest: lore.RankerOff, kept: true},
		{name: "another server, off against auto", from: lore.RankerAuto, dest: lore.RankerOff, other: true, kept: true},
		{name: "auto takes lexical", from: lore.RankerLexical, dest: lore.RankerAuto},
		{name: "lexical takes off", from: lore.RankerOff, dest: lore.RankerLexical},
		{name: "embeddings takes auto", from: lore.RankerAuto, dest: lore.RankerEmbeddings},
	} {
		t.Run(tc.name, func(t *testing.T) {
			source := b.server(t)
			wantSet, _ := b.serverFixture(t, source)
			wantSet.Semantic.Ranker = tc.from
			_, err := b.store.UpdateServerSettings(b.ctx, source, wantSet)
			require.NoError(t, err)
			data := b.exportBackup(t, source)
			dest := source
			if tc.other {
				dest = b.server(t)
			}
			changedSet, _ := b.changeServer(t, dest)
			changedSet.Semantic.Ranker = tc.dest
			_, err = b.store.UpdateServerSettings(b.ctx, dest, changedSet)
			require.NoError(t, err)

			want := []string(nil)
			if tc.kept {
				want = append(want, "semanticRanker")
				wantSet.Semantic.Ranker = tc.dest
			}
			if tc.other {
				want = append(want, "proposalChannelId", "loreEditorRoleId")
			}
			plan, err := transfer.PlanBackup(b.ctx, b.store, dest, data, nil)
			require.NoError(t, err)
			require.Equal(t, want, plan.Settings.Skipped, "the preview names it")
			rep, err := transfer.ImportBackup(b.ctx, b.store, dest, "backup.json", data, nil, "user:1")
			require.NoError(t, err)
			require.Equal(t, want, rep.ServerSettings.Skipped, "the report names it")
			require.Equal(t, tc.kept, slices.Contains(rep.ServerSettings.SkippedReasons,
				backup.SkippedSetting{Setting: "semanticRanker", Reason: backup.SkipKeepsLoreLocal}))
			require.Equal(t, tc.kept, strings.Contains(rep.ServerSettings.SkippedReason, backup.SkippedKeepsLoreLocal))
			gotSet, _ := b.serverState(t, dest)
			require.True(t, wantSet.Equal(gotSet), "want %+v, got %+v", wantSet, gotSet)
			require.Equal(t, wantSet.Semantic.Ranker.OrAuto(), gotSet.Semantic.Ranker.OrAuto())

			u, err := transfer.Undo(b.ctx, b.store, dest, rep.ImportID, "user:1")
			require.NoError(t, err)
			require.False(t, u.ServerSettingsKept)
			gotSet, _ = b.serverState(t, dest)
			require.True(t, changedSet.Equal(gotSet), "undo puts the destination's settings back: %+v", gotSet)
		})
	}
}

// TestBackupReportsOtherServerChannels: restored onto another server, the
// channel lists of collections and persona entries name the source
// server's channels; the import keeps them as they are and the preview
// and the report count them (docs/contract.md#backups); onto the same
// server it counts nothing.
func TestBackupReportsOtherServerChannels(t *testing.T) {
	b := setup(t)
	for _, tc := range []struct {
		name  string
		other bool
		want  backup.OtherChannels
	}{
		{name: "same server"},
		{name: "another server", other: true, want: backup.OtherChannels{Collections: 1, Entries: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			source := b.server(t)
			tavern := b.collection(t, source, "Tavern")
			_, err := b.store.SetCollectionChannels(b.ctx, source, tavern.ID, []string{backupChannel})
			require.NoError(t, err)
			b.collection(t, source, "World")
			b.hand(t, source, lore.Serverwide, "Tavern", "ale")
			b.hand(t, source, lore.Serverwide, "World", "sky")
			sword := b.hand(t, source, 7, "", "sword")[0]
			_, err = b.store.UpdateEntry(b.ctx, source, 7, sword.ID, lore.EntryPatch{ChannelIDs: &[]string{otherChannel}})
			require.NoError(t, err)
			b.hand(t, source, 7, "", "shield")
			data := b.exportBackup(t, source)
			dest := source
			if tc.other {
				dest = b.server(t)
			}
			plan, err := transfer.PlanBackup(b.ctx, b.store, dest, data, nil)
			require.NoError(t, err)
			require.Equal(t, tc.want, plan.OtherServerChannels, "the preview")
			rep, err := transfer.ImportBackup(b.ctx, b.store, dest, "backup.json", data, nil, "user:1")
			require.NoError(t, err)
			require.Equal(t, tc.want, rep.OtherServerChannels, "the report")
			raw, err := json.Marshal(rep)
			require.NoError(t, err)
			require.Contains(t, string(raw), `"other_server_channels":{"collections":`)
			// Kept as they are.
			got, err := b.store.GetCollectionByName(b.ctx, dest, "Tavern")
			require.NoError(t, err)
			require.Equal(t, []string{backupChannel}, got.ChannelIDs)
			var channels [][]string
			for _, e := range b.all(t, dest) {
				if e.Lineage == 7 {
					channels = append(channels, e.ChannelIDs)
				}
			}
			require.ElementsMatch(t, [][]string{{otherChannel}, nil}, channels)
		})
	}
}

// TestBackupInvalidEntryNamesFilePosition: a refused backup import names
// an invalid entry by its position in the file's scope
// (scopes[i].entries[j]), not by its position after the import's
// ordering by source id: here the file lists a scope's entries in
// descending id order, so the sort moves the bad first entry to the end.
// Without ids the file's order is kept and the position is the same.
func TestBackupInvalidEntryNamesFilePosition(t *testing.T) {
	b := setup(t)
	server := b.server(t)
	b.hand(t, server, lore.Serverwide, "", "sw one", "sw two", "sw three")
	b.hand(t, server, 3, "", "persona one", "persona two", "persona three")
	data := b.exportBackup(t, server)
	// edit gives the scope's file entries the ids (none: no ids) and
	// makes the one at file position bad invalid.
	edit := func(entries func(doc map[string]any) []any, ids []float64, bad int) func(doc map[string]any) {
		return func(doc map[string]any) {
			es := entries(doc)
			require.Len(t, es, 3)
			for i, e := range es {
				m := e.(map[string]any)
				delete(m, "id")
				if ids != nil {
					m["id"] = ids[i]
				}
				if i == bad {
					m["probability"] = 500
				}
			}
		}
	}
	serverwide := func(doc map[string]any) []any { return doc["serverwide_lorebook_entries"].([]any) }
	persona := func(doc map[string]any) []any {
		for _, p := range doc["personas"].([]any) {
			if es, ok := p.(map[string]any)["lorebook_entries"].([]any); ok && len(es) > 0 {
				return es
			}
		}
		t.Fatal("no persona book in the backup")
		return nil
	}
	for _, tc := range []struct {
		name      string
		entries   func(doc map[string]any) []any
		ids       []float64
		bad       int
		want, not string
	}{
		{name: "serverwide, moved to the end by the sort", entries: serverwide, ids: []float64{30, 20, 10}, bad: 0,
			want: ".entries[0].probability", not: ".entries[2]"},
		{name: "serverwide, moved to the start by the sort", entries: serverwide, ids: []float64{30, 20, 10}, bad: 2,
			want: ".entries[2].probability", not: ".entries[0]"},
		{name: "persona book, moved by the sort", entries: persona, ids: []float64{5, 9, 1}, bad: 1,
			want: ".entries[1].probability", not: ".entries[2]"},
		{name: "no ids: the file's order", entries: serverwide, bad: 0, want: ".entries[0].probability", not: ".entries[2]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := b.all(t, server)
			_, err := transfer.ImportBackup(b.ctx, b.store, server, "backup.json", editBackup(t, data, edit(tc.entries, tc.ids, tc.bad)), nil, "user:1")
			require.ErrorIs(t, err, lore.ErrInvalid)
			require.Contains(t, err.Error(), tc.want)
			require.NotContains(t, err.Error(), tc.not)
			require.Equal(t, before, b.all(t, server), "nothing written")
		})
	}
}
