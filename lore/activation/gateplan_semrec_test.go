package activation

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestGatePlanSemanticRecursion: a quiet keyword entry of the gate plan
// that pass 1 admits by similarity must not be woken again by recursion
// text (it was never asleep): the cached matcher's turns, with the plan,
// admit what a fresh compile admits, entry 4 included (reached only
// through entry 3's content in pass 3).
func TestGatePlanSemanticRecursion(t *testing.T) {
	entries := []lore.Entry{
		constant(1, "the beta rises"),
		ent(2, []string{"beta"}, "nothing here"),
		ent(3, []string{"beta"}, "then alpha came"),
		ent(4, []string{"alpha"}, "done"),
	}
	in := baseInput(entries, "hello there")
	opts := Options{Random: noDraw, CharBudget: 2000, Recursive: true}
	m := CompileInput(&in, opts.MatchOptions())
	set := new(int)
	for turn := range 5 {
		in := in
		in.Semantic = &Semantic{Scores: setScores{set, ScoreMap{2: 0.9}}, Threshold: 0.5, MaxEntries: 2, Ranker: "lexical"}
		o := opts
		o.SkipTrace = turn > 0
		fresh, err := Activate(context.Background(), in, o)
		require.NoError(t, err)
		got, err := m.Activate(context.Background(), in, o)
		require.NoError(t, err)
		require.Equal(t, []int64{1, 2, 3, 4}, admittedIDs(fresh), "turn %d", turn)
		require.Equal(t, admittedIDs(fresh), admittedIDs(got), "turn %d", turn)
	}
}
