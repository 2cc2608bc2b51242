package activation

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/i18n"
)

// TestTraceReasonParams: the verdicts that name numbers or names carry
// them as params, read through a real turn, and their texts render in
// every language with no placeholder left.
func TestTraceReasonParams(t *testing.T) {
	group := func(id int64, w int) lore.Entry {
		e := ent(id, []string{"gate"}, "rumour")
		e.Group, e.GroupWeight = "rumours", w
		return e
	}
	delayed := ent(3, []string{"gate"}, "later")
	delayed.Delay = 9
	swipe := ent(4, []string{"gate"}, "swipes only")
	swipe.GenerationTypes = []lore.GenerationType{lore.GenSwipe}
	blocked := ent(5, []string{"gate"}, "@@dont_activate\nhidden")
	excluded := ent(6, []string{"gate"}, "@@exclude_keys gate\nnever")
	recursion := ent(7, []string{"gate"}, "deep")
	recursion.DelayUntilRecursion = 2
	chance := ent(8, []string{"gate"}, "never rolls")
	chance.Probability = 0
	closed := ent(9, []string{"gate"}, "closed book")
	closed.Collection = "Closed"
	persona := ent(10, []string{"gate"}, "other persona")
	persona.Lineage = 4
	entries := []lore.Entry{group(1, 100), group(2, 0), delayed, swipe, blocked, excluded, recursion, chance, closed, persona}
	in := baseInput(entries, "the gate")
	in.Collections["Closed"] = lore.Collection{Name: "Closed", Enabled: false}
	res := run(t, in, Options{Random: func() float64 { return 0 }})
	want := map[int64]map[string]any{
		2:  {"group": "rumours"},
		3:  {"delay": 9},
		4:  {"allowed": []string{"swipe"}},
		5:  {"decorator": "@@dont_activate"},
		6:  {"decorator": "@@exclude_keys"},
		7:  {"level": 2},
		8:  {"chance": 0},
		9:  {"collection": "Closed"},
		10: {"lineage": int64(4)},
	}
	byID := map[int64]*lore.Entry{}
	for i := range entries {
		byID[entries[i].ID] = &entries[i]
	}
	for _, tr := range res.Trace {
		key, params := tr.Reason(byID[tr.ID])
		if tr.Verdict == VerdictGatedCollection || tr.Verdict == VerdictGatedLineage {
			// Without the entry (a snapshot leaves out disabled
			// collections' entries) the detail names the same.
			_, without := tr.Reason(nil)
			for name, v := range want[tr.ID] {
				require.Equal(t, v, without[name], "entry %d without its entry: param %s", tr.ID, name)
			}
		}
		for name, v := range want[tr.ID] {
			require.Equal(t, v, params[name], "entry %d (%s, %s): param %s", tr.ID, tr.Verdict, tr.Detail, name)
		}
		for _, lang := range i18n.Langs() {
			require.NotContains(t, i18n.Text(lang, key, params), "{", "entry %d %s in %s", tr.ID, key, lang)
		}
	}
}

// TestEveryVerdictTextFilled: for every verdict, the params Reason reads
// from a fully set entry fill its text in every language (a text that
// names a param Reason does not give fails here).
func TestEveryVerdictTextFilled(t *testing.T) {
	e := ent(1, []string{"gate"}, "x")
	e.Group, e.Delay, e.Cooldown, e.DelayUntilRecursion, e.Lineage, e.Collection = "g", 2, 3, 1, 5, "Book"
	e.GenerationTypes = []lore.GenerationType{lore.GenSwipe}
	score := 0.5
	for _, r := range i18n.Reasons() {
		if !strings.Contains(r.En, "{") || !isVerdict(r.Key) {
			continue
		}
		tr := TraceItem{ID: 1, Verdict: Verdict(r.Key), Detail: "@@dont_activate", Score: &score}
		key, params := tr.Reason(&e)
		for _, lang := range i18n.Langs() {
			require.NotContains(t, i18n.Text(lang, key, params), "{", "%s in %s", key, lang)
		}
	}
}

// isVerdict reports whether key is one of the engine's verdicts.
func isVerdict(key string) bool { return slices.Contains(Verdicts(), Verdict(key)) }

// TestGatedCategoryParamFromDetail: a gated_category item stored without
// params gets its category's name back from its detail.
func TestGatedCategoryParamFromDetail(t *testing.T) {
	e := ent(1, []string{"gate"}, "x")
	_, params := TraceItem{ID: 1, Verdict: VerdictGatedCategory, Detail: `category "Spoilers \"II\"" is disabled`}.Reason(&e)
	require.Equal(t, "Spoilers \"II\"", params["category"])
}
