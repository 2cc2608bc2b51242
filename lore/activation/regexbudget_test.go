package activation

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestRegexBudget: the issue-18 repro (10 entries of 100 costly regex keys
// over a 10-message turn of 100 KiB) ends with regex_budget_exhausted
// verdicts instead of minutes of matching, while literal keys still match
// and an ordinary regex turn is untouched by the budget.
func TestRegexBudget(t *testing.T) {
	// The costliest keys the stored bounds let through (about 420
	// instructions each), distinct so the matcher cannot share them.
	var entries []lore.Entry
	for i := range 10 {
		keys := make([]string, 100)
		for j := range keys {
			keys[j] = fmt.Sprintf(`/[\s\S]{0,100}[\s\S]{0,100}z%d_%d/`, i, j)
		}
		entries = append(entries, ent(int64(i+1), keys, "x"))
	}
	entries = append(entries, ent(11, []string{"dragon"}, "literal"))
	lit := ent(12, []string{"/[\\s\\S]{0,100}[\\s\\S]{0,100}never/", "dragon"}, "literal after regex")
	entries = append(entries, lit)
	msgs := make([]string, 10)
	for i := range msgs {
		msgs[i] = strings.Repeat("lorem ipsum dolor sit amet ", 380)[:10<<10]
	}
	msgs[9] += " a dragon"
	d := 10
	for i := range entries {
		entries[i].ScanDepth = &d
	}
	m := Compile(entries, MatchOptions{RegexKeys: true})
	var compiled, total int64
	for i := range m.regexCost {
		require.LessOrEqual(t, m.regexCost[i], int64(lore.MaxRegexProgram))
		if m.regexes[i] != nil {
			compiled++
			total += m.regexCost[i]
		}
	}
	// The matcher compiles keys up to MaxMatcherRegexProgram only: the
	// first 200-odd keys (entries 1 and 2 and part of 3).
	require.LessOrEqual(t, total, int64(MaxMatcherRegexProgram))
	require.Greater(t, compiled, int64(200))
	require.Less(t, compiled, int64(300))
	require.Greater(t, total*int64(len(msgs))*int64(10<<10), int64(100*RegexBudget), "the repro is far over the budget")
	res, err := m.Activate(context.Background(), baseInput(entries, msgs...), Options{RegexKeys: true})
	require.NoError(t, err)
	v := verdicts(res)
	for i := int64(1); i <= 3; i++ {
		require.Equal(t, VerdictRegexBudgetExhausted, v[i], "entry %d", i)
	}
	for i := int64(4); i <= 10; i++ {
		require.Equal(t, VerdictNoKeyMatch, v[i], "entry %d", i)
		require.Contains(t, res.Trace[i-1].Detail, "together exceed 100000 RE2 instructions")
	}
	require.Equal(t, VerdictAdmitted, v[11], "literal keys are not part of the budget")
	require.Equal(t, VerdictAdmitted, v[12], "a literal key after an unevaluated regex key still matches")
	for _, tr := range res.Trace {
		if tr.Verdict == VerdictRegexBudgetExhausted {
			require.Contains(t, tr.Detail, "regex budget")
		}
	}

	// An ordinary turn: 100 small regex keys over 10 short messages.
	var small []lore.Entry
	for i := range 10 {
		keys := make([]string, 10)
		for j := range keys {
			keys[j] = fmt.Sprintf(`/\bdragon%d_%ds?\b/i`, i, j)
		}
		small = append(small, ent(int64(i+1), keys, "x"))
	}
	small[3].Keys[4] = `/\bwyrms?\b/i`
	short := make([]string, 10)
	for i := range short {
		short[i] = strings.Repeat("the party rests at the inn ", 20)
	}
	short[9] += "A WYRM!"
	for i := range small {
		small[i].ScanDepth = &d
	}
	res, err = Activate(context.Background(), baseInput(small, short...), Options{RegexKeys: true})
	require.NoError(t, err)
	v = verdicts(res)
	for i := int64(1); i <= 10; i++ {
		want := VerdictNoKeyMatch
		if i == 4 {
			want = VerdictAdmitted
		}
		require.Equal(t, want, v[i], "entry %d", i)
	}
}

// TestRegexBoundsInert: keys over the stored bounds never match and the
// trace names the bound.
func TestRegexBoundsInert(t *testing.T) {
	for _, tt := range []struct{ key, detail string }{
		{`/[\s\S]{0,1000}z/`, "repeats 1000 times"},
		{`/(a{20}){20}/`, "repeats 400 times"},
		{`/[\s\S]{0,100}[\s\S]{0,100}[\s\S]{0,100}z/`, "instructions"},
	} {
		res := run(t, baseInput([]lore.Entry{ent(1, []string{tt.key}, "x")}, strings.Repeat("a", 500)+"z"), Options{RegexKeys: true})
		require.Equal(t, VerdictNoKeyMatch, res.Trace[0].Verdict, tt.key)
		require.Contains(t, res.Trace[0].Detail, tt.detail, tt.key)
	}
}
