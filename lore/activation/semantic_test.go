package activation

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestSemanticAdmission: similarity admits keyless candidates in pass 1,
// best first up to the cap, at or above the threshold; a keyword hit wins;
// gates, chance, groups and the budget apply as to a keyword hit; scores
// are in the trace and the result (docs/contract.md#semantic).
func TestSemanticAdmission(t *testing.T) {
	keyless := func(id int64) lore.Entry { return ent(id, nil, "lore "+string(rune('a'+id))) }
	sem := func(scores map[int64]float64, max int) *Semantic {
		return &Semantic{Scores: ScoreMap(scores), Threshold: 0.25, MaxEntries: max, Ranker: "lexical"}
	}
	tests := []struct {
		name    string
		entries []lore.Entry
		sem     *Semantic
		edit    func(*Input, *Options)
		want    map[int64]Verdict
		admit   []int64
	}{
		{"threshold and cap", []lore.Entry{keyless(1), keyless(2), keyless(3), keyless(4)},
			sem(map[int64]float64{1: 0.3, 2: 0.9, 3: 0.1, 4: 0.25}, 2), nil,
			map[int64]Verdict{1: VerdictSemanticMatch, 2: VerdictSemanticMatch, 3: VerdictBelowThreshold, 4: VerdictOverSemanticCap},
			[]int64{1, 2}},
		{"ties by insertion order", []lore.Entry{keyless(1), keyless(2)},
			sem(map[int64]float64{1: 0.5, 2: 0.5}, 1), nil,
			map[int64]Verdict{1: VerdictSemanticMatch, 2: VerdictOverSemanticCap}, []int64{1}},
		{"keyword hit wins and takes no cap", []lore.Entry{ent(1, []string{"dragon"}, "d"), keyless(2)},
			sem(map[int64]float64{1: 0.9, 2: 0.8}, 1), nil,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictSemanticMatch}, []int64{1, 2}},
		{"keyed candidate without a hit", []lore.Entry{ent(1, []string{"wyvern"}, "w")},
			sem(map[int64]float64{1: 0.7}, 5), nil,
			map[int64]Verdict{1: VerdictSemanticMatch}, []int64{1}},
		{"no candidates: keys alone", []lore.Entry{keyless(1), ent(2, []string{"dragon"}, "d")},
			sem(map[int64]float64{}, 5), nil,
			map[int64]Verdict{1: VerdictNoKeyMatch, 2: VerdictAdmitted}, []int64{2}},
		{"gates first", []lore.Entry{func() lore.Entry { e := keyless(1); e.Enabled = false; return e }(), keyless(2)},
			sem(map[int64]float64{1: 0.9, 2: 0.5}, 1), nil,
			map[int64]Verdict{1: VerdictDisabled, 2: VerdictSemanticMatch}, []int64{2}},
		{"chance", []lore.Entry{func() lore.Entry { e := keyless(1); e.Probability = 50; return e }()},
			sem(map[int64]float64{1: 0.9}, 1), func(_ *Input, o *Options) { o.Random = func() float64 { return 0.9 } },
			map[int64]Verdict{1: VerdictChanceFailed}, nil},
		{"groups", []lore.Entry{func() lore.Entry { e := keyless(1); e.Group, e.GroupOverride = "g", true; return e }(),
			func() lore.Entry { e := keyless(2); e.Group = "g"; return e }()},
			sem(map[int64]float64{1: 0.4, 2: 0.9}, 5), nil,
			map[int64]Verdict{1: VerdictSemanticMatch, 2: VerdictGroupLost}, []int64{1}},
		{"budget", []lore.Entry{func() lore.Entry { e := keyless(1); e.Content = "a long piece of lore"; return e }(), keyless(2)},
			sem(map[int64]float64{1: 0.9, 2: 0.5}, 5), func(_ *Input, o *Options) { o.CharBudget = 10 },
			map[int64]Verdict{1: VerdictOverBudget, 2: VerdictSemanticMatch}, []int64{2}},
		{"the entry cap counts similarity admissions", []lore.Entry{ent(1, []string{"dragon"}, "d"), keyless(2)},
			sem(map[int64]float64{2: 0.9}, 5), func(_ *Input, o *Options) { o.MaxEntries = 1 },
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictOverEntryCap}, []int64{1}},
		{"delayed until recursion is no candidate", []lore.Entry{func() lore.Entry { e := keyless(1); e.DelayUntilRecursion = 1; return e }()},
			sem(map[int64]float64{1: 0.9}, 5), nil,
			map[int64]Verdict{1: VerdictDelayedUntilRecursion}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := baseInput(tc.entries, "a dragon flew by")
			in.Semantic = tc.sem
			opts := Options{Random: noDraw}
			if tc.edit != nil {
				tc.edit(&in, &opts)
			}
			res := run(t, in, opts)
			require.Equal(t, tc.want, verdicts(res))
			if tc.admit == nil {
				tc.admit = []int64{}
			}
			require.ElementsMatch(t, tc.admit, admittedIDs(res))
			for _, tr := range res.Trace {
				sc, scored := tc.sem.Scores.Score(tr.ID)
				if !scored || tr.Verdict == VerdictDisabled || tr.Verdict == VerdictDelayedUntilRecursion {
					require.Nil(t, tr.Score, "entry %d has a score", tr.ID)
					continue
				}
				require.NotNil(t, tr.Score, "entry %d (%s) has no score", tr.ID, tr.Verdict)
				require.InDelta(t, sc, *tr.Score, 1e-6)
				if tr.Verdict == VerdictSemanticMatch || tr.Verdict == VerdictBelowThreshold {
					require.Contains(t, tr.Detail, "(lexical)")
				}
			}
			for _, a := range res.Admitted() {
				if _, scored := tc.sem.Scores.Score(a.Entry.ID); scored {
					require.NotNil(t, a.Score)
				}
			}
			// Without a trace the same entries are admitted.
			opts.SkipTrace = true
			again, err := Activate(t.Context(), in, opts)
			require.NoError(t, err)
			require.ElementsMatch(t, tc.admit, admittedIDs(again))
		})
	}
}

// TestSemanticRecursion: content admitted by similarity feeds recursion
// like any admitted content, and recursion never feeds similarity (a
// keyless candidate is decided in pass 1).
func TestSemanticRecursion(t *testing.T) {
	a := ent(1, nil, "the spirit Tohka wields Sandalphon")
	b := ent(2, []string{"sandalphon"}, "a throne-sword")
	c := ent(3, nil, "unrelated")
	in := baseInput([]lore.Entry{a, b, c}, "tell me of her angel")
	in.Semantic = &Semantic{Scores: ScoreMap{1: 0.8, 3: 0.1}, Threshold: 0.25, MaxEntries: 5}
	res := run(t, in, Options{Recursive: true, Random: noDraw})
	require.Equal(t, map[int64]Verdict{1: VerdictSemanticMatch, 2: VerdictAdmitted, 3: VerdictBelowThreshold}, verdicts(res))
	for _, tr := range res.Trace {
		if tr.ID == 2 {
			require.Equal(t, int64(1), tr.TriggeredBy)
			require.Equal(t, 2, tr.Pass)
		}
		if tr.ID == 3 {
			require.Equal(t, 1, tr.Pass)
		}
	}
}
