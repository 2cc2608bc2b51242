package discord

import (
	"encoding/json"
	"loregate/graph/client"
	"loregate/graph/model"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// seedScopes gives the test server a Serverwide book "Lore" with two
// entries and persona lineage 7 ("Aria") with two entries.
func seedScopes(h *harness) {
	h.t.Helper()
	h.registerServer()
	h.book("Lore", 2)
	h.persona(1, 7, "Aria")
	h.importEntries(7, "", 2)
}

// The lore editor role of the write tests, and another role.
const (
	editorRoleID = "600000000000000001"
	otherRoleID  = "600000000000000002"
)

// snapshot is the server's lore as the API returns it.
func (h *harness) snapshot() string {
	h.t.Helper()
	b, err := json.Marshal([]any{h.books(), h.scope(0, "Lore"), h.scope(7, "")})
	require.NoError(h.t, err)
	return string(b)
}

// personaPanel opens Persona scope on lineage 7 and its first entry when
// entry is true.
func (h *harness) personaPanel(entry bool) wireData {
	h.t.Helper()
	p := h.clickID(permManager, route{action: actPersona}.encode()).panel()
	if entry {
		e := h.need(p, actEntryPick)
		p = h.click(permManager, e, e.Options[0].Value).panel()
	}
	return p
}

// serverwideEntry opens the first entry of book Lore.
func (h *harness) serverwideEntry() wireData {
	h.t.Helper()
	p := h.open(permManager).panel()
	e := h.need(p, actEntryPick)
	return h.click(permManager, e, e.Options[0].Value).panel()
}

// TestWritePaths runs every write the panel makes as a manager (the write
// lands, the panel is deferred then repainted with a receipt) and as a
// member without Manage Server (deferred, refused with a receipt, nothing
// written).
func TestWritePaths(t *testing.T) {
	type step struct {
		// act performs the write as perms; setup ran as a manager.
		act func(h *harness, perms int64) outcome
		// check verifies the manager's write.
		check func(t *testing.T, h *harness, o outcome)
	}
	cases := map[string]func(h *harness) step{
		"collection toggle": func(h *harness) step {
			c := h.need(h.open(permManager).panel(), actBookToggle)
			return step{
				act: func(h *harness, perms int64) outcome { return h.click(perms, c) },
				check: func(t *testing.T, h *harness, o outcome) {
					require.False(t, h.books()[0].Enabled)
					require.Equal(t, "Disabled", h.need(o.panel(), actBookToggle).label())
				},
			}
		},
		"collection channels": func(h *harness) step {
			view := h.click(permManager, h.need(h.open(permManager).panel(), actBookChans)).panel()
			sel := h.need(view, actBookChanSet)
			require.Equal(t, 8, sel.Type, "a channel select")
			return step{
				act: func(h *harness, perms int64) outcome { return h.click(perms, sel, chanA, threadA) },
				check: func(t *testing.T, h *harness, o outcome) {
					require.Equal(t, []string{chanA, threadA}, h.books()[0].ChannelIds)
					require.Contains(t, o.panel().text(), "<#"+chanA+">")
				},
			}
		},
		"collection all channels": func(h *harness) step {
			h.op(client.OpSetCollectionChannels, map[string]any{"in": map[string]any{"serverDiscordId": testGuild, "collectionId": h.books()[0].ID, "channelIds": []string{chanA}}}, nil)
			view := h.click(permManager, h.need(h.open(permManager).panel(), actBookChans)).panel()
			all := h.need(view, actBookChanAll)
			return step{
				act: func(h *harness, perms int64) outcome { return h.click(perms, all) },
				check: func(t *testing.T, h *harness, o outcome) {
					require.Empty(t, h.books()[0].ChannelIds)
				},
			}
		},
		"collection rename": func(h *harness) step {
			m := h.click(permManager, h.need(h.open(permManager).panel(), actBookRename)).modal()
			require.Equal(t, "Lore", fieldValue(m, fieldName))
			return step{
				act: func(h *harness, perms int64) outcome {
					return h.submit(perms, m, map[string]string{fieldName: "World"})
				},
				check: func(t *testing.T, h *harness, o outcome) {
					require.Equal(t, "World", h.books()[0].Name)
					require.Len(t, h.scope(0, "World"), 2, "rename cascades to entries")
				},
			}
		},
		"collection delete": func(h *harness) step {
			confirm := h.click(permManager, h.need(h.open(permManager).panel(), actBookDelete)).panel()
			require.Contains(t, confirm.text(), "cannot be undone")
			ok := h.need(confirm, actBookDelOK)
			return step{
				act: func(h *harness, perms int64) outcome { return h.click(perms, ok) },
				check: func(t *testing.T, h *harness, o outcome) {
					require.Empty(t, h.books())
					require.Contains(t, o.panel().text(), "No lorebooks yet")
				},
			}
		},
		"collection add": func(h *harness) step {
			m := h.click(permManager, h.need(h.open(permManager).panel(), actBookPick), valueAdd).modal()
			return step{
				act: func(h *harness, perms int64) outcome {
					return h.submit(perms, m, map[string]string{fieldName: "Atlas"})
				},
				check: func(t *testing.T, h *harness, o outcome) {
					require.Len(t, h.books(), 2)
					books := h.need(o.panel(), actBookPick)
					require.Equal(t, "Atlas", books.Options[0].Label)
					require.True(t, books.Options[0].Default, "the new book is selected")
				},
			}
		},
		"serverwide entry add": func(h *harness) step {
			m := h.click(permManager, h.need(h.open(permManager).panel(), actEntryPick), valueAdd).modal()
			require.Equal(t, []string{fieldTitle, fieldKeys, fieldContent}, fieldIDs(m), "Serverwide entry modals omit channels")
			return step{
				act: func(h *harness, perms int64) outcome {
					return h.submit(perms, m, map[string]string{fieldTitle: "Dragons", fieldKeys: "dragon, wyrm", fieldContent: "Dragons hoard."})
				},
				check: func(t *testing.T, h *harness, o outcome) {
					es := h.scope(0, "Lore")
					require.Len(t, es, 3)
					e := byTitle(t, es, "Dragons")
					require.Equal(t, []string{"dragon", "wyrm"}, e.Keys)
					require.False(t, e.Constant)
					require.Equal(t, model.PlacementAfter, e.Placement, "new entries go after the persona")
					require.Contains(t, o.panel().text(), "Dragons hoard.")
				},
			}
		},
		"persona entry add": func(h *harness) step {
			m := h.click(permManager, h.need(h.personaPanel(false), actEntryPick), valueAdd).modal()
			require.Equal(t, []string{fieldTitle, fieldKeys, fieldContent, fieldChannels}, fieldIDs(m), "persona entry modals keep channels")
			return step{
				act: func(h *harness, perms int64) outcome {
					return h.submit(perms, m, map[string]string{fieldTitle: "Aria's sword", fieldKeys: "", fieldContent: "She carries a sword.", fieldChannels: "<#" + chanB + ">"})
				},
				check: func(t *testing.T, h *harness, o outcome) {
					es := h.scope(7, "")
					require.Len(t, es, 3)
					e := byTitle(t, es, "Aria's sword")
					require.True(t, e.Constant, "blank keywords make the entry Always On")
					require.Equal(t, []string{chanB}, e.ChannelIds)
					require.Equal(t, model.PlacementAfter, e.Placement)
				},
			}
		},
		"entry edit": func(h *harness) step {
			m := h.click(permManager, h.need(h.serverwideEntry(), actEntryEdit)).modal()
			require.Equal(t, "Entry 000", fieldValue(m, fieldTitle))
			return step{
				act: func(h *harness, perms int64) outcome {
					return h.submit(perms, m, map[string]string{fieldContent: "Rewritten."})
				},
				check: func(t *testing.T, h *harness, o outcome) {
					e := h.scope(0, "Lore")[0]
					require.Equal(t, "Rewritten.", e.Content)
					require.Equal(t, "Entry 000", e.Title)
					require.Equal(t, []string{"key 0"}, e.Keys)
					require.Equal(t, model.PlacementBefore, e.Placement, "imported placement is kept")
				},
			}
		},
		"entry activation rules": func(h *harness) step {
			m := h.click(permManager, h.need(h.serverwideEntry(), actEntryRules)).modal()
			require.Len(t, m.Components, 5)
			return step{
				act: func(h *harness, perms int64) outcome {
					return h.submit(perms, m, map[string]string{fieldSecKeys: "night, moon", fieldLogic: "NAND", fieldDepth: "12", fieldChance: "40%", fieldOrder: "7"})
				},
				check: func(t *testing.T, h *harness, o outcome) {
					e := h.scope(0, "Lore")[0]
					require.Equal(t, []string{"night", "moon"}, e.SecondaryKeys)
					require.Equal(t, model.SelectiveLogicNotAll, e.SelectiveLogic)
					require.NotNil(t, e.ScanDepth)
					require.Equal(t, 12, *e.ScanDepth)
					require.Equal(t, 40, e.Probability)
					require.Equal(t, 7, e.InsertionOrder)
					require.Equal(t, "Content of entry 0.", e.Content)
				},
			}
		},
		"entry toggle": func(h *harness) step {
			c := h.need(h.personaPanel(true), actEntryToggle)
			return step{
				act: func(h *harness, perms int64) outcome { return h.click(perms, c) },
				check: func(t *testing.T, h *harness, o outcome) {
					require.False(t, h.scope(7, "")[0].Enabled)
					require.Equal(t, "Disabled", h.need(o.panel(), actEntryToggle).label())
				},
			}
		},
		"entry delete": func(h *harness) step {
			confirm := h.click(permManager, h.need(h.personaPanel(true), actEntryDelete)).panel()
			ok := h.need(confirm, actEntryDelOK)
			return step{
				act: func(h *harness, perms int64) outcome { return h.click(perms, ok) },
				check: func(t *testing.T, h *harness, o outcome) {
					require.Len(t, h.scope(7, ""), 1)
					require.Contains(t, o.panel().text(), "Deleted")
				},
			}
		},
	}
	for name, setup := range cases {
		// A member's refused write changes nothing, so the manager then
		// writes on the same server; the admin gets a fresh one.
		// A lore editor is a member without Manage Server who holds the
		// role the server names (docs/workbench.md#lore-editor-role); a
		// member holding another role is refused like any member.
		for _, run := range []struct {
			name  string
			perms []int64
			roles [][]string
		}{
			{"member then manager", []int64{permMember, permManager}, nil},
			{"admin", []int64{permAdmin}, nil},
			{"other role then lore editor", []int64{permMember, permMember}, [][]string{{otherRoleID}, {otherRoleID, editorRoleID}}},
		} {
			t.Run(name+"/"+run.name, func(t *testing.T) {
				t.Parallel()
				h := newHarness(t)
				seedScopes(h)
				if run.roles != nil {
					h.gql(`mutation($s: String!, $r: String!) { updateWorkbenchSettings(input: {serverDiscordId: $s, loreEditorRoleId: $r}) { error { code } } }`,
						map[string]any{"s": testGuild, "r": editorRoleID}, nil)
				}
				s := setup(h)
				for i, perms := range run.perms {
					editor := false
					if run.roles != nil {
						h.roles = run.roles[i]
						editor = slices.Contains(h.roles, editorRoleID)
					}
					before := h.snapshot()
					o := s.act(h, perms)
					require.Equal(t, 6, o.callback().Type, "writes are deferred before the read")
					require.NotEmpty(t, o.edits(), "then the panel is repainted")
					if perms == permMember && !editor {
						require.Contains(t, o.content(), msgNeedLoreWrite)
						require.Equal(t, before, h.snapshot(), "nothing was written")
						continue
					}
					require.NotContains(t, o.content(), msgNeedLoreWrite)
					require.NotEqual(t, before, h.snapshot())
					s.check(t, h, o)
				}
			})
		}
	}
}

// TestExport attaches the selected book as world info for a manager and
// refuses a member.
func TestExport(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	ex := h.need(h.open(permManager).panel(), actExport)

	o := h.click(permManager, ex)
	var file []byte
	for _, c := range o.calls {
		for name, data := range c.Files {
			require.Equal(t, "Lore.json", name)
			file = data
		}
	}
	require.Equal(t, 4, o.callback().Type)
	require.Equal(t, 64, o.callback().Data.Flags)
	var wi struct {
		Entries map[string]struct{ Content string } `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(file, &wi))
	require.Len(t, wi.Entries, 2)

	o = h.click(permMember, ex)
	require.Equal(t, 7, o.callback().Type)
	require.Contains(t, o.content(), msgNeedExport)
	for _, c := range o.calls {
		require.Empty(t, c.Files)
	}
}

// TestModalOpensRefusedForMembers: a member pressing a modal-opening
// control gets a repaint with a receipt, never the form.
func TestModalOpensRefusedForMembers(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	p := h.open(permManager).panel()
	entry := h.serverwideEntry()
	for name, do := range map[string]func() outcome{
		"rename":    func() outcome { return h.click(permMember, h.need(p, actBookRename)) },
		"add book":  func() outcome { return h.click(permMember, h.need(p, actBookPick), valueAdd) },
		"add entry": func() outcome { return h.click(permMember, h.need(p, actEntryPick), valueAdd) },
		"import":    func() outcome { return h.click(permMember, h.need(p, actEntryPick), valueImport) },
		"edit":      func() outcome { return h.click(permMember, h.need(entry, actEntryEdit)) },
		"rules":     func() outcome { return h.click(permMember, h.need(entry, actEntryRules)) },
		"channels":  func() outcome { return h.click(permMember, h.need(p, actBookChans)) },
	} {
		t.Run(name, func(t *testing.T) {
			o := do()
			require.Equal(t, 7, o.callback().Type)
			require.Contains(t, o.content(), msgNeedLoreWrite)
		})
	}
}

// TestEditKeepsUntouchedFields: an edit that changes only the content
// keeps activation fields and channels, and the channel prefill leaves out
// a channel deleted from the guild without dropping it from storage.
func TestEditKeepsUntouchedFields(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	e := h.scope(7, "")[0]
	h.op(client.OpUpdateEntry, map[string]any{"in": map[string]any{"serverDiscordId": testGuild, "lineageId": 7, "entryId": e.ID, "patch": map[string]any{
		"channelIds": []string{chanA, chanGone}, "scanDepth": 9, "probability": 0, "secondaryKeys": []string{"x"}, "selectiveLogic": "NOT_ANY",
	}}}, nil)
	m := h.click(permManager, h.need(h.personaPanel(true), actEntryEdit)).modal()
	require.Equal(t, chanA, fieldValue(m, fieldChannels), "the deleted channel is not offered")

	o := h.submit(permManager, m, map[string]string{fieldContent: "Only the content changed."})
	require.Contains(t, o.content(), "Saved")
	got := h.scope(7, "")[0]
	require.Equal(t, "Only the content changed.", got.Content)
	require.Equal(t, []string{chanA, chanGone}, got.ChannelIds, "untouched channels are kept as stored")
	require.Equal(t, 9, *got.ScanDepth)
	require.Equal(t, 0, got.Probability, "an explicit 0% chance survives")
	require.Equal(t, []string{"x"}, got.SecondaryKeys)
	require.Equal(t, model.SelectiveLogicNotAny, got.SelectiveLogic)
	require.Equal(t, model.PlacementBefore, got.Placement)

	// Blank keywords turn the entry Always On; the rest stays.
	m = h.click(permManager, h.need(h.personaPanel(true), actEntryEdit)).modal()
	h.submit(permManager, m, map[string]string{fieldKeys: ""})
	got = h.scope(7, "")[0]
	require.True(t, got.Constant)
	require.Empty(t, got.Keys)
	require.Equal(t, "Only the content changed.", got.Content)
}

// TestEditKeepsPositionAndFilters: an entry edited in the panel (the edit
// modal, then the activation-rules modal) keeps the fields the panel does
// not show: position (kind, depth, role), match flags, character filter
// and generation types.
func TestEditKeepsPositionAndFilters(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	e := h.scope(7, "")[0]
	h.op(client.OpUpdateEntry, map[string]any{"in": map[string]any{"serverDiscordId": testGuild, "lineageId": 7, "entryId": e.ID, "patch": map[string]any{
		"position": map[string]any{"kind": "AT_DEPTH", "depth": 3, "role": "ASSISTANT"}, "matchScenario": true, "matchPersonaDescription": true,
		"characterFilter": map[string]any{"names": []string{"Alice"}, "tags": []string{"villain"}, "exclude": true},
		"generationTypes": []string{"CONTINUE", "SWIPE"},
	}}}, nil)
	read := func() (content string, rest map[string]any) {
		var out struct {
			Server struct {
				PersonaBook struct {
					Entries struct {
						Edges []struct{ Node map[string]any }
					}
				}
			}
		}
		h.gql(`query($s: String!) { server(discordId: $s) { personaBook(lineageId: 7) { entries(first: 10) { edges { node {
			id content position { kind depth role outlet } role matchScenario matchPersonaDescription matchCharacterDescription
			characterFilter { names tags exclude } generationTypes } } } } } }`, map[string]any{"s": testGuild}, &out)
		for _, ed := range out.Server.PersonaBook.Entries.Edges {
			if ed.Node["id"] == e.ID {
				content, _ = ed.Node["content"].(string)
				delete(ed.Node, "content")
				return content, ed.Node
			}
		}
		require.Fail(t, "the entry is gone")
		return "", nil
	}
	_, want := read()
	require.Equal(t, map[string]any{"kind": "AT_DEPTH", "depth": 3.0, "role": "ASSISTANT", "outlet": nil}, want["position"])
	require.Equal(t, []any{"CONTINUE", "SWIPE"}, want["generationTypes"])

	m := h.click(permManager, h.need(h.personaPanel(true), actEntryEdit)).modal()
	o := h.submit(permManager, m, map[string]string{fieldContent: "Edited in the panel."})
	require.Contains(t, o.content(), "Saved")
	content, got := read()
	require.Equal(t, "Edited in the panel.", content)
	require.Equal(t, want, got, "the edit modal keeps what it does not show")

	m = h.click(permManager, h.need(h.personaPanel(true), actEntryRules)).modal()
	o = h.submit(permManager, m, map[string]string{fieldChance: "50"})
	require.Contains(t, o.content(), "Saved")
	_, got = read()
	require.Equal(t, want, got, "the rules modal keeps what it does not show")
}

// TestInvalidRulesRefused: out-of-range activation values get a receipt
// and no write.
func TestInvalidRulesRefused(t *testing.T) {
	for name, tc := range map[string]struct{ field, value, want string }{
		"depth":  {fieldDepth, "101", "scan depth"},
		"chance": {fieldChance, "150", "chance"},
		"logic":  {fieldLogic, "XOR", "secondary logic"},
		"order":  {fieldOrder, "soon", "insertion order"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			seedScopes(h)
			m := h.click(permManager, h.need(h.serverwideEntry(), actEntryRules)).modal()
			before := h.snapshot()
			o := h.submit(permManager, m, map[string]string{tc.field: tc.value})
			require.Contains(t, strings.ToLower(o.content()), tc.want)
			require.Equal(t, before, h.snapshot())
		})
	}
}

func byTitle(t *testing.T, es []model.Entry, title string) model.Entry {
	t.Helper()
	for _, e := range es {
		if e.Title == title {
			return e
		}
	}
	require.Failf(t, "no entry", "titled %q", title)
	return model.Entry{}
}

// TestRulesKeepUntouchedSecondaryKeys: saving the activation-rules modal
// with only the chance changed keeps secondary keys that hold commas.
func TestRulesKeepUntouchedSecondaryKeys(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	e := h.scope(7, "")[0]
	h.op(client.OpUpdateEntry, map[string]any{"in": map[string]any{"serverDiscordId": testGuild, "lineageId": 7, "entryId": e.ID, "patch": map[string]any{
		"secondaryKeys": []string{"Smith, John", "Doe"},
	}}}, nil)
	m := h.click(permManager, h.need(h.personaPanel(true), actEntryRules)).modal()
	o := h.submit(permManager, m, map[string]string{fieldChance: "40"})
	require.Contains(t, o.content(), "Saved")
	got := h.scope(7, "")[0]
	require.Equal(t, 40, got.Probability)
	require.Equal(t, []string{"Smith, John", "Doe"}, got.SecondaryKeys, "a key holding a comma is not split by an unrelated save")
}
