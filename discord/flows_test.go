package discord

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
	"loregate/lore/postgres/postgrestest"
)

// cardJSON is a V2 character card whose book holds entries with the given
// contents.
func cardJSON(name string, contents ...string) []byte {
	var entries []map[string]any
	for i, c := range contents {
		entries = append(entries, map[string]any{"keys": []string{fmt.Sprintf("k%d", i)}, "content": c, "enabled": true,
			"insertion_order": i, "name": fmt.Sprintf("E%d", i), "extensions": map[string]any{}})
	}
	b, _ := json.Marshal(map[string]any{"spec": "chara_card_v2", "spec_version": "2.0", "data": map[string]any{
		"name": name, "description": "d", "personality": "", "scenario": "", "first_mes": "hi", "mes_example": "",
		"character_book": map[string]any{"name": name + " book", "entries": entries, "extensions": map[string]any{}},
	}})
	return b
}

func (h *harness) personas() []model.Persona {
	h.t.Helper()
	var out struct {
		Server struct {
			Personas []model.Persona `json:"personas"`
		} `json:"server"`
	}
	h.gql(`query($s: String!) { server(discordId: $s) { personas { id lineageId name removed } } }`, map[string]any{"s": testGuild}, &out)
	return out.Server.Personas
}

// TestPersonaCardImport: Import Persona Card creates an alter (next free
// id, new lineage, the card's book as its lorebook) shown with its book;
// a forced lore failure leaves no persona; Replace writes into the
// selected persona's book.
func TestPersonaCardImport(t *testing.T) {
	h := newHarness(t)
	seedScopes(h) // persona 1 on lineage 7 with 2 entries
	openCard := func(perms int64) wireData {
		p := h.clickID(perms, route{action: actPersona}.encode()).panel()
		return h.click(perms, h.need(p, actCardImport)).modal()
	}
	m := openCard(permManager)
	require.Equal(t, []string{fieldFile, fieldName, fieldMode}, fieldIDs(m))

	seraphina := corpusFile(t, "png/sillytavern__default_Seraphina.png")
	p := h.submitForm(permManager, m, nil, nil, h.upload("Seraphina.png", seraphina)).panel()
	require.Contains(t, p.text(), "Created the persona **Seraphina** (id 2, lineage 8)")
	require.Contains(t, p.text(), "Imported into **Seraphina**: 4 entries added")
	picker := h.need(p, actPersonaPick)
	require.True(t, picker.Options[1].Default, "the new persona is selected")
	require.Equal(t, "8", picker.Options[1].Value)
	require.Len(t, h.scope(8, ""), 4)

	t.Run("forced lore failure leaves no persona", func(t *testing.T) {
		postgrestest.FailEntryInserts(t, h.pool, "this entry cannot be stored")
		before := h.personas()
		o := h.submitForm(permManager, openCard(permManager), nil, nil, h.upload("bad.json", cardJSON("Bad", "fine", "this entry cannot be stored")))
		require.Contains(t, o.content(), "Not saved: ")
		require.Contains(t, o.content(), "rejected by the database") // rejected_by_database in the member's language
		require.Equal(t, before, h.personas(), "the new persona was removed with the failed lore")
		require.Len(t, h.scope(7, ""), 2)
	})
	t.Run("replace the selected persona's book", func(t *testing.T) {
		o := h.submitForm(permManager, openCard(permManager), nil, map[string][]string{fieldMode: {valueReplace}}, h.upload("c.json", cardJSON("Aria II", "one")))
		require.Contains(t, o.content(), "Replaced the book of **Aria**")
		require.Contains(t, o.content(), "1 entry added, 0 skipped, 2 replaced")
		require.Len(t, h.scope(7, ""), 1)
		require.Len(t, h.personas(), 2, "no new persona")
	})
	t.Run("member refused", func(t *testing.T) {
		before := h.personas()
		o := h.submitForm(permMember, m, nil, nil, h.upload("c.json", cardJSON("Nope", "x")))
		require.Contains(t, o.content(), msgNeedLoreWrite)
		require.Equal(t, before, h.personas())
	})
}

// TestSettingsControls flips every server setting as a manager, and checks
// that a member and an outsider (a DM, no server) change nothing.
func TestSettingsControls(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	settings := func() model.ServerSettings {
		var out struct {
			Server struct {
				Settings model.ServerSettings `json:"settings"`
			} `json:"server"`
		}
		h.gql(`query($s: String!) { server(discordId: $s) { settings { channelScoping memoryTagging regexKeys } } }`, map[string]any{"s": testGuild}, &out)
		return out.Server.Settings
	}
	start := settings()
	require.False(t, start.RegexKeys, "regex keys are off for new servers")

	p := h.clickID(permMember, route{action: actSettings}.encode()).panel()
	require.Contains(t, p.text(), "Only members with the Manage Server permission can change settings.")
	require.Contains(t, p.text(), "every key is literal text")
	p = h.clickID(permManager, route{action: actSettings}.encode()).panel()
	require.NotContains(t, p.text(), "Only members with the Manage Server permission")

	tests := []struct {
		which int64
		name  string
		get   func(model.ServerSettings) bool
		on    string
	}{
		{settingRegexKeys, "Regex keys", func(s model.ServerSettings) bool { return s.RegexKeys }, "act as regular expressions"},
		{settingChannelScoping, "Channel scoping", func(s model.ServerSettings) bool { return s.ChannelScoping }, "appear only in their channels"},
		{settingMemoryTagging, "Memory tagging", func(s model.ServerSettings) bool { return s.MemoryTagging }, "convert to keyword entries"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := route{action: actSetToggle, entry: tc.which}.encode()
			before := tc.get(settings())

			o := h.clickID(permMember, id)
			require.Contains(t, o.content(), msgNeedSettings)
			require.Equal(t, before, tc.get(settings()), "member: unchanged")

			o = h.run("dm_component.json", 0, map[string]string{"{{CUSTOM_ID}}": jsonString(id)})
			require.Contains(t, o.content(), "use `/memories` in a server")
			require.Equal(t, before, tc.get(settings()), "outsider: unchanged")

			btn := h.need(h.clickID(permManager, route{action: actSettings}.encode()).panel(), actSetToggle)
			require.False(t, btn.Disabled)
			o = h.clickID(permManager, id)
			require.Equal(t, !before, tc.get(settings()), "manager: flipped")
			state := "Off"
			if !before {
				state = "On"
				require.Contains(t, o.content(), tc.on, "the view explains what the new state does")
			}
			require.Contains(t, o.content(), tc.name+" is now "+state+".")
		})
	}
}

// TestBackups: the workspace export arrives as an attachment; its import
// shows the per-scope replacement preview before Confirm; a failed import
// keeps the upload for Try again; a persona's book exports as world info.
func TestBackups(t *testing.T) {
	h := newHarnessJobs(t, true)
	seedScopes(h) // Lore: 2 entries; Aria (lineage 7): 2 entries

	p := h.clickID(permMember, route{action: actBackups}.encode()).panel()
	require.True(t, h.need(p, actBackupExp).Disabled, "members cannot export")
	o := h.clickID(permMember, route{action: actBackupExp}.encode())
	require.Contains(t, o.content(), msgNeedSettings)

	// Export: a follow-up carries the file; the view says so.
	o = h.clickID(permManager, route{action: actBackupExp}.encode())
	var file []byte
	var name string
	for _, c := range o.calls {
		for n, data := range c.Files {
			name, file = n, data
		}
	}
	require.NotEmpty(t, file, "the backup was attached")
	require.Contains(t, o.content(), "Exported the workspace as **"+escape(name)+"**")
	require.Contains(t, string(file), "Content of entry 1.")

	// The workspace changes; importing the backup previews, then restores.
	for _, l := range []int64{0, 7} {
		res, err := h.bot.importer.Import(context.Background(), importRequest{Principal: servicePrincipal(), Server: testGuild,
			Lineage: l, Collection: map[bool]string{true: h.books()[0].ID}[l == 0], FileName: "more.json", Data: worldInfoFrom(10, 3)})
		require.NoError(t, err)
		require.Equal(t, 3, res.Added)
	}
	require.Len(t, h.scope(0, "Lore"), 5)
	m := h.click(permManager, h.need(h.clickID(permManager, route{action: actBackups}.encode()).panel(), actBackupImp)).modal()
	require.Equal(t, []string{fieldFile}, fieldIDs(m))
	p = h.submitForm(permManager, m, nil, nil, h.upload(name, file)).panel()
	require.Contains(t, p.text(), "Serverwide: replaces 5 entries with 2")
	require.Contains(t, p.text(), "Aria: replaces 5 entries with 2")
	require.Contains(t, p.text(), "Server settings: replaced by the backup's (budget, switches, lore editor role).", "a backup of this server")
	require.Len(t, h.scope(0, "Lore"), 5, "nothing changes before Confirm")
	confirm := h.need(p, actBackupOK)

	postgrestest.FailEntryInserts(t, h.pool, "Content of entry 1.")
	p = h.click(permManager, confirm).panel()
	require.Contains(t, p.text(), "The import failed and nothing was changed")
	require.Len(t, h.scope(0, "Lore"), 5)
	retry := h.need(p, actBackupOK)
	require.Equal(t, confirm.CustomID, retry.CustomID, "the upload is kept for a retry")

	_, err := h.pool.Exec(context.Background(), `DROP TRIGGER loregate_test_fail_entry ON lorebook_entries`)
	require.NoError(t, err)
	p = h.click(permManager, retry).panel()
	require.Contains(t, p.text(), "Backup imported")
	require.Len(t, h.scope(0, "Lore"), 2)
	require.Len(t, h.scope(7, ""), 2)

	// One persona's book: Export Lorebook in Persona scope.
	o = h.click(permManager, h.need(h.personaPanel(false), actExport))
	cb := o.callback()
	require.Equal(t, 4, cb.Type)
	var book []byte
	for _, c := range o.calls {
		for _, data := range c.Files {
			book = data
		}
	}
	require.True(t, strings.Contains(string(book), `"entries"`), "world info JSON")
}

// TestBookSettingsControls: managers edit a collection's and a persona
// book's settings and the server's budget in forms; blanks inherit;
// members and outsiders change nothing.
func TestBookSettingsControls(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	type stored struct {
		ScanDepth         *int  `json:"scanDepth"`
		BudgetLimit       *int  `json:"budgetLimit"`
		Recursive         *bool `json:"recursive"`
		MaxRecursionSteps *int  `json:"maxRecursionSteps"`
		WholeWords        *bool `json:"wholeWords"`
	}
	collection := func() stored {
		var out struct {
			Server struct {
				Collection struct {
					BookSettings stored `json:"bookSettings"`
				} `json:"collection"`
			} `json:"server"`
		}
		h.gql(`query($s: String!) { server(discordId: $s) { collection(name: "Lore") { bookSettings { scanDepth budgetLimit recursive maxRecursionSteps wholeWords } } } }`, map[string]any{"s": testGuild}, &out)
		return out.Server.Collection.BookSettings
	}
	personaBook := func() stored {
		var out struct {
			Server struct {
				PersonaBook struct {
					BookSettings stored `json:"bookSettings"`
				} `json:"personaBook"`
			} `json:"server"`
		}
		h.gql(`query($s: String!) { server(discordId: $s) { personaBook(lineageId: 7) { bookSettings { scanDepth budgetLimit recursive maxRecursionSteps wholeWords } } } }`, map[string]any{"s": testGuild}, &out)
		return out.Server.PersonaBook.BookSettings
	}
	four, three, budget, yes := 4, 3, 3000, true

	m := h.click(permManager, h.need(h.open(permManager).panel(), actBookSet)).modal()
	require.Equal(t, []string{fieldDepth, fieldBudget, fieldRecursive, fieldSteps, fieldWholeWords}, fieldIDs(m))
	tests := []struct {
		name   string
		perms  int64
		values map[string]string
		picks  map[string][]string
		want   stored
		text   string
	}{
		{"manager sets", permManager, map[string]string{fieldDepth: "4", fieldBudget: "3000", fieldSteps: "3"}, map[string][]string{fieldRecursive: {valueOn}},
			stored{ScanDepth: &four, BudgetLimit: &budget, Recursive: &yes, MaxRecursionSteps: &three}, "Saved the settings of **Lore**"},
		{"out of range", permManager, map[string]string{fieldDepth: "101"}, nil,
			stored{ScanDepth: &four, BudgetLimit: &budget, Recursive: &yes, MaxRecursionSteps: &three}, "scan depth must be a whole number from 0 to 100"},
		{"member refused", permMember, map[string]string{fieldDepth: ""}, nil,
			stored{ScanDepth: &four, BudgetLimit: &budget, Recursive: &yes, MaxRecursionSteps: &three}, msgNeedLoreWrite},
		{"blanks inherit", permManager, map[string]string{fieldDepth: "", fieldBudget: "", fieldSteps: ""}, map[string][]string{fieldRecursive: {valueInherit}},
			stored{}, "Saved the settings of **Lore**"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := h.submitForm(tc.perms, m, tc.values, tc.picks, nil)
			require.Contains(t, o.content(), tc.text)
			require.Equal(t, tc.want, collection())
		})
	}

	t.Run("outsider", func(t *testing.T) {
		o := h.run("dm_component.json", 0, map[string]string{"{{CUSTOM_ID}}": jsonString(route{action: modalBookSet}.encode())})
		require.Contains(t, o.content(), "use `/memories` in a server")
		require.Equal(t, stored{}, collection())
	})
	t.Run("persona book", func(t *testing.T) {
		m := h.click(permManager, h.need(h.personaPanel(false), actBookSet)).modal()
		o := h.submitForm(permManager, m, map[string]string{fieldDepth: "4"}, map[string][]string{fieldWholeWords: {valueOff}}, nil)
		require.Contains(t, o.content(), "Saved the settings of **Aria**")
		no := false
		require.Equal(t, stored{ScanDepth: &four, WholeWords: &no}, personaBook())
		require.Contains(t, o.content(), "scan depth 4")
	})

	t.Run("server budget", func(t *testing.T) {
		settings := func() model.ServerSettings {
			var out struct {
				Server struct {
					Settings model.ServerSettings `json:"settings"`
				} `json:"server"`
			}
			h.gql(`query($s: String!) { server(discordId: $s) { settings { budgetUnit budgetLimit tokenizer } } }`, map[string]any{"s": testGuild}, &out)
			return out.Server.Settings
		}
		before := settings()
		m := h.click(permManager, h.need(h.clickID(permManager, route{action: actSettings}.encode()).panel(), actBudget)).modal()
		require.Equal(t, []string{fieldUnit, fieldBudget, fieldTokenizer}, fieldIDs(m))
		picks := map[string][]string{fieldUnit: {string(model.BudgetUnitTokens)}, fieldTokenizer: {"cl100k_base"}}

		o := h.submitForm(permMember, m, map[string]string{fieldBudget: "3000"}, picks, nil)
		require.Contains(t, o.content(), msgNeedSettings)
		o = h.run("dm_component.json", 0, map[string]string{"{{CUSTOM_ID}}": jsonString(route{action: actBudget}.encode())})
		require.Contains(t, o.content(), "use `/memories` in a server")
		require.Equal(t, before, settings())

		o = h.submitForm(permManager, m, map[string]string{fieldBudget: "3000"}, picks, nil)
		require.Contains(t, o.content(), "Saved the budget.")
		require.Contains(t, o.content(), "3,000 tokens (cl100k_base)")
		got := settings()
		require.Equal(t, model.BudgetUnitTokens, got.BudgetUnit)
		require.Equal(t, 3000, got.BudgetLimit)
		require.Equal(t, "cl100k_base", got.Tokenizer)
	})
}

// TestEntryLastActivation: the entry view says when the entry last entered
// a recorded turn of the panel's channel.
func TestEntryLastActivation(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	var out struct {
		ActivateTurn struct{ Error *model.MutationError } `json:"activateTurn"`
	}
	h.gql(`mutation($s: String!) { activateTurn(input: {serverDiscordId: $s, lineageId: 7, channelId: "800000000000000001",
		messages: [{content: "we talk about key 0"}], turnId: "t1", messageCount: 1}) { error { code message } } }`, map[string]any{"s": testGuild}, &out)
	require.Nil(t, out.ActivateTurn.Error)

	p := h.personaPanel(false)
	picker := h.need(p, actEntryPick)
	entry := func(title string) string {
		for _, o := range picker.Options {
			if o.Label == title {
				return h.click(permMember, picker, o.Value).content()
			}
		}
		t.Fatalf("no entry %q", title)
		return ""
	}
	require.Regexp(t, `Last activated in this channel: <t:\d+:R>`, entry("Entry 000"))
	require.Contains(t, entry("Entry 001"), "Not activated in this channel's recorded turns.")
}

// TestLongEntryReadOnly: on a deployment that allows longer entries, an
// entry over the 4,000 characters a Discord form holds (UTF-16 code units:
// 2,100 letters outside the BMP are 4,200) is shown read-only
// (Edit disabled, a pointer to the API) and its edit form never opens; the
// counters show the deployment's scope limit.
func TestLongEntryReadOnly(t *testing.T) {
	h := newHarnessWith(t, false, lore.Limits{ContentChars: 6000, ScopeEntries: 300})
	seedScopes(h)
	var out struct {
		CreateEntry struct{ Error *model.MutationError } `json:"createEntry"`
	}
	h.op(client.OpCreateEntry, map[string]any{"in": map[string]any{"serverDiscordId": testGuild, "lineageId": 7,
		"entry": map[string]any{"title": "Chronicle", "content": strings.Repeat("𝔸", 2100), "keys": []string{"chronicle"}}}}, &out)
	require.Nil(t, out.CreateEntry.Error)

	p := h.personaPanel(false)
	require.Contains(t, p.text(), "3/300 entries in this scope")
	picker := h.need(p, actEntryPick)
	var id string
	for _, o := range picker.Options {
		if o.Label == "Chronicle" {
			id = o.Value
		}
	}
	p = h.click(permManager, picker, id).panel()
	require.Contains(t, p.text(), "read-only here. Edit it through the loregate API")
	edit := h.need(p, actEntryEdit)
	require.True(t, edit.Disabled)
	o := h.clickID(permManager, edit.CustomID)
	require.NotEqual(t, 9, o.callback().Type, "no edit form for a long entry")
	require.Contains(t, o.content(), "read-only here")
	// Activation rules still open: they do not carry the content.
	require.Equal(t, 9, h.click(permManager, h.need(p, actEntryRules)).callback().Type)
}

// TestPortuguesePanel: a member whose Discord language is Brazilian
// Portuguese gets the panel, its forms and receipts in Portuguese.
func TestPortuguesePanel(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	h.locale = "pt-BR"
	p := h.open(permMember).panel()
	require.Contains(t, p.text(), "## Lorebooks · Todo o Servidor")
	require.Contains(t, p.text(), "entradas neste escopo")
	require.Equal(t, "+ Importar Entradas", h.need(p, actEntryPick).Options[len(h.need(p, actEntryPick).Options)-1].Label)
	o := h.click(permMember, h.need(p, actBookToggle))
	require.Contains(t, o.content(), refusalTexts[i18n.ForbiddenLoreWrite]["pt-BR"])
	m := h.click(permManager, h.need(h.open(permManager).panel(), actEntryPick), valueImport).modal()
	require.Equal(t, "Importar Entradas", m.Title)
	require.Equal(t, "Substituir este lorebook", m.Components[1].label())
}
