package activation

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// recVocab is the word list of the recursion fuzz: keys and content are
// drawn from it, so content often names other entries' keys.
var recVocab = []string{"ash", "bay", "cove", "dune", "elm", "fen", "glen", "heath", "isle", "jetty"}

// recCase is a random book and chat for the recursive engine.
type recCase struct {
	entries []lore.Entry
	msgs    []string
	opts    Options
	// seed seeds the draws (group draws only: every chance is 100).
	seed uint64
}

// draws returns the case's random source; the engine and the reference
// each take a fresh one and must consume it in the same order.
func (c recCase) draws() func() float64 {
	return rand.New(rand.NewPCG(c.seed, 7)).Float64
}

func randomRecCase(seed uint64, size uint8) recCase {
	r := rand.New(rand.NewPCG(seed, uint64(size)))
	n := 1 + int(size)%24
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = recVocab[r.IntN(len(recVocab))]
		}
		return strings.Join(w, " ")
	}
	var c recCase
	for i := range n {
		e := lore.NewEntry()
		e.ID, e.Server, e.Title = int64(i+1), srv, "e"
		e.Keys = []string{recVocab[r.IntN(len(recVocab))]}
		if r.IntN(3) == 0 {
			e.Keys = append(e.Keys, recVocab[r.IntN(len(recVocab))])
		}
		e.Content = words(1 + r.IntN(3))
		e.Constant = r.IntN(8) == 0
		e.ExcludeRecursion = r.IntN(5) == 0
		e.PreventRecursion = r.IntN(5) == 0
		if r.IntN(4) == 0 {
			e.DelayUntilRecursion = 1 + r.IntN(3)
		}
		e.Priority = []int{0, 100, 200}[r.IntN(3)]
		e.Order = r.IntN(5)
		if r.IntN(3) == 0 {
			d := r.IntN(4)
			e.ScanDepth = &d
		}
		e.IgnoreBudget = r.IntN(10) == 0
		if r.IntN(3) == 0 {
			e.Group = []string{"g1", "g2", "g1, g2"}[r.IntN(3)]
			e.GroupOverride = r.IntN(4) == 0
			e.GroupWeight = r.IntN(4) * 50
		}
		c.entries = append(c.entries, e)
	}
	for range 1 + r.IntN(4) {
		c.msgs = append(c.msgs, words(1+r.IntN(3)))
	}
	c.opts = Options{Recursive: r.IntN(6) != 0, MaxRecursionSteps: ptr(r.IntN(5)), CharBudget: []int{-1, 10, 25, 60}[r.IntN(4)]}
	c.seed = seed
	return c
}

// recOutcome is what the fuzz compares: each entry's verdict (admitted,
// over_budget or neither) and its pass when admitted.
type recOutcome struct {
	Verdict Verdict
	Pass    int
}

// naiveRecursive is the reference: the rules of Matcher.Activate for this
// restricted book (single-word lowercase ASCII keys, whole words, chance
// 100, groups with overrides and weights, no decorators), written as
// directly as possible: every pass re-reads every text it may scan.
func naiveRecursive(c recCase) map[int64]recOutcome {
	steps := DefaultMaxRecursionSteps
	if c.opts.MaxRecursionSteps != nil {
		steps = *c.opts.MaxRecursionSteps
	}
	if steps <= 0 || steps > MaxPasses {
		steps = MaxPasses
	}
	recursion := c.opts.Recursive && steps > 1
	if !recursion {
		steps = 1
	}
	limit := c.opts.CharBudget
	if limit == 0 {
		limit = DefaultCharBudget
	}
	order := make([]int, len(c.entries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if x := cmp.Compare(c.entries[a].Order, c.entries[b].Order); x != 0 {
			return x
		}
		return cmp.Compare(c.entries[a].ID, c.entries[b].ID)
	})
	out := map[int64]recOutcome{}
	pending := map[int]bool{}
	minLevel := 0
	for _, i := range order {
		e := c.entries[i]
		if e.DelayUntilRecursion > 0 {
			if !recursion {
				continue
			}
			if minLevel == 0 || e.DelayUntilRecursion < minLevel {
				minLevel = e.DelayUntilRecursion
			}
		}
		pending[i] = true
	}
	var recText []string
	used := 0
	random := c.draws()
	won := map[string]bool{}
	cur, visited := minLevel, 0
	for p := 1; ; p++ {
		if p > 1 {
			visited = cur
		}
		passed := naivePass(c, order, pending, p, cur, recText)
		lost := naiveGroups(c, passed, won, random)
		for i := range lost {
			out[c.entries[i].ID] = recOutcome{VerdictGroupLost, p}
		}
		passed = slices.DeleteFunc(passed, func(i int) bool { return lost[i] })
		slices.SortStableFunc(passed, func(a, b int) int {
			if x := cmp.Compare(c.entries[b].Priority, c.entries[a].Priority); x != 0 {
				return x
			}
			if c.entries[a].Constant != c.entries[b].Constant {
				return boolFirst(c.entries[a].Constant)
			}
			return 0
		})
		fed := false
		for _, i := range passed {
			e := c.entries[i]
			cost := len(e.Content)
			if !e.IgnoreBudget && limit >= 0 && used+cost > limit {
				out[e.ID] = recOutcome{VerdictOverBudget, p}
				continue
			}
			if !e.IgnoreBudget {
				used += cost
			}
			out[e.ID] = recOutcome{VerdictAdmitted, p}
			for _, g := range naiveGroupsOf(e) {
				won[g] = true
			}
			if !e.PreventRecursion {
				recText = append(recText, e.Content)
				fed = true
			}
		}
		if !recursion || p >= steps || len(pending) == 0 {
			break
		}
		if fed {
			continue
		}
		next := 0
		for i := range pending {
			if l := c.entries[i].DelayUntilRecursion; l > visited && (next == 0 || l < next) {
				next = l
			}
		}
		if next == 0 {
			break
		}
		cur = max(cur, next)
	}
	return out
}

// naiveGroupsOf lists the inclusion groups of e.
func naiveGroupsOf(e lore.Entry) []string {
	var gs []string
	for _, g := range strings.Split(e.Group, ",") {
		if g = strings.TrimSpace(g); g != "" {
			gs = append(gs, g)
		}
	}
	return gs
}

// naivePass returns the pending entries (in order) whose keys occur in
// pass p at delay level cur, and takes them off pending.
func naivePass(c recCase, order []int, pending map[int]bool, p, cur int, recText []string) []int {
	depthDefault := DefaultScanDepth
	has := func(text, key string) bool { return slices.Contains(strings.Fields(text), key) }
	var passed []int
	for _, i := range order {
		if !pending[i] {
			continue
		}
		e := c.entries[i]
		if e.DelayUntilRecursion > 0 && (p == 1 || e.DelayUntilRecursion > cur) {
			continue
		}
		ok := e.Constant
		d := depthDefault
		if e.ScanDepth != nil {
			d = *e.ScanDepth
		}
		for _, k := range e.Keys {
			for j := max(len(c.msgs)-d, 0); j < len(c.msgs); j++ {
				ok = ok || has(c.msgs[j], k)
			}
			if p > 1 && !e.ExcludeRecursion {
				for _, t := range recText {
					ok = ok || has(t, k)
				}
			}
		}
		if ok {
			passed = append(passed, i)
			delete(pending, i)
		}
	}
	return passed
}

// naiveGroups settles the inclusion groups among passed and returns the
// entries that lost; won holds the groups won in earlier passes.
func naiveGroups(c recCase, passed []int, won map[string]bool, random func() float64) map[int]bool {
	// Groups, in name order; a member must win each of its groups; the
	// members a winner beat take part again when it lost elsewhere and
	// their group has nobody left.
	lost := map[int]bool{}
	type beat struct {
		group  string
		winner int
	}
	beaten := map[int]beat{}
	for round := 0; round <= len(passed); round++ {
		for _, g := range []string{"g1", "g2"} {
			var members []int
			for _, i := range passed {
				if !lost[i] && slices.Contains(naiveGroupsOf(c.entries[i]), g) {
					members = append(members, i)
				}
			}
			if len(members) == 0 {
				continue
			}
			if won[g] {
				for _, i := range members {
					lost[i] = true
				}
				continue
			}
			if len(members) == 1 {
				continue
			}
			winner := -1
			for _, i := range members {
				if c.entries[i].GroupOverride && (winner < 0 || c.entries[i].Order > c.entries[winner].Order) {
					winner = i
				}
			}
			if winner < 0 {
				weight := func(i int) int { return c.entries[i].GroupWeight }
				total := 0
				for _, i := range members {
					total += weight(i)
				}
				if total == 0 { // all weights 0: an even draw
					weight = func(int) int { return 1 }
					total = len(members)
				}
				x := random() * float64(total)
				acc := 0
				for _, i := range members {
					acc += weight(i)
					if x < float64(acc) && winner < 0 {
						winner = i
					}
				}
				if winner < 0 {
					winner = members[len(members)-1]
				}
			}
			for _, i := range members {
				if i != winner {
					lost[i] = true
					beaten[i] = beat{g, winner}
				}
			}
		}
		reopened := false
		for _, g := range []string{"g1", "g2"} {
			inPlay := false
			for _, i := range passed {
				if !lost[i] && slices.Contains(naiveGroupsOf(c.entries[i]), g) {
					inPlay = true
				}
			}
			if inPlay {
				continue
			}
			for _, i := range passed {
				if b, ok := beaten[i]; ok && b.group == g && lost[b.winner] {
					delete(beaten, i)
					delete(lost, i)
					reopened = true
				}
			}
		}
		if !reopened {
			break
		}
	}
	return lost
}

// checkRecursion compares the engine with naiveRecursive on one case.
func checkRecursion(t *testing.T, seed uint64, size uint8) {
	c := randomRecCase(seed, size)
	opts := c.opts
	opts.Random = c.draws()
	in := baseInput(c.entries, c.msgs...)
	m := CompileInput(&in, opts.MatchOptions())
	res, err := m.Activate(t.Context(), in, opts)
	require.NoError(t, err)
	requireSameTurn(t, m, in, opts, c.draws, res)
	got := map[int64]recOutcome{}
	for _, tr := range res.Trace {
		if tr.Verdict == VerdictAdmitted || tr.Verdict == VerdictOverBudget || tr.Verdict == VerdictGroupLost {
			got[tr.ID] = recOutcome{tr.Verdict, tr.Pass}
		}
	}
	require.Equal(t, naiveRecursive(c), got, "seed %d size %d\nmessages %q\nentries %+v\ntrace %+v", seed, size, c.msgs, c.entries, res.Trace)
}

// TestRecursionAgainstReference runs checkRecursion on 400 fixed cases, so
// `make test` covers the comparison without fuzzing.
func TestRecursionAgainstReference(t *testing.T) {
	admitted, recursive, lost := 0, 0, 0
	for seed := range uint64(400) {
		checkRecursion(t, seed, uint8(seed*37))
		c := randomRecCase(seed, uint8(seed*37))
		opts := c.opts
		opts.Random = c.draws()
		res, err := Activate(t.Context(), baseInput(c.entries, c.msgs...), opts)
		require.NoError(t, err)
		admitted += res.NumAdmitted()
		for _, tr := range res.Trace {
			if tr.Verdict == VerdictGroupLost {
				lost++
			}
		}
		if res.Passes > 1 {
			recursive++
		}
	}
	require.Greater(t, recursive, 100, "the cases exercise recursion")
	require.Greater(t, admitted, 400, "the cases admit entries")
	require.Greater(t, lost, 50, "the cases exercise inclusion groups")
}

// FuzzRecursion checks the recursive engine (automaton scans of new text,
// remembered hits, pass-by-pass budget, delay levels) against
// naiveRecursive on random books.
func FuzzRecursion(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 2026} {
		f.Add(s, uint8(s*7))
	}
	f.Fuzz(checkRecursion)
}
