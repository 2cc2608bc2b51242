package graph

import (
	"errors"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/prompt"
)

// TestPresetOf: every SillyTavern prompt identifier is accepted; main
// places the system prompt (first without it); chatHistory is appended when
// missing; the system prompt's identity macros are resolved; anything else
// is bad input naming its position.
func TestPresetOf(t *testing.T) {
	sys := func(s string) prompt.PresetItem {
		return prompt.PresetItem{Message: prompt.Message{Kind: prompt.KindPreset, Role: lore.RoleSystem, Content: s}}
	}
	mk := func(m prompt.Marker) prompt.PresetItem { return prompt.PresetItem{Marker: m} }
	opts := activation.Options{UserName: "Ann", CharName: "Seraphina"}
	const system = "You are {{char}}, talking to {{USER}} as {{bot}}; {{random}} stays."
	const resolved = "You are Seraphina, talking to Ann as Seraphina; {{random}} stays."
	tests := []struct {
		name    string
		markers []string
		system  string
		want    []prompt.PresetItem
		bad     string
	}{
		{"no preset", nil, system, []prompt.PresetItem{sys(resolved), mk(prompt.MarkerChatHistory)}, ""},
		{"no system prompt", []string{"main", "chatHistory"}, "", []prompt.PresetItem{mk(prompt.MarkerChatHistory)}, ""},
		{"main places the system prompt", []string{"worldInfoBefore", "main", "chatHistory", "jailbreak"}, system,
			[]prompt.PresetItem{mk(prompt.MarkerWorldInfoBefore), sys(resolved), mk(prompt.MarkerChatHistory), mk("jailbreak")}, ""},
		{"main twice: the first", []string{"main", "chatHistory", "main"}, "S",
			[]prompt.PresetItem{sys("S"), mk(prompt.MarkerChatHistory)}, ""},
		{"unknown", []string{"main", "worldinfoBefore"}, "S", nil, "presetMarkers[1]"},
		{"unknown without main", []string{"chatHistory", "Main"}, "S", nil, "presetMarkers[1]"},
	}
	for _, m := range prompt.Markers() {
		if m == prompt.MarkerMain || m == prompt.MarkerChatHistory {
			continue
		}
		tests = append(tests, struct {
			name    string
			markers []string
			system  string
			want    []prompt.PresetItem
			bad     string
		}{"identifier " + string(m), []string{string(m)}, "S", []prompt.PresetItem{sys("S"), mk(m), mk(prompt.MarkerChatHistory)}, ""})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &model.AssemblePromptInput{PresetMarkers: graphql.OmittableOf(tc.markers)}
			if tc.system != "" {
				in.SystemPrompt = graphql.OmittableOf(&tc.system)
			}
			got, err := presetOf(in, &opts)
			if tc.bad != "" {
				var inv *lore.InvalidError
				require.True(t, errors.As(err, &inv), "%v", err)
				require.Equal(t, tc.bad, inv.Field)
				require.Contains(t, inv.Reason, "is not a SillyTavern prompt identifier (main, worldInfoBefore")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
