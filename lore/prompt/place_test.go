package prompt_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/format"
	"loregate/lore/prompt"
	"loregate/lore/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// at returns an Always On entry of kind k with depth, role and outlet.
func at(id int64, k lore.PositionKind, depth int, role lore.Role, outlet, content string) lore.Entry {
	return lore.Entry{ID: id, Enabled: true, Probability: 100, Constant: true, Order: 100 + int(id),
		Position: k, Placement: k.Placement(), Depth: depth, Role: role, Outlet: outlet, Content: content}
}

// run activates entries over history with the real engine and assembles
// the prompt of req (its History, Blocks, Injections and Outlets set from
// the turn).
func run(t *testing.T, entries []lore.Entry, history []prompt.Message, req prompt.Request) []prompt.Message {
	t.Helper()
	msgs := make([]string, len(history))
	for i, m := range history {
		msgs[i] = m.Content
	}
	res, err := activation.Activate(context.Background(), activation.Input{Entries: entries,
		Collections: map[string]lore.Collection{lore.DefaultCollection: {Enabled: true}}, Messages: msgs},
		activation.Options{CharBudget: 1 << 24})
	require.NoError(t, err)
	req.History, req.Blocks, req.Injections, req.Outlets = history, prompt.Blocks(&res), res.Injections, res.Outlets
	return prompt.Assemble(req)
}

// golden renders messages as "role [tag]: content" lines.
func golden(msgs []prompt.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		tag := ""
		if m.Tag != "" {
			tag = " [" + string(m.Tag) + "]"
		}
		out[i] = string(m.Role) + tag + ": " + m.Content
	}
	return out
}

// placed is every entry kind at once: depth 0, 1 and 4 with each role,
// the author's note and examples kinds, two outlets and a Before entry.
func placed() []lore.Entry {
	var out []lore.Entry
	id := int64(0)
	add := func(k lore.PositionKind, depth int, role lore.Role, outlet, content string) {
		id++
		out = append(out, at(id, k, depth, role, outlet, content))
	}
	for _, d := range []struct {
		depth int
		name  string
	}{{0, "D0"}, {1, "D1"}, {4, "D4"}} {
		add(lore.PositionAtDepth, d.depth, lore.RoleSystem, "", d.name+"-system")
		add(lore.PositionAtDepth, d.depth, lore.RoleUser, "", d.name+"-user")
		add(lore.PositionAtDepth, d.depth, lore.RoleAssistant, "", d.name+"-assistant")
	}
	add(lore.PositionANTop, 0, "", "", "AN-top")
	add(lore.PositionANBottom, 0, "", "", "AN-bottom")
	add(lore.PositionEMTop, 0, "", "", "EM-top")
	add(lore.PositionEMBottom, 0, "", "", "EM-bottom")
	add(lore.PositionOutlet, 0, "", "mood", "Outlet-mood")
	add(lore.PositionOutlet, 0, "", "weather", "Outlet-weather")
	add(lore.PositionBeforeChar, 0, "", "", "Char-before")
	return out
}

// TestAssemblePlacement is the golden table of issue 27's placement: depth
// 0/1/4 with each role (deeper first at one place; assistant, user, system
// at one depth), AN and EM lore around the caller's texts, outlets in the
// system prompt, author's note and examples, and no text in a block it
// does not belong to.
func TestAssemblePlacement(t *testing.T) {
	sys := prompt.PresetItem{Message: prompt.Message{Role: lore.RoleSystem, Content: "System {{outlet::mood}}|{{OUTLET:: weather }}|{{outlet::none}}."}}
	tests := []struct {
		name string
		hist int
		req  prompt.Request
		want []string
	}{
		{
			name: "everything, no markers: author's note at depth 4 as system, examples before the history",
			hist: 6,
			req:  prompt.Request{Preset: []prompt.PresetItem{sys}, AuthorsNote: "Note {{outlet::weather}}", Examples: "<START>\nExample"},
			want: []string{
				"system: System Outlet-mood|Outlet-weather|.",
				"system [KNOWLEDGE_LOREBOOK_BEFORE]: [Lorebook (Before)]\nChar-before",
				"system [DIALOGUE_EXAMPLES]: EM-top\n<START>\nExample\nEM-bottom",
				"user: h0", "assistant: h1",
				"assistant [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D4-assistant",
				"user [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D4-user",
				"system [AUTHORS_NOTE]: AN-top\nNote Outlet-weather\nAN-bottom",
				"system [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D4-system",
				"user: h2", "assistant: h3", "user: h4",
				"assistant [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D1-assistant",
				"user [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D1-user",
				"system [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D1-system",
				"assistant: h5",
				"assistant [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D0-assistant",
				"user [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D0-user",
				"system [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D0-system",
			},
		},
		{
			name: "markers: the author's note and examples at theirs; no author's note: AN lore not placed",
			hist: 2,
			req: prompt.Request{Preset: []prompt.PresetItem{{Marker: prompt.MarkerDialogueExamples}, {Marker: prompt.MarkerAuthorsNote},
				{Marker: prompt.MarkerChatHistory}, {Marker: prompt.MarkerWorldInfoBefore}}},
			want: []string{
				"system [DIALOGUE_EXAMPLES]: EM-top\nEM-bottom",
				"assistant [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D4-assistant",
				"user [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D4-user",
				"system [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D4-system",
				"user: h0",
				"assistant [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D1-assistant",
				"user [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D1-user",
				"system [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D1-system",
				"assistant: h1",
				"assistant [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D0-assistant",
				"user [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D0-user",
				"system [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D0-system",
				"system [KNOWLEDGE_LOREBOOK_BEFORE]: [Lorebook (Before)]\nChar-before",
			},
		},
		{
			name: "author's note at its marker with its lore",
			hist: 1,
			req:  prompt.Request{AuthorsNote: "Note", Preset: []prompt.PresetItem{{Marker: prompt.MarkerAuthorsNote}, {Marker: prompt.MarkerChatHistory}}},
			want: []string{
				"system [AUTHORS_NOTE]: AN-top\nNote\nAN-bottom",
				"system [KNOWLEDGE_LOREBOOK_BEFORE]: [Lorebook (Before)]\nChar-before",
				"system [DIALOGUE_EXAMPLES]: EM-top\nEM-bottom",
				"assistant [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D4-assistant",
				"user [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D4-user",
				"system [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D4-system",
				"assistant [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D1-assistant",
				"user [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D1-user",
				"system [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D1-system",
				"user: h0",
				"assistant [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D0-assistant",
				"user [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D0-user",
				"system [KNOWLEDGE_LOREBOOK_AT_DEPTH]: D0-system",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := golden(run(t, placed(), hist(tt.hist), tt.req))
			require.Equal(t, tt.want, got)
			// Nothing leaks: each lore text is in exactly the message the
			// table names, outlets only where their macro is.
			all := strings.Join(got, "\n")
			for _, text := range []string{"Outlet-mood", "AN-top", "EM-top", "D4-system", "Char-before"} {
				require.LessOrEqual(t, strings.Count(all, text), 1, text)
			}
			require.NotContains(t, all, "{{outlet::")
		})
	}
}

// TestResolveOutlets: names trimmed and exact, the macro name in any case,
// unknown outlets empty, an unclosed macro literal.
func TestResolveOutlets(t *testing.T) {
	outlets := []activation.Outlet{{Name: "mood", Text: "calm"}, {Name: "Mood", Text: "CALM"}}
	for _, tt := range []struct{ in, want string }{
		{"a {{outlet::mood}} b", "a calm b"},
		{"{{Outlet:: Mood }}{{outlet::mood}}", "CALMcalm"},
		{"x{{outlet::gone}}y", "xy"},
		{"{{outlet::mood", "{{outlet::mood"},
		{"{{user}} {{outlet::mood}}", "{{user}} calm"},
		{"plain", "plain"},
	} {
		require.Equal(t, tt.want, prompt.ResolveOutlets(tt.in, outlets), tt.in)
	}
}

// TestAssembleCorpusDepthBook: the largest corpus world info (814 depth
// entries: depths 0, 1, 2 and 4, role system) keeps each admitted entry at
// its depth, as one system message per depth, and puts none of them in
// the Lorebook blocks.
func TestAssembleCorpusDepthBook(t *testing.T) {
	entries := corpusBook(t, "st-worldinfo/soranokiseki1437__Eldoria_V10.28.1_zh_947entries.json")
	depths := map[int]int{}
	for i := range entries {
		entries[i].Constant = true // every entry fires: the placement is under test
		if entries[i].Position == lore.PositionAtDepth {
			depths[entries[i].Depth]++
		}
	}
	require.Equal(t, map[int]int{0: 2, 1: 3, 2: 808, 4: 1}, depths)
	msgs := run(t, entries, hist(6), prompt.Request{})
	var inChat []string
	for i, m := range msgs {
		if m.Tag == prompt.TagAtDepth {
			require.Equal(t, lore.RoleSystem, m.Role)
			inChat = append(inChat, msgs[i-1].Content+" > depth")
		}
		if m.Kind == prompt.KindLore && m.Tag != prompt.TagAtDepth {
			for _, e := range entries {
				if e.Position == lore.PositionAtDepth && len(e.Content) > 40 {
					require.NotContains(t, m.Content, e.Content, "a depth entry in a block")
				}
			}
		}
	}
	// Depth 4 after h1, depth 2 after h3, depth 1 after h4, depth 0 after h5.
	require.Equal(t, []string{"h1 > depth", "h3 > depth", "h4 > depth", "h5 > depth"}, inChat)
}

// corpusBook imports a corpus file with the real importer, entries
// numbered from 1 in the Serverwide default collection, split groups
// joined.
func corpusBook(t *testing.T, rel string) []lore.Entry {
	t.Helper()
	res, err := format.Import(filepath.Base(rel), sharedtest.Read(t, "corpus", rel), format.Options{MaxJSONBytes: 8 << 20})
	require.NoError(t, err)
	entries := res.Book.Entries
	for i := range entries {
		entries[i].ID = int64(i + 1)
	}
	return lore.JoinSplit(entries) // as the per-turn read gives them

}

// TestAssembleNeutralGolden: a neutral request (Before and After entries
// only, no author's note, examples or injections) over real corpus books
// gives exactly the messages of the assembler before positions existed,
// byte for byte (testdata/neutral.golden.json was written by that code).
func TestAssembleNeutralGolden(t *testing.T) {
	entries := corpusBook(t, "st-worldinfo/sillytavern__Eldoria.json")
	entries = append(entries,
		lore.Entry{ID: 100, Enabled: true, Probability: 100, Constant: true, Placement: lore.Before, Content: "{{char}} guards the forest."},
		lore.Entry{ID: 101, Enabled: true, Probability: 100, Constant: true, Placement: lore.After, Content: "Magic hums, {{user}}."},
		lore.Entry{ID: 102, Enabled: true, Probability: 100, Keys: []string{"refuge"}, Placement: lore.After, Content: "The refuge is warm."})
	history := []prompt.Message{
		{Kind: prompt.KindHistory, Role: lore.RoleUser, Content: "We walk into Eldoria, the magical forest."},
		{Kind: prompt.KindHistory, Role: lore.RoleAssistant, Content: "A shadowfang beast growls."},
		{Kind: prompt.KindHistory, Role: lore.RoleUser, Content: "Find the glade, a safe haven."},
		{Kind: prompt.KindHistory, Role: lore.RoleAssistant, Content: "Your magic can hide us."},
		{Kind: prompt.KindHistory, Role: lore.RoleUser, Content: "A refuge at last."},
		{Kind: prompt.KindHistory, Role: lore.RoleAssistant, Content: "Rest."},
	}
	msgs := make([]string, len(history))
	for i, m := range history {
		msgs[i] = m.Content
	}
	res, err := activation.Activate(context.Background(), activation.Input{Entries: entries,
		Collections: map[string]lore.Collection{lore.DefaultCollection: {Enabled: true}}, Messages: msgs},
		activation.Options{UserName: "Ann", CharName: "Seraphina"})
	require.NoError(t, err)
	docs := []prompt.Message{{Kind: prompt.KindDocument, Role: lore.RoleSystem, Content: "A retrieved document."}}
	var got [][]prompt.Message
	for _, preset := range [][]prompt.PresetItem{
		nil,
		{{Message: prompt.Message{Role: lore.RoleSystem, Content: "You narrate."}}, {Marker: prompt.MarkerWorldInfoAfter}, {Marker: prompt.MarkerChatHistory}},
		{{Marker: prompt.MarkerChatHistory}, {Marker: prompt.MarkerWorldInfoBefore}, {Marker: "jailbreak"}},
	} {
		got = append(got, prompt.Assemble(prompt.Request{Preset: preset, History: history, Documents: docs, Blocks: prompt.Blocks(&res)}))
	}
	js, err := json.MarshalIndent(got, "", "  ")
	require.NoError(t, err)
	path := filepath.Join("testdata", "neutral.golden.json")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, js, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), string(js))
}
