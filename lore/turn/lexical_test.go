package turn_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/semantic"
	"loregate/lore/turn"
	"loregate/lore/turnstate"
)

// admittedScores are a turn's admitted entries' ids and scores (-1: none).
func admittedScores(out turn.Outcome) [][2]float64 {
	var got [][2]float64
	for _, a := range out.Result.Admitted() {
		s := -1.0
		if a.Score != nil {
			s = *a.Score
		}
		got = append(got, [2]float64{float64(a.Entry.ID), s})
	}
	return got
}

// TestLexicalTurnsKeepScores: turns through one compiled matcher and one
// lexical index, as the scope cache keeps them (the engine's gate plan,
// the index's term memo, the sums kept for the admitted entries' scores),
// admit the same entries with the same scores, bit for bit, as each turn
// through a freshly compiled matcher and a new index, with and without the
// trace: a conversation bringing one new message a turn over 250 entries,
// each query twice.
func TestLexicalTurnsKeepScores(t *testing.T) {
	ctx := context.Background()
	entries, msgs := lexicalBenchBook(250)
	snap := lore.Snapshot{Server: lore.Server{Settings: lore.DefaultServerSettings()}, Entries: entries,
		Collections: map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true}}}
	ranker := lore.RankerLexical
	var m *activation.Matcher
	kept := keptRankers()
	run := func(chat []string, trace bool, rk turn.Rankers, fresh bool) turn.Outcome {
		tr, err := turn.Prepare(snap, turn.Request{Messages: chat, Trace: trace,
			Overrides: turn.Overrides{SemanticRanker: &ranker, Budget: ptr(2000000)}})
		require.NoError(t, err)
		mm := m
		if fresh || m == nil {
			mm = activation.CompileInput(&tr.Input, tr.Options.MatchOptions())
			if !fresh {
				m = mm
			}
		}
		tr.Rank(ctx, rk)
		out, err := turn.DryRun(ctx, mm, tr, nil, turnstate.Conversation{})
		require.NoError(t, err)
		return out
	}
	similar, keyed := 0, 0 // admitted by similarity; by keys, scoring below the threshold
	for k, chat := range lexicalBenchConversation(entries, msgs)[:20] {
		for rep := range 2 {
			trace := (k+rep)%3 == 0
			want := admittedScores(run(chat, trace, turn.Rankers{}, true))
			got := admittedScores(run(chat, trace, kept, false))
			require.Equal(t, want, got, "chat %d, time %d, trace %v", k, rep, trace)
			for _, a := range got {
				switch {
				case a[1] >= semantic.DefaultThreshold:
					similar++
				case a[1] > 0:
					keyed++
				}
			}
		}
	}
	require.Positive(t, similar, "entries admitted by similarity")
	require.Positive(t, keyed, "entries admitted by their keys with a score below the threshold")
}
