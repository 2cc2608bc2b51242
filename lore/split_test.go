package lore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

func TestJoinSplit(t *testing.T) {
	part := func(id int64, coll, group string, i, n int, content string) lore.Entry {
		e := lore.NewEntry()
		e.ID, e.Collection, e.Title, e.Content, e.Keys = id, coll, "long", content, []string{"k"}
		e.SetSplit(lore.SplitRef{Group: group, Part: i, Parts: n})
		return e
	}
	whole := lore.NewEntry()
	whole.ID, whole.Collection, whole.Content = 9, "A", "whole"
	in := []lore.Entry{
		part(3, "A", "g1", 1, 2, "second"),
		whole,
		part(2, "A", "g1", 0, 2, "first "),
		part(5, "B", "g1", 0, 1, "other book"),
	}
	out := lore.JoinSplit(in)
	require.Len(t, out, 3)
	require.Equal(t, "first second", out[0].Content)
	require.Equal(t, int64(2), out[0].ID, "the first part's id")
	require.Nil(t, out[0].Extensions)
	_, isPart := out[0].Split()
	require.False(t, isPart)
	require.Equal(t, whole, out[1])
	require.Equal(t, "other book", out[2].Content, "same group id in another collection is another group")
	r, ok := in[0].Split()
	require.True(t, ok, "input not modified")
	require.Equal(t, lore.SplitRef{Group: "g1", Part: 1, Parts: 2}, r)
}

func TestLimitsValidate(t *testing.T) {
	tests := []struct {
		name string
		l    lore.Limits
		err  string
	}{
		{"defaults", lore.Limits{}, ""},
		{"ceilings", lore.CeilingLimits(), ""},
		{"below contract", lore.Limits{ScopeEntries: 10}, "LOREGATE_MAX_SCOPE_ENTRIES=10 is outside 250-5000"},
		{"over ceiling", lore.Limits{ContentChars: lore.CeilingContentChars + 1}, "LOREGATE_MAX_CONTENT_CHARS=100001 is outside 4000-100000"},
		{"json over ceiling", lore.Limits{JSONBytes: 1 << 30}, "LOREGATE_MAX_JSON_BYTES"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.l.Validate()
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}
