package prompt_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/prompt"
)

func adm(content string, g activation.Group, p lore.Placement) activation.Admitted {
	return activation.Admitted{Entry: &lore.Entry{}, Content: content, Placing: &activation.Placing{Group: g, Placement: p}}
}

func hist(n int) []prompt.Message {
	out := make([]prompt.Message, n)
	for i := range out {
		role := lore.RoleUser
		if i%2 == 1 {
			role = lore.RoleAssistant
		}
		out[i] = prompt.Message{Kind: prompt.KindHistory, Role: role, Content: fmt.Sprintf("h%d", i)}
	}
	return out
}

// summary renders a prompt as kind:content-or-tag items.
func summary(msgs []prompt.Message) []string {
	var out []string
	for _, m := range msgs {
		switch m.Kind {
		case prompt.KindLore:
			out = append(out, fmt.Sprintf("%s/%s", m.Tag, m.Role))
		default:
			out = append(out, m.Content)
		}
	}
	return out
}

var admitted = []activation.Admitted{
	adm("A1", activation.AlwaysOn, lore.Before),
	adm("K1", activation.Activated, lore.After),
	adm("A2", activation.AlwaysOn, lore.After),
	adm("K2", activation.Activated, lore.Before),
	adm("A3", activation.AlwaysOn, lore.Before),
}

// blocksOf is prompt.Blocks of a Result whose admitted entries are adm.
func blocksOf(adm []activation.Admitted) []prompt.Block {
	res := activation.ResultOf(adm)
	return prompt.Blocks(&res)
}

func TestBlocks(t *testing.T) {
	blocks := blocksOf(admitted)
	require.Len(t, blocks, 4)
	type row struct {
		tag   prompt.Tag
		role  lore.Role
		group activation.Group
		text  string
		plain []string
	}
	var got []row
	for _, b := range blocks {
		var plain []string
		for _, e := range b.Entries {
			require.Equal(t, b.Role, e.Role, "an entry takes its block's role")
			plain = append(plain, e.Content)
		}
		got = append(got, row{b.Tag, b.Role, b.Group, b.Text, plain})
	}
	require.Equal(t, []row{
		{prompt.TagBefore, lore.RoleSystem, activation.AlwaysOn, "[Lorebook (Before)]\nA1\n\nA3", []string{"A1", "A3"}},
		{prompt.TagAfter, lore.RoleSystem, activation.AlwaysOn, "[Lorebook (After)]\nA2", []string{"A2"}},
		{prompt.TagBefore, lore.RoleUser, activation.Activated, "[Lorebook (Before)]\nK2", []string{"K2"}},
		{prompt.TagAfter, lore.RoleUser, activation.Activated, "[Lorebook (After)]\nK1", []string{"K1"}},
	}, got)
	require.Empty(t, blocksOf(nil))
	// Entries carry the id and title of each admitted entry.
	one := blocksOf([]activation.Admitted{{Entry: &lore.Entry{ID: 7, Title: "Glade"}, Content: "c", Placing: &activation.Placing{Group: activation.AlwaysOn, Placement: lore.After}}})
	require.Equal(t, []prompt.BlockEntry{{ID: 7, Title: "Glade", Content: "c", Role: lore.RoleSystem}}, one[0].Entries)
}

func TestAssemble(t *testing.T) {
	blocks := blocksOf(admitted)
	docs := []prompt.Message{{Kind: prompt.KindDocument, Role: lore.RoleUser, Content: "doc"}}
	sys := prompt.PresetItem{Message: prompt.Message{Role: lore.RoleSystem, Content: "sys"}}
	tests := []struct {
		name string
		req  prompt.Request
		want []string
	}{
		{
			name: "no preset: always on first, activated above the last four turns, before documents",
			req:  prompt.Request{History: hist(6), Documents: docs, Blocks: blocks},
			want: []string{"KNOWLEDGE_LOREBOOK_BEFORE/system", "KNOWLEDGE_LOREBOOK_AFTER/system", "h0", "h1",
				"KNOWLEDGE_LOREBOOK_BEFORE/user", "KNOWLEDGE_LOREBOOK_AFTER/user", "doc", "h2", "h3", "h4", "h5"},
		},
		{
			name: "short history: tail slot at the top of the history",
			req:  prompt.Request{History: hist(2), Blocks: blocks},
			want: []string{"KNOWLEDGE_LOREBOOK_BEFORE/system", "KNOWLEDGE_LOREBOOK_AFTER/system",
				"KNOWLEDGE_LOREBOOK_BEFORE/user", "KNOWLEDGE_LOREBOOK_AFTER/user", "h0", "h1"},
		},
		{
			name: "preset markers claim always on blocks",
			req: prompt.Request{History: hist(5), Documents: docs, Blocks: blocks, Preset: []prompt.PresetItem{
				{Marker: prompt.MarkerWorldInfoAfter}, sys, {Marker: prompt.MarkerWorldInfoBefore}, {Marker: prompt.MarkerChatHistory},
			}},
			want: []string{"KNOWLEDGE_LOREBOOK_AFTER/system", "sys", "KNOWLEDGE_LOREBOOK_BEFORE/system", "h0",
				"KNOWLEDGE_LOREBOOK_BEFORE/user", "KNOWLEDGE_LOREBOOK_AFTER/user", "doc", "h1", "h2", "h3", "h4"},
		},
		{
			name: "missing marker flushes before the dialogue anchor",
			req: prompt.Request{History: hist(1), Blocks: blocks, Preset: []prompt.PresetItem{
				sys, {Marker: prompt.MarkerWorldInfoAfter}, {Marker: prompt.MarkerChatHistory}, sys,
			}},
			want: []string{"sys", "KNOWLEDGE_LOREBOOK_AFTER/system", "KNOWLEDGE_LOREBOOK_BEFORE/system",
				"KNOWLEDGE_LOREBOOK_BEFORE/user", "KNOWLEDGE_LOREBOOK_AFTER/user", "h0", "sys"},
		},
		{
			name: "a marker after the dialogue anchor still claims its block",
			req: prompt.Request{History: hist(1), Blocks: blocks, Preset: []prompt.PresetItem{
				sys, {Marker: prompt.MarkerChatHistory}, {Marker: prompt.MarkerWorldInfoBefore},
			}},
			want: []string{"sys", "KNOWLEDGE_LOREBOOK_AFTER/system",
				"KNOWLEDGE_LOREBOOK_BEFORE/user", "KNOWLEDGE_LOREBOOK_AFTER/user", "h0", "KNOWLEDGE_LOREBOOK_BEFORE/system"},
		},
		{
			name: "preset without history marker",
			req:  prompt.Request{History: hist(1), Blocks: blocks, Preset: []prompt.PresetItem{sys}},
			want: []string{"sys", "KNOWLEDGE_LOREBOOK_BEFORE/system", "KNOWLEDGE_LOREBOOK_AFTER/system",
				"KNOWLEDGE_LOREBOOK_BEFORE/user", "KNOWLEDGE_LOREBOOK_AFTER/user", "h0"},
		},
		{
			name: "no lore",
			req:  prompt.Request{History: hist(5), Documents: docs},
			want: []string{"h0", "doc", "h1", "h2", "h3", "h4"},
		},
		{
			name: "author's note without its marker: 4 messages from the end, after the tail slot",
			req:  prompt.Request{History: hist(6), Documents: docs, Blocks: blocks, AuthorsNote: "AN"},
			want: []string{"KNOWLEDGE_LOREBOOK_BEFORE/system", "KNOWLEDGE_LOREBOOK_AFTER/system", "h0", "h1",
				"KNOWLEDGE_LOREBOOK_BEFORE/user", "KNOWLEDGE_LOREBOOK_AFTER/user", "doc", "AN", "h2", "h3", "h4", "h5"},
		},
		{
			name: "author's note and examples at their markers",
			req: prompt.Request{History: hist(2), AuthorsNote: "AN", Examples: "EX", Preset: []prompt.PresetItem{
				sys, {Marker: prompt.MarkerAuthorsNote}, {Marker: prompt.MarkerChatHistory}, {Marker: prompt.MarkerDialogueExamples},
			}},
			want: []string{"sys", "AN", "h0", "h1", "EX"},
		},
		{
			name: "examples without their marker: before the history, after unclaimed lore",
			req:  prompt.Request{History: hist(1), Blocks: blocks, Examples: "EX", Preset: []prompt.PresetItem{sys}},
			want: []string{"sys", "KNOWLEDGE_LOREBOOK_BEFORE/system", "KNOWLEDGE_LOREBOOK_AFTER/system", "EX",
				"KNOWLEDGE_LOREBOOK_BEFORE/user", "KNOWLEDGE_LOREBOOK_AFTER/user", "h0"},
		},
		{
			name: "markers without texts place nothing",
			req: prompt.Request{History: hist(1), Preset: []prompt.PresetItem{
				{Marker: prompt.MarkerAuthorsNote}, {Marker: prompt.MarkerDialogueExamples},
			}},
			want: []string{"h0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, summary(prompt.Assemble(tt.req)))
		})
	}
}

type words struct{}

func (words) CountTokens(s string) int { return len(strings.Fields(s)) }

func TestInspect(t *testing.T) {
	blocks := blocksOf([]activation.Admitted{
		adm("é😀", activation.AlwaysOn, lore.Before),
		adm("two words", activation.Activated, lore.Before),
	})
	got := prompt.Inspect(blocks, words{})
	require.Equal(t, []prompt.Section{
		{Label: "Lorebook (Before)", Tag: prompt.TagBefore, Blocks: 2, Entries: 2,
			Chars: len("[Lorebook (Before)]\n")*2 + 3 + len("two words"), Tokens: 3 + 4, Hint: "/memories"},
		{Label: "Lorebook (After)", Tag: prompt.TagAfter, Tokens: 0, Hint: "/memories"},
	}, got)
	require.Equal(t, -1, prompt.Inspect(blocks, nil)[0].Tokens)
}

func ExampleAssemble() {
	res, _ := activation.Activate(context.Background(), activation.Input{
		Entries: []lore.Entry{
			{ID: 1, Enabled: true, Probability: 100, Constant: true, Placement: lore.Before, Content: "{{char}} guards the glade."},
			{ID: 2, Enabled: true, Probability: 100, Keys: []string{"glade"}, Placement: lore.After, Content: "The glade is a safe haven."},
		},
		Collections: map[string]lore.Collection{lore.DefaultCollection: {Enabled: true}},
		Messages:    []string{"Where do we rest?", "In the glade."},
	}, activation.Options{CharName: "Seraphina"})
	history := []prompt.Message{
		{Kind: prompt.KindHistory, Role: lore.RoleUser, Content: "Where do we rest?"},
		{Kind: prompt.KindHistory, Role: lore.RoleAssistant, Content: "In the glade."},
	}
	for _, m := range prompt.Assemble(prompt.Request{History: history, Blocks: prompt.Blocks(&res)}) {
		fmt.Printf("%s: %q\n", m.Role, m.Content)
	}
	for _, s := range prompt.Inspect(prompt.Blocks(&res), nil) {
		fmt.Printf("%s: %d characters\n", s.Label, s.Chars)
	}
	// Output:
	// system: "[Lorebook (Before)]\nSeraphina guards the glade."
	// user: "[Lorebook (After)]\nThe glade is a safe haven."
	// user: "Where do we rest?"
	// assistant: "In the glade."
	// Lorebook (Before): 47 characters
	// Lorebook (After): 45 characters
}
