package activation

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestGateTrace: entries the turn's read left out get the gates' verdicts;
// one that passes them in a disabled category gets gated_category; an
// entry that passes the gates otherwise is not listed (its category, if
// any, is on).
func TestGateTrace(t *testing.T) {
	off := ent(1, []string{"glade"}, "x")
	off.Enabled = false
	inOff := ent(2, []string{"glade"}, "x")
	inOff.Collection = "Old"
	passes := ent(3, []string{"glade"}, "x")
	passes.CategoryID = 8 // an enabled category
	inOffCat := ent(4, []string{"glade"}, "x")
	inOffCat.CategoryID = 9
	offAndOffCat := ent(5, []string{"glade"}, "x")
	offAndOffCat.Enabled, offAndOffCat.CategoryID = false, 9
	in := baseInput(nil, "glade")
	in.Collections["Old"] = lore.Collection{Name: "Old"} // disabled
	got := GateTrace([]lore.Entry{off, inOff, passes, inOffCat, offAndOffCat}, &in, map[int64]string{9: "Spoilers"})
	require.Equal(t, []TraceItem{
		{ID: 1, Title: off.Title, Verdict: VerdictDisabled, Detail: "entry is disabled"},
		{ID: 2, Title: inOff.Title, Verdict: VerdictGatedCollection, Detail: `collection "Old" is disabled`, Params: lore.Params{"collection": "Old"}},
		{ID: 4, Title: inOffCat.Title, Verdict: VerdictGatedCategory, Detail: `category "Spoilers" is disabled`, Params: lore.Params{"category": "Spoilers"}},
		{ID: 5, Title: offAndOffCat.Title, Verdict: VerdictDisabled, Detail: "entry is disabled"},
	}, got)
}

// TestNearMiss: with NearMisses a no_key_match entry whose whole-word key
// occurs inside a word names it; without it, or with substring matching,
// or when the key is absent, the detail does not.
func TestNearMiss(t *testing.T) {
	const near = `near miss: key "glade" appears inside a word, and whole words are on`
	sensitive := true
	tests := []struct {
		name     string
		msg      string
		opts     Options
		caseSens *bool
		want     Verdict
		hasNear  bool
	}{
		{"inside a word", "We rest in the everglades.", Options{NearMisses: true}, nil, VerdictNoKeyMatch, true},
		{"inside a word, other case", "EVERGLADES", Options{NearMisses: true}, nil, VerdictNoKeyMatch, true},
		{"case-sensitive entry, other case", "EVERGLADES", Options{NearMisses: true}, &sensitive, VerdictNoKeyMatch, false},
		{"off", "We rest in the everglades.", Options{}, nil, VerdictNoKeyMatch, false},
		{"absent", "We rest by the river.", Options{NearMisses: true}, nil, VerdictNoKeyMatch, false},
		{"substring rule matches", "everglades", Options{NearMisses: true, Substring: true}, nil, VerdictAdmitted, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := ent(1, []string{"glade"}, "x")
			e.CaseSensitive = tc.caseSens
			res := run(t, baseInput([]lore.Entry{e}, tc.msg), tc.opts)
			require.Equal(t, tc.want, res.Trace[0].Verdict)
			require.Equal(t, tc.hasNear, strings.Contains(res.Trace[0].Detail, near), res.Trace[0].Detail)
		})
	}
}
