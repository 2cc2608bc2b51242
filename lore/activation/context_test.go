package activation

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestCharacterFilter pins the character filter rules (docs/authoring.md
// "Filters"): names and tags both need to match to include, either
// excludes; with no character in the request an include filter blocks and
// an exclude filter lets the entry pass. Constants are filtered too.
func TestCharacterFilter(t *testing.T) {
	alice := &Character{Name: "Alice", Tags: []string{"elf", "mage"}}
	bob := &Character{Name: "Bob", Tags: []string{"dwarf"}}
	tests := []struct {
		name   string
		filter lore.CharacterFilter
		char   *Character
		want   Verdict
	}{
		{"no filter, no character", lore.CharacterFilter{}, nil, VerdictAdmitted},
		{"names include Alice", lore.CharacterFilter{Names: []string{"Alice"}}, alice, VerdictAdmitted},
		{"names do not include Bob", lore.CharacterFilter{Names: []string{"Alice"}}, bob, VerdictFilteredCharacter},
		{"names compare exactly", lore.CharacterFilter{Names: []string{"alice"}}, alice, VerdictFilteredCharacter},
		{"tags include an elf", lore.CharacterFilter{Tags: []string{"elf"}}, alice, VerdictAdmitted},
		{"tags do not include a dwarf", lore.CharacterFilter{Tags: []string{"elf"}}, bob, VerdictFilteredCharacter},
		{"names and tags: both match", lore.CharacterFilter{Names: []string{"Alice"}, Tags: []string{"mage"}}, alice, VerdictAdmitted},
		{"names and tags: tag misses", lore.CharacterFilter{Names: []string{"Alice"}, Tags: []string{"dwarf"}}, alice, VerdictFilteredCharacter},
		{"names and tags: name misses", lore.CharacterFilter{Names: []string{"Bob"}, Tags: []string{"elf"}}, alice, VerdictFilteredCharacter},
		{"exclude Alice", lore.CharacterFilter{Names: []string{"Alice"}, Exclude: true}, alice, VerdictFilteredCharacter},
		{"exclude Alice lets Bob pass", lore.CharacterFilter{Names: []string{"Alice"}, Exclude: true}, bob, VerdictAdmitted},
		{"exclude on the name alone", lore.CharacterFilter{Names: []string{"Alice"}, Tags: []string{"dwarf"}, Exclude: true}, alice, VerdictFilteredCharacter},
		{"exclude on the tag alone", lore.CharacterFilter{Names: []string{"Carol"}, Tags: []string{"elf"}, Exclude: true}, alice, VerdictFilteredCharacter},
		{"exclude neither", lore.CharacterFilter{Names: []string{"Carol"}, Tags: []string{"orc"}, Exclude: true}, alice, VerdictAdmitted},
		{"no character: include blocks", lore.CharacterFilter{Names: []string{"Alice"}}, nil, VerdictFilteredCharacter},
		{"no character: tag include blocks", lore.CharacterFilter{Tags: []string{"elf"}}, nil, VerdictFilteredCharacter},
		{"no character: exclude passes", lore.CharacterFilter{Names: []string{"Alice"}, Exclude: true}, nil, VerdictAdmitted},
		{"character without tags: tag include blocks", lore.CharacterFilter{Tags: []string{"elf"}}, &Character{Name: "Alice"}, VerdictFilteredCharacter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keyed := ent(1, []string{"gate"}, "keyed")
			always := constant(2, "always")
			keyed.CharacterFilter, always.CharacterFilter = tt.filter, tt.filter
			in := baseInput([]lore.Entry{keyed, always}, "the gate")
			in.Character = tt.char
			res := run(t, in, Options{})
			require.Equal(t, map[int64]Verdict{1: tt.want, 2: tt.want}, verdicts(res))
			if tt.want == VerdictFilteredCharacter {
				require.Contains(t, res.Trace[0].Detail, "filter", "the detail names the filter")
			}
		})
	}
}

// TestGenerationTypes: empty generation types admit every type; otherwise
// the request's type (default normal) must be listed.
func TestGenerationTypes(t *testing.T) {
	tests := []struct {
		name  string
		types []lore.GenerationType
		gen   lore.GenerationType
		want  Verdict
	}{
		{"empty admits normal", nil, "", VerdictAdmitted},
		{"empty admits quiet", nil, lore.GenQuiet, VerdictAdmitted},
		{"continue only, default normal", []lore.GenerationType{lore.GenContinue}, "", VerdictFilteredGenerationType},
		{"continue only, continue", []lore.GenerationType{lore.GenContinue}, lore.GenContinue, VerdictAdmitted},
		{"normal listed, default", []lore.GenerationType{lore.GenSwipe, lore.GenNormal}, "", VerdictAdmitted},
		{"swipe only, regenerate", []lore.GenerationType{lore.GenSwipe}, lore.GenRegenerate, VerdictFilteredGenerationType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keyed := ent(1, []string{"gate"}, "keyed")
			always := constant(2, "always")
			keyed.GenerationTypes, always.GenerationTypes = tt.types, tt.types
			in := baseInput([]lore.Entry{keyed, always}, "the gate")
			in.GenerationType = tt.gen
			res := run(t, in, Options{})
			require.Equal(t, map[int64]Verdict{1: tt.want, 2: tt.want}, verdicts(res))
			if tt.want == VerdictFilteredGenerationType {
				require.Contains(t, res.Trace[0].Detail, "generation type")
			}
		})
	}
}

// TestContextSources: an entry's match flags add the request's context
// texts to what its keys scan (SillyTavern's match* flags); an entry with
// scan depth 0 scans nothing, its context sources neither.
func TestContextSources(t *testing.T) {
	char := &Character{Name: "Vex", Description: "a dragon rider", Personality: "stern", Scenario: "the siege",
		CreatorNotes: "notes about the comet", DepthPrompt: "remember the oath"}
	persona := &Persona{Name: "Ana", Description: "a healer from the marsh"}
	tests := []struct {
		name  string
		key   string
		match lore.MatchSources
		depth *int
		want  Verdict
	}{
		{"no flag: description not scanned", "dragon", lore.MatchSources{}, nil, VerdictNoKeyMatch},
		{"description", "dragon", lore.MatchSources{CharacterDescription: true}, nil, VerdictAdmitted},
		{"personality", "stern", lore.MatchSources{CharacterPersonality: true}, nil, VerdictAdmitted},
		{"scenario", "siege", lore.MatchSources{Scenario: true}, nil, VerdictAdmitted},
		{"creator notes", "comet", lore.MatchSources{CreatorNotes: true}, nil, VerdictAdmitted},
		{"depth prompt", "oath", lore.MatchSources{CharacterDepthPrompt: true}, nil, VerdictAdmitted},
		{"persona description", "marsh", lore.MatchSources{PersonaDescription: true}, nil, VerdictAdmitted},
		{"another source's text is not scanned", "marsh", lore.MatchSources{CharacterDescription: true}, nil, VerdictNoKeyMatch},
		{"scan depth 0 scans no source", "dragon", lore.MatchSources{CharacterDescription: true}, ptr(0), VerdictNoKeyMatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ent(1, []string{tt.key}, "x")
			e.Match, e.ScanDepth = tt.match, tt.depth
			other := ent(2, []string{"dragon"}, "y") // no flags: shares the matcher, reads the chat only
			in := baseInput([]lore.Entry{e, other}, "hello there")
			in.Character, in.Persona = char, persona
			res := run(t, in, Options{})
			require.Equal(t, tt.want, verdicts(res)[1])
			require.Equal(t, VerdictNoKeyMatch, verdicts(res)[2])
		})
	}
	// Without a character or persona in the request the flags add nothing.
	e := ent(1, []string{"dragon"}, "x")
	e.Match.CharacterDescription = true
	res := run(t, baseInput([]lore.Entry{e}, "hello"), Options{})
	require.Equal(t, VerdictNoKeyMatch, verdicts(res)[1])
}

// TestIncludeNames: with IncludeNames each message is scanned as "Name:
// content" (off by default, so a key naming the speaker does not match).
func TestIncludeNames(t *testing.T) {
	e := ent(1, []string{"Ann"}, "x")
	colon := ent(2, []string{"Ann: hello"}, "y")
	in := baseInput([]lore.Entry{e, colon}, "hello", "how are you")
	in.Names = []string{"Ann", "Bo"}
	res := run(t, in, Options{})
	require.Equal(t, map[int64]Verdict{1: VerdictNoKeyMatch, 2: VerdictNoKeyMatch}, verdicts(res))
	res = run(t, in, Options{IncludeNames: true})
	require.Equal(t, map[int64]Verdict{1: VerdictAdmitted, 2: VerdictAdmitted}, verdicts(res))
	in.Names = []string{"", "Bo"} // unknown speaker: the message is scanned as it is
	res = run(t, in, Options{IncludeNames: true})
	require.Equal(t, map[int64]Verdict{1: VerdictNoKeyMatch, 2: VerdictNoKeyMatch}, verdicts(res))
}

// TestContextHitsReused: one matcher's turns reuse the matches of the last
// context text, and a changed text is scanned again.
func TestContextHitsReused(t *testing.T) {
	e := ent(1, []string{"dragon"}, "x")
	e.Match.CharacterDescription = true
	other := ent(2, []string{"comet"}, "y")
	other.Match.CharacterDescription = true
	in := baseInput([]lore.Entry{e, other}, "hello")
	m := CompileInput(&in, Options{}.MatchOptions())
	for _, tt := range []struct {
		desc string
		want map[int64]Verdict
	}{
		{"a dragon rider", map[int64]Verdict{1: VerdictAdmitted, 2: VerdictNoKeyMatch}},
		{"a dragon rider", map[int64]Verdict{1: VerdictAdmitted, 2: VerdictNoKeyMatch}},
		{"a comet watcher", map[int64]Verdict{1: VerdictNoKeyMatch, 2: VerdictAdmitted}},
		{"a comet watcher", map[int64]Verdict{1: VerdictNoKeyMatch, 2: VerdictAdmitted}},
		{"a dragon rider", map[int64]Verdict{1: VerdictAdmitted, 2: VerdictNoKeyMatch}},
	} {
		in.Character = &Character{Description: tt.desc}
		res, err := m.Activate(t.Context(), in, Options{})
		require.NoError(t, err)
		require.Equal(t, tt.want, verdicts(res), tt.desc)
	}
}
