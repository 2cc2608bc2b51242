package discord

import (
	"encoding/json"
	"flag"
	"fmt"
	"loregate/graph/model"
	"loregate/lore/i18n"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden renderings in testdata/golden")

// goldenPanels are the panel states the golden renderings cover, built
// without a database (render is pure).
func goldenPanels(t tr) map[string]*panel {
	entries := func(n int) []model.Entry {
		out := make([]model.Entry, n)
		for i := range out {
			out[i] = model.Entry{ID: strconv.Itoa(100 + i), Title: fmt.Sprintf("Entry %03d", i), Enabled: i%5 != 4,
				Keys: []string{fmt.Sprintf("key %d", i)}, Content: fmt.Sprintf("Content of entry %d.", i), Probability: 100, InsertionOrder: 100}
		}
		out[0].Constant, out[0].Keys = true, nil
		return out
	}
	books := func(n int) []model.Collection {
		out := make([]model.Collection, n)
		for i := range out {
			out[i] = model.Collection{ID: strconv.Itoa(10 + i), Name: fmt.Sprintf("Book %02d", i), Enabled: i != 1, EntryCount: i * 3}
		}
		out[0].ChannelIds = []string{chanA, chanB}
		return out
	}
	groups := []lineageGroup{{lineage: 7, personaID: 1, names: []string{"Aria", "Aria (alt)"}, entries: 3}, {lineage: 9, personaID: 2, names: []string{"Bram"}}}
	depth := 4
	entry := model.Entry{ID: "300", Title: "The Glade", Enabled: true, Keys: []string{"glade", "clearing"}, SecondaryKeys: []string{"night"},
		SelectiveLogic: model.SelectiveLogicNotAny, ScanDepth: &depth, Probability: 75, InsertionOrder: 50, Placement: model.PlacementBefore,
		ChannelIds: []string{chanA}, LegacyChannelTags: []string{"#old-woods"}, Content: "A quiet clearing where {{char}} rests."}
	long := entry
	long.Content = strings.Repeat("A very long entry. ", 300)

	base := func(p panel) *panel {
		p.t, p.guild = t, testGuild
		return &p
	}
	sw := func(view viewKind, manage bool) *panel {
		bs := books(2)
		p := base(panel{canManage: manage, books: bs, entries: entries(3), view: view, serverwideCount: 3})
		p.book = &p.books[0]
		p.channels = []string{chanA}
		return p
	}
	paged := base(panel{canManage: true, books: books(30), entries: entries(250), page: 0, entryPage: 1, serverwideCount: 250})
	paged.book = &paged.books[0]
	pe := base(panel{canManage: true, persona: true, lineage: 7, groups: groups, entries: entries(3)})
	four, yes := 4, true
	pe.bookSettings = model.BookSettings{ScanDepth: &four, Recursive: &yes}
	ev := base(panel{canManage: true, persona: true, lineage: 7, groups: groups, entries: []model.Entry{entry}, view: viewEntry})
	ev.entry = &ev.entries[0]
	ev.last = lastActivation{checked: true, at: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	el := base(panel{canManage: true, persona: true, lineage: 7, groups: groups, entries: []model.Entry{long}, view: viewEntry})
	el.entry = &el.entries[0]
	el.last = lastActivation{checked: true}
	ec := base(panel{canManage: true, persona: true, lineage: 7, groups: groups, entries: []model.Entry{entry}, view: viewConfirmEntry})
	ec.entry = &ec.entries[0]
	l7 := int64(7)
	l9 := int64(9)
	pv := &model.BackupPreview{PreviewID: "42"}
	pv.Scopes = []*model.ScopePreview{
		{LineageID: nil, Included: true, Incoming: 12, Current: 5},
		{LineageID: &l7, Included: true, Incoming: 4, Current: 3},
		{LineageID: &l9, Included: false, Incoming: 0, Current: 2},
	}
	pv.Memories.Total, pv.Memories.Converted = 3, 2
	pv.ServerSettings = model.BackupSettingsPreview{Included: true, Workbench: true, Skipped: []string{"semanticRanker", "proposalChannelId", "loreEditorRoleId"},
		SkippedReasons: []*model.BackupSettingSkip{{Setting: "semanticRanker", Reason: model.BackupSkipReasonKeepsLoreLocal},
			{Setting: "proposalChannelId", Reason: model.BackupSkipReasonOtherServer}, {Setting: "loreEditorRoleId", Reason: model.BackupSkipReasonOtherServer}}}
	pv.OtherServerChannels = model.BackupOtherChannels{Collections: 2, Entries: 5}
	withReceipt := sw(viewMain, true)
	withReceipt.receipt = []string{t.S("Imported into %s: %s added, %d skipped", "**Book 00**", t.N("%d entries", 3), 1)}
	states := map[string]*panel{
		"serverwide-empty":          base(panel{canManage: false}),
		"serverwide-book":           withReceipt,
		"serverwide-member":         sw(viewMain, false),
		"serverwide-channels":       sw(viewChannels, true),
		"serverwide-confirm-delete": sw(viewConfirmBook, true),
		"serverwide-paged":          paged,
		"persona":                   pe,
		"persona-none":              base(panel{canManage: true, persona: true}),
		"entry":                     ev,
		"entry-long":                el,
		"entry-confirm-delete":      ec,
		"settings-manager": base(panel{canManage: true, canSettings: true, view: viewSettings, settings: model.ServerSettings{ChannelScoping: true, BudgetUnit: model.BudgetUnitCharacters, BudgetLimit: 8000, Tokenizer: "o200k_base"},
			wb: workbench{on: true, noticeChannel: chanB, editorRole: "700000000000000001"}}),
		"settings-lore-editor": base(panel{canManage: true, view: viewSettings, settings: model.ServerSettings{BudgetUnit: model.BudgetUnitCharacters, BudgetLimit: 8000, Tokenizer: "o200k_base"}}),
		"settings-member":      base(panel{canManage: false, view: viewSettings, settings: model.ServerSettings{RegexKeys: true, BudgetUnit: model.BudgetUnitTokens, BudgetLimit: 2000, Tokenizer: "cl100k_base"}}),
		"backups":              base(panel{canManage: true, canSettings: true, view: viewBackups}),
		"backup-preview":       base(panel{canManage: true, view: viewBackupPreview, groups: groups, preview: pv}),
		"backup-failed":        base(panel{canManage: true, view: viewBackupPreview, preview: &model.BackupPreview{PreviewID: "42"}, previewFailed: true}),
		"backups-member":       base(panel{canManage: false, view: viewBackups}),
	}
	maps.Copy(states, historyGoldenPanels(t, groups))
	maps.Copy(states, workbenchGoldenPanels(t, groups))
	return states
}

// TestGoldenRenderings renders every panel state in each language, checks
// each against Discord's limits and compares it with its golden file
// (go test -run TestGoldenRenderings -update rewrites them).
func TestGoldenRenderings(t *testing.T) {
	b := &Bot{cat: newCatalog()}
	for _, locale := range []discordgo.Locale{discordgo.EnglishUS, discordgo.PortugueseBR, discordgo.SpanishES} {
		tr := b.translator(locale)
		tr.miss = func(key string) { t.Errorf("text missing from the message catalog: %q", key) }
		for name, p := range goldenPanels(tr) {
			t.Run(name+"."+string(locale), func(t *testing.T) {
				msg := v2Message{Flags: discordgo.MessageFlagsIsComponentsV2 | discordgo.MessageFlagsEphemeral, Components: render(p)}
				got, err := json.MarshalIndent(msg, "", "  ")
				require.NoError(t, err)
				require.Empty(t, payloadViolations(got, false), "the rendering breaks Discord's limits")
				path := filepath.Join("testdata", "golden", name+"."+string(locale)+".json")
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, append(got, '\n'), 0o644))
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "golden file missing: run go test ./discord -run TestGoldenRenderings -update")
				require.JSONEq(t, string(want), string(got))
			})
		}
	}
}

var verbs = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// TestCatalog: every message has a Portuguese text with the same verbs in
// the same order, no key twice, and locales map as documented.
func TestCatalog(t *testing.T) {
	seen := map[string]bool{}
	for _, x := range allTexts() {
		require.False(t, seen[x[0]], "duplicate key %q", x[0])
		seen[x[0]] = true
		require.NotEmpty(t, strings.TrimSpace(x[1]), "no translation for %q", x[0])
		require.Equal(t, verbs.FindAllString(x[0], -1), verbs.FindAllString(x[1], -1), "verbs of %q", x[0])
	}
	require.Empty(t, i18n.Missing(textSet()), "every text needs its Portuguese and its Spanish (i18n_es.go)")
	seenEs := map[string]bool{}
	for _, x := range allEs() {
		require.False(t, seenEs[x[0]], "duplicate Spanish key %q", x[0])
		seenEs[x[0]] = true
		require.Equal(t, verbs.FindAllString(x[0], -1), verbs.FindAllString(x[1], -1), "verbs of the Spanish %q", x[0])
	}
	b := &Bot{cat: newCatalog()}
	tests := []struct {
		locale discordgo.Locale
		key    string
		args   []any
		want   string
	}{
		{discordgo.PortugueseBR, "Serverwide", nil, "Todo o Servidor"},
		{"pt", "+ Import Lorebook", nil, "+ Importar Lorebook"},
		{discordgo.PortugueseBR, "Activation Rules", nil, "Regras de Ativação"},
		{discordgo.PortugueseBR, "Replace this lorebook", nil, "Substituir este lorebook"},
		{discordgo.EnglishUS, "%d entries", []any{1}, "1 entry"},
		{discordgo.EnglishGB, "%d entries", []any{3}, "3 entries"},
		{discordgo.PortugueseBR, "%d entries", []any{1}, "1 entrada"},
		{discordgo.PortugueseBR, "%d entries", []any{250}, "250 entradas"},
		{discordgo.SpanishES, "Serverwide", nil, "Todo el servidor"},
		{discordgo.SpanishLATAM, "Replace this lorebook", nil, "Reemplazar este lorebook"},
		{discordgo.SpanishLATAM, "%d entries", []any{1}, "1 entrada"},
		{discordgo.SpanishES, "%d entries", []any{7}, "7 entradas"},
		{discordgo.French, "Serverwide", nil, "Serverwide"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, b.translator(tc.locale).S(tc.key, tc.args...), "%s %q", tc.locale, tc.key)
	}
}

// TestCommandLocalizations: every command and option description has a
// Brazilian Portuguese and a Spanish (es-ES, es-419) localization; names
// stay as the guide writes them.
func TestCommandLocalizations(t *testing.T) {
	for _, c := range commandDefs() {
		require.NotNil(t, c.DescriptionLocalizations, c.Name)
		require.NotEmpty(t, (*c.DescriptionLocalizations)[discordgo.PortugueseBR], c.Name)
		require.NotEmpty(t, (*c.DescriptionLocalizations)[discordgo.SpanishES], c.Name)
		require.NotEmpty(t, (*c.DescriptionLocalizations)[discordgo.SpanishLATAM], c.Name)
		require.Nil(t, c.NameLocalizations, "command names are not translated")
		for _, o := range c.Options {
			require.NotEmpty(t, o.DescriptionLocalizations[discordgo.PortugueseBR], "%s %s", c.Name, o.Name)
			require.NotEmpty(t, o.DescriptionLocalizations[discordgo.SpanishES], "%s %s", c.Name, o.Name)
		}
	}
	require.Equal(t, CommandMemories, commandDefs()[0].Name)
}

// TestModalTextsFit: every form label fits Discord's 45 characters and
// every field description its 100, in both languages, so none is cut.
func TestModalTextsFit(t *testing.T) {
	labels := []string{
		"Name", "Name (optional)", "Title", "Content", "Keywords, comma-separated (blank = Always On)",
		"Channel ids (blank = every channel)", "Secondary keywords, comma-separated", "Secondary logic",
		"Scan depth, 1-100 (blank = default)", "Chance, 0-100 %%", "Insertion order (lower appears earlier)",
		"Lorebook file", "Character card", "Backup file", "Name of the new persona (optional)", "Import as",
		"Replace this lorebook", "Scan depth, 0-100 (blank = inherit)", "Budget in the server's unit (blank = inherit)",
		"Recursion: lore can activate lore", "Passes 0-10 (1 = none; blank = inherit)", "Keyword matching", "Unit",
		"Budget (0 = the unit's default)", "Tokenizer (token budgets)",
		"Why? A note for the lore keepers", "A note for the member (optional)", "Suggest an entry", "Suggest an edit", "Suggest deleting this entry",
		"New lorebook", "Rename lorebook", "Import Entries", "Import Lorebook", "Import a new lorebook", "Import Persona Card",
		"Import a workspace backup", "New entry", "Edit entry", "Activation Rules", "Lore budget",
	}
	descriptions := []string{
		"A workspace backup (All Personas). You see what it replaces before anything changes.",
		"Only the selected book; other books stay intact. Unticked, entries not already present are appended.",
	}
	b := &Bot{cat: newCatalog()}
	for _, locale := range []discordgo.Locale{discordgo.EnglishUS, discordgo.PortugueseBR, discordgo.SpanishES} {
		tr := b.translator(locale)
		tr.miss = func(key string) { t.Errorf("text missing from the message catalog: %q", key) }
		for _, k := range labels {
			require.LessOrEqual(t, len([]rune(tr.S(k))), maxLabelText, "%s label %q", locale, tr.S(k))
		}
		for _, k := range descriptions {
			require.LessOrEqual(t, len([]rune(tr.S(k))), maxLabelDesc, "%s description %q", locale, tr.S(k))
		}
		// The upload fields at the longest limits they can show.
		for _, u := range []uploadLimits{{json: 2_000_000, card: 16 << 20}, {json: 2<<20 - 1, card: 16<<20 - 1}} {
			for _, d := range []string{u.bookText(tr), u.cardText(tr)} {
				require.LessOrEqual(t, len([]rune(d)), maxLabelDesc, "%s description %q", locale, d)
			}
		}
	}
}
