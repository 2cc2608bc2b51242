package discord

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/stretchr/testify/require"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore/i18n"
)

// historyGoldenPanels are the import history states of the golden
// renderings: a list with every kind of record, a later page, the
// confirmation of an undo that created a persona, and an empty history.
func historyGoldenPanels(t tr, groups []lineageGroup) map[string]*panel {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	str := func(s string) *string { return &s }
	persona := int64(2)
	recs := []model.ImportRecord{
		{ID: "9", Kind: model.ImportKindUndo, Actor: "user:" + testUser, CreatedAt: at, SourceName: "undo of 8", LineageID: 7, Created: 3, Removed: 2, SnapshotKept: true, UndoOf: str("8")},
		{ID: "8", Kind: model.ImportKindFile, Actor: "user:" + testUser, CreatedAt: at.Add(-time.Hour), SourceName: "Aria.png", Mode: "replace", LineageID: 7, Created: 2, Removed: 3, SnapshotKept: true, UndoneBy: str("9")},
		{ID: "7", Kind: model.ImportKindFile, Actor: "user:" + testUser, CreatedAt: at.Add(-2 * time.Hour), SourceName: "Seraphina.png", Mode: "replace", LineageID: 8, Created: 4, SnapshotKept: true, CreatedPersonaID: &persona},
		{ID: "6", Kind: model.ImportKindBackup, Actor: "service:panel", CreatedAt: at.Add(-3 * time.Hour), SourceName: "backup.json", Mode: "replace", Created: 12, Removed: 5, SnapshotKept: true},
		{ID: "5", Kind: model.ImportKindMigration, Actor: "cli", CreatedAt: at.Add(-4 * time.Hour), SourceName: "memories.jsonl", Mode: "append", Created: 40, SnapshotKept: true},
		{ID: "4", Kind: model.ImportKindCollectionDelete, Actor: "user:" + testUser, CreatedAt: at.Add(-5 * time.Hour), SourceName: "Old *notes*", CollectionName: str("Old *notes*"), Removed: 6, SnapshotKept: true},
		{ID: "3", Kind: model.ImportKindScopeWipe, Actor: "service:admin", CreatedAt: at.Add(-6 * time.Hour), SourceName: "wipe", Removed: 30},
		{ID: "2", Kind: model.ImportKindFile, Actor: "user:" + testUser, CreatedAt: at.Add(-7 * time.Hour), SourceName: "Eorzea.json", Mode: "append", CollectionName: str("Lore"), Created: 29, SnapshotKept: true},
	}
	base := func(p panel) *panel {
		p.t, p.guild, p.canManage, p.groups = t, testGuild, true, groups
		return &p
	}
	confirm := base(panel{view: viewHistoryConfirm, history: &historyView{records: recs, undo: &recs[2]}})
	return map[string]*panel{
		"history":         base(panel{view: viewHistory, history: &historyView{records: recs, more: true}}),
		"history-page2":   base(panel{view: viewHistory, history: &historyView{page: 1, records: recs[6:]}}),
		"history-confirm": confirm,
		"history-empty":   base(panel{view: viewHistory, history: &historyView{}}),
	}
}

// history opens the import history as perms (through the Backups view's
// button for a manager).
func (h *harness) history(perms int64) wireData {
	h.t.Helper()
	p := h.clickID(perms, route{action: actBackups}.encode()).panel()
	btn := h.need(p, actHistory)
	if btn.Disabled {
		return h.clickID(perms, btn.CustomID).panel()
	}
	return h.click(perms, btn).panel()
}

// undoPick returns the record select's options.
func undoPick(h *harness, p wireData) []string {
	c, ok := p.find(actHistoryPick)
	if !ok {
		return nil
	}
	return optionValues(c)
}

// lastImportID is the newest history record's id.
func (h *harness) lastImportID() string {
	h.t.Helper()
	var out struct {
		ImportHistory struct {
			Edges []struct{ Node model.ImportRecord } `json:"edges"`
		} `json:"importHistory"`
	}
	h.op(client.OpImportHistory, map[string]any{"s": testGuild, "first": 1}, &out)
	require.NotEmpty(h.t, out.ImportHistory.Edges)
	return out.ImportHistory.Edges[0].Node.ID
}

// TestImportHistoryPanel: managers list the history from the Backups view
// (who, when, source, mode, target, counts), pick an import, see what the
// undo does, confirm it, and read what was restored and removed; a second
// undo, and one a later import blocks, are refused with the API's reason
// and change nothing; undoing a persona card import removes the persona
// it created; members see and undo nothing.
func TestImportHistoryPanel(t *testing.T) {
	h := newHarness(t)
	seedScopes(h) // Lore: 2 entries (one import); Aria (lineage 7): 2 entries (one import)

	t.Run("member refused", func(t *testing.T) {
		p := h.clickID(permMember, route{action: actBackups}.encode()).panel()
		require.True(t, h.need(p, actHistory).Disabled, "members cannot open the history")
		for id, want := range map[string]string{route{action: actHistory}.encode(): msgNeedHistory, route{action: actHistoryUndo, entry: 1}.encode(): msgNeedLoreWrite} {
			before := h.snapshot()
			o := h.clickID(permMember, id)
			require.Contains(t, o.content(), want)
			require.NotContains(t, o.content(), "**#", "no record is shown")
			require.Equal(t, before, h.snapshot())
		}
		o := h.clickID(permMember, route{action: actHistoryPick}.encode(), "1")
		require.Contains(t, o.content(), msgNeedHistory)
		h.locale = "pt-BR"
		defer func() { h.locale = "en-US" }()
		o = h.clickID(permMember, route{action: actHistory}.encode())
		require.Contains(t, o.content(), "O histórico de importações não é mostrado: "+strings.TrimPrefix(refusalTexts[i18n.ForbiddenLoreWrite]["pt-BR"], "Nada foi alterado: "))
	})

	// A manager replaces Aria's book with 3 entries from the panel's
	// import modal.
	pp := h.personaPanel(false)
	m := h.click(permManager, h.need(pp, actEntryPick), valueImport).modal()
	h.submitForm(permManager, m, nil, map[string][]string{fieldMode: {"true"}}, h.upload("aria-v2.json", worldInfoFrom(20, 3)))
	require.Len(t, h.scope(7, ""), 3)
	replaceID := h.lastImportID()

	p := h.history(permManager)
	text := p.text()
	require.Contains(t, text, "## Import history")
	require.Contains(t, text, fmt.Sprintf("**#%s** · <t:", replaceID))
	require.Contains(t, text, "<@"+testUser+"> · Import · `aria-v2.json` · replace → Aria · +3 / −2", "who, what, source, mode, target, counts")
	require.Contains(t, text, "append → Serverwide › Lore · +2 / −0")
	require.Equal(t, 3, len(undoPick(h, p)), "every record can be undone")

	t.Run("confirm, undo, then refused twice", func(t *testing.T) {
		c := h.click(permManager, h.need(p, actHistoryPick), replaceID).panel()
		require.Contains(t, c.text(), "Undo this? It removes the 3 entries it created (edited ones too) and restores the 2 entries it replaced or removed.")
		require.Len(t, h.scope(7, ""), 3, "nothing changes before the confirmation")
		undo := h.need(c, actHistoryUndo)
		cancel := h.need(c, actHistory)
		require.Contains(t, undoPick(h, h.click(permManager, cancel).panel()), replaceID, "Cancel goes back to the list")

		o := h.click(permManager, undo)
		require.Contains(t, o.content(), fmt.Sprintf("Undid import #%s: 2 entries restored, 3 entries removed.", replaceID))
		require.Len(t, h.scope(7, ""), 2)
		require.Equal(t, "Entry 000", h.scope(7, "")[0].Title, "the replaced book is back")
		require.Contains(t, o.content(), "undone by #")
		require.Contains(t, o.content(), "Undo of #"+replaceID)
		require.NotContains(t, undoPick(h, o.panel()), replaceID, "an undone import is no longer offered")

		before := h.snapshot()
		o = h.click(permManager, undo) // the stale confirmation button
		require.Contains(t, o.content(), "Not undone, nothing was changed: "+replaceID+" was already undone")
		require.Equal(t, before, h.snapshot())
		o = h.click(permManager, h.need(p, actHistoryPick), replaceID) // the stale list
		require.Contains(t, o.content(), "Import #"+replaceID+" can no longer be undone, so nothing was changed.")
	})

	t.Run("a later import blocks the undo", func(t *testing.T) {
		lore := h.books()[0].ID
		_, err := h.bot.importer.Import(context.Background(), importRequest{Principal: servicePrincipal(), Server: testGuild,
			Collection: lore, FileName: "first.json", Data: worldInfoFrom(40, 1)})
		require.NoError(t, err)
		first := h.lastImportID()
		_, err = h.bot.importer.Import(context.Background(), importRequest{Principal: servicePrincipal(), Server: testGuild,
			Collection: lore, Replace: true, FileName: "later.json", Data: worldInfoFrom(50, 2)})
		require.NoError(t, err)
		later := h.lastImportID()
		before := h.snapshot()
		c := h.click(permManager, h.need(h.history(permManager), actHistoryPick), first).panel()
		o := h.click(permManager, h.need(c, actHistoryUndo))
		require.Contains(t, o.content(), fmt.Sprintf("Not undone, nothing was changed: %s replaced or removed entries that %s created: undo %s first", later, first, later))
		require.Equal(t, before, h.snapshot())
	})

	t.Run("persona card import: the created persona goes", func(t *testing.T) {
		before := h.personas()
		card := h.click(permManager, h.need(h.clickID(permManager, route{action: actPersona}.encode()).panel(), actCardImport)).modal()
		o := h.submitForm(permManager, card, nil, nil, h.upload("nova.json", cardJSON("Nova", "one", "two")))
		require.Contains(t, o.content(), "Created the persona **Nova**")
		require.Len(t, h.personas(), len(before)+1)
		id := h.lastImportID()
		c := h.click(permManager, h.need(h.history(permManager), actHistoryPick), id).panel()
		require.Contains(t, c.text(), "The persona it created goes too, with its book")
		o = h.click(permManager, h.need(c, actHistoryUndo))
		require.Contains(t, o.content(), "The persona it created (id 2) was removed with its book.")
		require.Equal(t, before, h.personas())
	})

	t.Run("pages", func(t *testing.T) {
		for i := range 12 {
			_, err := h.bot.importer.Import(context.Background(), importRequest{Principal: servicePrincipal(), Server: testGuild,
				Lineage: 7, FileName: "more.json", Data: worldInfoFrom(100+i, 1)})
			require.NoError(t, err)
		}
		p := h.history(permManager)
		require.Len(t, undoPick(h, p), 10, "one page holds 10 records, all undoable here")
		older := h.need(p, actHistory)
		require.True(t, older.Disabled, "Newer is disabled on the first page")
		var next wireComponent
		for _, c := range p.all() {
			if rt, err := parseRoute(c.CustomID); err == nil && rt.action == actHistory && rt.page == 1 {
				next = c
			}
		}
		require.False(t, next.Disabled)
		p2 := h.click(permManager, next).panel()
		ids := undoPick(h, p2)
		require.NotEmpty(t, ids)
		first, _ := strconv.Atoi(undoPick(h, p)[9])
		for _, s := range ids {
			n, _ := strconv.Atoi(s)
			require.Less(t, n, first, "page 2 lists older records")
		}
		require.False(t, slices.Contains(ids, undoPick(h, p)[0]))
	})

	t.Run("Portuguese", func(t *testing.T) {
		h.locale = "pt-BR"
		defer func() { h.locale = "en-US" }()
		p := h.history(permManager)
		require.Contains(t, p.text(), "## Histórico de importações")
		require.Equal(t, "Escolha uma importação para desfazer", h.need(p, actHistoryPick).Placeholder)
	})
}

// TestUndoReceiptServerSettings: an undo's receipt says whether the
// server's settings a backup import replaced came back or stay as changed
// since, in each language.
func TestUndoReceiptServerSettings(t *testing.T) {
	b := &Bot{cat: newCatalog()}
	for _, tc := range []struct {
		name      string
		u         model.UndoImportPayload
		want, not string
		locale    discordgo.Locale
	}{
		{name: "put back", u: model.UndoImportPayload{ServerSettingsRestored: true}, locale: discordgo.EnglishUS,
			want: "The server settings the backup replaced were put back.", not: "keep their current state"},
		{name: "kept", u: model.UndoImportPayload{ServerSettingsKept: true}, locale: discordgo.EnglishUS,
			want: "Server settings changed since keep their current state.", not: "were put back"},
		{name: "none", u: model.UndoImportPayload{}, locale: discordgo.EnglishUS, not: "Server settings"},
		{name: "put back, pt-BR", u: model.UndoImportPayload{ServerSettingsRestored: true}, locale: discordgo.PortugueseBR,
			want: "As configurações do servidor que o backup substituiu foram restauradas."},
		{name: "kept, es-ES", u: model.UndoImportPayload{ServerSettingsKept: true}, locale: discordgo.SpanishES,
			want: "Los ajustes del servidor cambiados después conservan su estado actual."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := undoReceipt(b.translator(tc.locale), 5, &tc.u)
			if tc.want != "" {
				require.Contains(t, got, tc.want)
			}
			if tc.not != "" {
				require.NotContains(t, got, tc.not)
			}
		})
	}
}
