package activation

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/i18n"
)

// TestSemanticBudgetShare: the pass that admits by similarity holds up to
// BudgetShare of the budget, as much as its similarity matches cost;
// keyword and Always On entries claim the rest, similarity matches what
// is held plus what the others left; no match (or one that lost its
// inclusion group), no share or no limit holds nothing; the trace says
// which share an over_budget entry failed (docs/contract.md#semantic-budget).
func TestSemanticBudgetShare(t *testing.T) {
	constant := func(id int64, n int) lore.Entry {
		e := ent(id, nil, strings.Repeat("c", n))
		e.Constant = true
		return e
	}
	keyless := func(id int64, n int) lore.Entry { return ent(id, nil, strings.Repeat("s", n)) }
	keyword := func(id int64, n int) lore.Entry { return ent(id, []string{"hello"}, strings.Repeat("k", n)) }
	prio := func(e lore.Entry, p int) lore.Entry { e.Priority = p; return e }
	group := func(e lore.Entry, override bool) lore.Entry { e.Group, e.GroupOverride = "g", override; return e }
	tests := []struct {
		name    string
		entries []lore.Entry
		scores  ScoreMap
		share   float64
		budget  int
		want    map[int64]Verdict
		keys    map[int64]string         // reason keys of over_budget items
		params  map[int64]map[string]any // their params beyond pass and priority
	}{
		{"constants leave the held share", []lore.Entry{constant(1, 60), constant(2, 40), keyless(3, 20)},
			ScoreMap{3: 0.9}, 0.25, 100,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictOverBudget, 3: VerdictSemanticMatch},
			map[int64]string{2: "over_budget_keyword_share"},
			map[int64]map[string]any{2: {"share": "keyword", "held": 20, "limit": 100}}},
		{"no similarity match holds nothing", []lore.Entry{constant(1, 60), constant(2, 40), keyless(3, 20)},
			ScoreMap{3: 0.1}, 0.25, 100,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictAdmitted, 3: VerdictBelowThreshold}, nil, nil},
		{"share 0 holds nothing", []lore.Entry{constant(1, 60), constant(2, 40), keyless(3, 20)},
			ScoreMap{3: 0.9}, 0, 100,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictAdmitted, 3: VerdictOverBudget},
			map[int64]string{3: "over_budget_always_on"},
			map[int64]map[string]any{3: {"alwaysOn": 100, "limit": 100}}},
		{"matches past the share use what the others left", []lore.Entry{constant(1, 50), keyless(2, 30), keyless(3, 30)},
			ScoreMap{2: 0.9, 3: 0.8}, 0.25, 100,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictSemanticMatch, 3: VerdictOverBudget},
			map[int64]string{3: "over_budget_semantic_share"},
			map[int64]map[string]any{3: {"share": "semantic", "held": 25, "limit": 100}}},
		{"what does not fit anyway is plain over_budget", []lore.Entry{constant(1, 90), constant(2, 40), keyless(3, 10)},
			ScoreMap{3: 0.9}, 0.25, 100,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictOverBudget, 3: VerdictSemanticMatch},
			map[int64]string{2: "over_budget"}, map[int64]map[string]any{2: {}}},
		{"a match never holds out a higher-priority entry", []lore.Entry{prio(keyword(1, 90), 200), prio(keyless(2, 20), 50)},
			ScoreMap{2: 0.9}, 0.25, 100,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictOverBudget},
			map[int64]string{2: "over_budget_semantic_share"}, nil},
		{"a lower-priority entry is held out", []lore.Entry{prio(keyword(1, 90), 50), prio(keyless(2, 20), 200)},
			ScoreMap{2: 0.9}, 0.25, 100,
			map[int64]Verdict{1: VerdictOverBudget, 2: VerdictSemanticMatch},
			map[int64]string{1: "over_budget"}, nil},
		{"a match that did not fit holds nothing after it", []lore.Entry{constant(1, 50), prio(keyless(2, 110), 150), keyword(3, 30)},
			ScoreMap{2: 0.9}, 0.25, 100,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictOverBudget, 3: VerdictAdmitted},
			map[int64]string{2: "over_budget_semantic_share"}, nil},
		{"a match that lost its group holds nothing", []lore.Entry{keyword(1, 60), group(keyword(2, 10), true), group(keyless(3, 20), false), keyword(4, 30)},
			ScoreMap{3: 0.9}, 0.25, 100,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictAdmitted, 3: VerdictGroupLost, 4: VerdictAdmitted}, nil, nil},
		{"unlimited budget", []lore.Entry{constant(1, 60), constant(2, 40), keyless(3, 20)},
			ScoreMap{3: 0.9}, 0.25, -1,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictAdmitted, 3: VerdictSemanticMatch}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := baseInput(tc.entries, "hello")
			in.Semantic = &Semantic{Scores: tc.scores, Threshold: 0.25, MaxEntries: 5, Ranker: "lexical", BudgetShare: tc.share}
			res := run(t, in, Options{Random: noDraw, CharBudget: tc.budget})
			require.Equal(t, tc.want, verdicts(res))
			require.LessOrEqual(t, res.Budget.Used, max(tc.budget, res.Budget.Used*boolInt(tc.budget < 0)))
			for _, tr := range res.Trace {
				if tr.Verdict != VerdictOverBudget {
					continue
				}
				key, params := tr.Reason(nil)
				require.Equal(t, tc.keys[tr.ID], key, "entry %d: %s", tr.ID, tr.Detail)
				for name, v := range tc.params[tr.ID] {
					require.Equal(t, v, params[name], "entry %d param %s", tr.ID, name)
				}
				for _, lang := range i18n.Langs() {
					require.NotContains(t, i18n.Text(lang, key, params), "{", "entry %d %s in %s", tr.ID, key, lang)
				}
				switch key {
				case "over_budget_keyword_share":
					require.Contains(t, tr.Detail, "held for similarity matches")
				case "over_budget_semantic_share":
					require.Contains(t, tr.Detail, "left for similarity matches")
				}
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSemanticBudgetShareUntraced: a turn without a trace, whose entries
// that fit take admitAll's inline way, admits what the traced turn admits
// while similarity matches hold a share: a match claims its share as it
// is admitted, so what it leaves is no longer held from the entries after
// it; one still waiting holds its cost from them.
func TestSemanticBudgetShareUntraced(t *testing.T) {
	keyless := func(id int64, n int) lore.Entry { return ent(id, nil, strings.Repeat("s", n)) }
	keyword := func(id int64, n int) lore.Entry { return ent(id, []string{"hello"}, strings.Repeat("k", n)) }
	prio := func(e lore.Entry, p int) lore.Entry { e.Priority = p; return e }
	tests := []struct {
		name    string
		entries []lore.Entry
		scores  ScoreMap
		want    []int64
	}{
		{"a match claimed first holds nothing after it", []lore.Entry{prio(keyless(1, 20), 200), keyword(2, 60), keyword(3, 20)},
			ScoreMap{1: 0.9}, []int64{1, 2, 3}},
		{"a waiting match holds its cost", []lore.Entry{keyword(1, 60), keyword(2, 30), keyless(3, 20)},
			ScoreMap{3: 0.9}, []int64{1, 3}},
		{"the hold taken, nothing is held", []lore.Entry{prio(keyless(1, 25), 200), keyword(2, 60), keyword(3, 15), keyless(4, 10)},
			ScoreMap{1: 0.9, 4: 0.8}, []int64{1, 2, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := baseInput(tc.entries, "hello")
			in.Semantic = &Semantic{Scores: tc.scores, Threshold: 0.25, MaxEntries: 5, Ranker: "lexical", BudgetShare: 0.25}
			traced := run(t, in, Options{Random: noDraw, CharBudget: 100})
			require.Equal(t, tc.want, admittedIDs(traced))
			untraced, err := Activate(context.Background(), in, Options{Random: noDraw, CharBudget: 100, SkipTrace: true})
			require.NoError(t, err)
			require.Nil(t, untraced.Trace)
			require.Equal(t, tc.want, admittedIDs(untraced))
		})
	}
}
