package decorator

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		content string
		names   []string
		body    string
	}{
		{"no decorators", "  plain text\n", nil, "  plain text\n"},
		{"one flag", "@@dont_activate\nThe tunnel.", []string{"dont_activate"}, "The tunnel."},
		{"leading space and CRLF", " \r\n@@activate\r\n@@depth 4\r\nTides.\r\n", []string{"activate", "depth"}, "Tides."},
		{"blank line ends the header", "@@activate\n\n@@depth 4\nText", []string{"activate"}, "@@depth 4\nText"},
		{"fallback", "@@instruct_depth 3\n@@@depth 3\nText", []string{"instruct_depth", "depth"}, "Text"},
		{"bad name ends the header", "@@ not a name\nText", nil, "@@ not a name\nText"},
		{"only decorators", "@@activate", []string{"activate"}, ""},
		{"at-signs inside the body stay", "Mail me @@home", nil, "Mail me @@home"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decs, body := Parse(tt.content)
			var names []string
			for _, d := range decs {
				names = append(names, d.Name)
			}
			require.Equal(t, tt.names, names)
			require.Equal(t, tt.body, body)
		})
	}
	decs, _ := Parse("@@additional_keys  a , b,, c \n@@@role user\nx")
	require.Equal(t, []string{"a", "b", "c"}, decs[0].Args)
	require.Equal(t, "a , b,, c", decs[0].Value)
	require.True(t, decs[1].Fallback)
}

func TestResolve(t *testing.T) {
	set, body := ParseSet("@@activate\n@@dont_activate\n@@scan_depth 0\n@@probability 40\n@@order 7\n@@priority -3\n" +
		"@@depth 2\n@@position after_desc\n@@role Assistant\n@@additional_keys a,b\n@@additional_keys c\n" +
		"@@exclude_keys x\n@@exclude_keys_all y,z\n@@is_greeting\n@@ignore_on_max_context\n@@activate_only_after 4\n" +
		"@@activate_only_every 3\n@@keep_activate_after_match\n@@dont_activate_after_match\n@@match_partial_word\n" +
		"@@no_recursive_search\n@@unrecursive\nBody")
	require.Equal(t, "Body", body)
	require.True(t, set.Activate && set.DontActivate && set.IsGreeting && set.IgnoreOnMaxContext)
	require.True(t, set.KeepActivateAfterMatch && set.DontActivateAfterMatch && set.ExcludeRecursion && set.PreventRecursion)
	require.Equal(t, 0, *set.ScanDepth)
	require.Equal(t, 40, *set.Probability)
	require.Equal(t, 7, *set.Order)
	require.Equal(t, -3, *set.Priority)
	require.Equal(t, 2, *set.Depth)
	require.Equal(t, lore.PositionAfterChar, *set.Position)
	require.False(t, set.PositionCollapsed)
	require.Equal(t, lore.RoleAssistant, set.Role)
	require.Equal(t, []string{"a", "b", "c"}, set.AdditionalKeys)
	require.Equal(t, []string{"x"}, set.ExcludeKeys)
	require.Equal(t, []string{"y", "z"}, set.ExcludeKeysAll)
	require.Equal(t, 4, *set.ActivateOnlyAfter)
	require.Equal(t, 3, *set.ActivateOnlyEvery)
	require.False(t, *set.WholeWords)
	require.Empty(t, set.Ignored)
	require.False(t, set.IsZero())

	tests := []struct {
		name    string
		content string
		ignored []Ignored
		check   func(*testing.T, Set)
	}{
		{"unknown is reported", "@@sparkle\nx", []Ignored{{"@@sparkle", ReasonUnknown}}, nil},
		{"invalid value", "@@scan_depth 101\n@@probability x\n@@role narrator\n@@position sideways\n@@position outlet\nx",
			[]Ignored{{"@@scan_depth 101", ReasonInvalid}, {"@@probability x", ReasonInvalid},
				{"@@role narrator", ReasonInvalid}, {"@@position sideways", ReasonInvalid}, {"@@position outlet", ReasonInvalid}},
			func(t *testing.T, s Set) { require.Nil(t, s.ScanDepth); require.Empty(t, s.Role) }},
		{"first scalar wins", "@@order 1\n@@order 2\nx", []Ignored{{"@@order 2", ReasonRepeated}},
			func(t *testing.T, s Set) { require.Equal(t, 1, *s.Order) }},
		{"fallback used after an unknown one", "@@instruct_depth 3\n@@@depth 5\nx", []Ignored{{"@@instruct_depth 3", ReasonUnknown}},
			func(t *testing.T, s Set) { require.Equal(t, 5, *s.Depth) }},
		{"fallback chain", "@@instruct_depth 3\n@@@reverse_instruct_depth 2\n@@@depth 4\n@@@depth 9\nx",
			[]Ignored{{"@@instruct_depth 3", ReasonUnknown}, {"@@@reverse_instruct_depth 2", ReasonUnknown}},
			func(t *testing.T, s Set) { require.Equal(t, 4, *s.Depth) }},
		{"fallback skipped after a handled one", "@@depth 2\n@@@depth 7\nx", nil,
			func(t *testing.T, s Set) { require.Equal(t, 2, *s.Depth) }},
		{"flag takes no value check", "@@is_greeting 0\nx", nil, func(t *testing.T, s Set) { require.True(t, s.IsGreeting) }},
		{"empty keys are invalid", "@@additional_keys , \nx", []Ignored{{"@@additional_keys , ", ReasonInvalid}}, nil},
		{"before placement", "@@position before_desc\nx", nil, func(t *testing.T, s Set) {
			require.Equal(t, lore.PositionBeforeChar, *s.Position)
			require.False(t, s.PositionCollapsed)
		}},
		{"prompt-template slot: kept at the nearest kind, collapsed", "@@position pt_main\nx", nil, func(t *testing.T, s Set) {
			require.Equal(t, lore.PositionAfterChar, *s.Position)
			require.True(t, s.PositionCollapsed)
			require.Equal(t, lore.PositionAfterChar, s.Kind(lore.PositionBeforeChar))
		}},
		{"a kind by name", "@@position an_bottom\nx", nil, func(t *testing.T, s Set) { require.Equal(t, lore.PositionANBottom, *s.Position) }},
		{"depth is AT_DEPTH", "@@depth 3\nx", nil, func(t *testing.T, s Set) { require.Equal(t, lore.PositionAtDepth, s.Kind(lore.PositionAfterChar)) }},
		{"reverse depth is AT_DEPTH", "@@reverse_depth 1\nx", nil, func(t *testing.T, s Set) {
			require.Equal(t, 1, *s.ReverseDepth)
			require.Equal(t, lore.PositionAtDepth, s.Kind(lore.PositionAfterChar))
		}},
		{"no decorator keeps the entry's kind", "x", nil, func(t *testing.T, s Set) { require.Equal(t, lore.PositionEMTop, s.Kind(lore.PositionEMTop)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := ParseSet(tt.content)
			require.Equal(t, tt.ignored, s.Ignored)
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
	require.True(t, Known("activate"))
	require.False(t, Known("sparkle"))
}

// FuzzParse checks that Parse never panics, that every decorator is one
// "@@" line, that the body is trimmed and that the line ending the header
// is not a decorator line.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "@@", "@@activate\nx", "@@@depth 3\n@@x\n\ny", "@@a b,c\r\n@@@d\n", "\n @@role user\nz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		decs, body := Parse(content)
		set := Resolve(decs)
		if decs == nil {
			require.Equal(t, content, body)
			require.True(t, set.IsZero())
			return
		}
		require.Equal(t, strings.TrimSpace(body), body)
		for _, d := range decs {
			require.True(t, strings.HasPrefix(d.Line, "@@"))
			require.NotEmpty(t, d.Name)
			require.NotContains(t, d.Line, "\n")
		}
		if utf8.ValidString(content) {
			require.LessOrEqual(t, len(body), len(content))
		}
		// The line that ended the header is not a decorator line.
		rest := strings.TrimSpace(content)
		for range decs {
			_, rest, _ = strings.Cut(rest, "\n")
		}
		if rest != "" {
			first, _, _ := strings.Cut(rest, "\n")
			_, ok := parseLine(strings.TrimRight(first, "\r"))
			require.False(t, ok, "line %q ended the header", first)
		}
	})
}
