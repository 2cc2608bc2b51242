package lore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

func TestReplacementApply(t *testing.T) {
	base := lore.NewEntry()
	base.Title, base.Content = "Dragon lair", "The dragon (a.k.a. DRAGON) sleeps."
	base.Keys, base.SecondaryKeys = []string{"dragon", "wyrm"}, []string{"Dragon's gold"}
	for _, tc := range []struct {
		name    string
		r       lore.Replacement
		changed bool
		title   string
		content string
		keys    []string
		second  []string
	}{
		{"every field, any case", lore.Replacement{Find: "dragon", With: "drake", Title: true, Keys: true, Content: true}, true,
			"drake lair", "The drake (a.k.a. drake) sleeps.", []string{"drake", "wyrm"}, []string{"drake's gold"}},
		{"case-sensitive", lore.Replacement{Find: "DRAGON", With: "x", Content: true, CaseSensitive: true}, true,
			"Dragon lair", "The dragon (a.k.a. x) sleeps.", []string{"dragon", "wyrm"}, []string{"Dragon's gold"}},
		{"literal, not a pattern", lore.Replacement{Find: "(a.k.a.", With: "$1", Content: true}, true,
			"Dragon lair", "The dragon $1 DRAGON) sleeps.", []string{"dragon", "wyrm"}, []string{"Dragon's gold"}},
		{"title only", lore.Replacement{Find: "lair", With: "den", Title: true}, true,
			"Dragon den", base.Content, base.Keys, base.SecondaryKeys},
		{"no match", lore.Replacement{Find: "unicorn", With: "x", Title: true, Keys: true, Content: true}, false,
			base.Title, base.Content, base.Keys, base.SecondaryKeys},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, tc.r.Validate())
			got, changed := tc.r.Apply(base)
			require.Equal(t, tc.changed, changed)
			require.Equal(t, tc.title, got.Title)
			require.Equal(t, tc.content, got.Content)
			require.Equal(t, tc.keys, got.Keys)
			require.Equal(t, tc.second, got.SecondaryKeys)
			require.Equal(t, "dragon", base.Keys[0], "the input is not changed")
		})
	}
	for _, tc := range []struct {
		r     lore.Replacement
		field string
	}{
		{lore.Replacement{Find: " ", Content: true}, "find"},
		{lore.Replacement{Find: "x"}, "fields"},
	} {
		err := tc.r.Validate()
		var ie *lore.InvalidError
		require.ErrorAs(t, err, &ie)
		require.Equal(t, tc.field, ie.Field)
	}
}
