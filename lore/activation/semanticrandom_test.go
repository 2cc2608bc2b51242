package activation

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// semWords are the words of randomSemanticBook's keys, contents and chats.
var semWords = strings.Fields("dragon castle river sword queen forest wolf storm tower ember shadow crown harbor ship moon " +
	"silver raven plague winter oracle")

func semPhrase(r *rand.Rand, n int) string {
	w := make([]string, n)
	for k := range w {
		w[k] = semWords[r.IntN(len(semWords))]
	}
	return strings.Join(w, " ")
}

func semPick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// randomSemanticBook is a random book of 1-20 entries (ids 1..n, the
// test scores' positions) for the similarity path: keyless and keyed
// entries, constants, secondary logic, inclusion groups with and without
// scoring, priorities, orders, chances, IgnoreBudget, identity macros,
// decorators and recursion flags, in one or two collections (one with a
// budget share of its own).
func randomSemanticBook(r *rand.Rand) ([]lore.Entry, map[string]lore.Collection) {
	cols := general()
	if r.IntN(4) == 0 {
		cols["b"] = lore.Collection{ID: 2, Server: srv, Name: "b", Enabled: true,
			Settings: lore.BookSettings{MaxBudgetShare: new(semPick(r, 30, 60))}}
	}
	ents := make([]lore.Entry, 1+r.IntN(20))
	for k := range ents {
		var keys []string
		if r.IntN(3) != 0 {
			keys = []string{semPhrase(r, 1)}
		}
		e := ent(int64(k+1), keys, semPhrase(r, 1+r.IntN(semPick(r, 4, 12, 30))))
		if _, ok := cols["b"]; ok && r.IntN(2) == 0 {
			e.Collection = "b"
		}
		if len(keys) > 0 && r.IntN(5) == 0 {
			e.SecondaryKeys = []string{semPhrase(r, 1)}
			e.Logic = semPick(r, lore.AndAny, lore.NotAll, lore.NotAny, lore.AndAll)
		}
		e.Constant, e.IgnoreBudget = r.IntN(10) == 0, r.IntN(10) == 0
		if r.IntN(8) == 0 {
			e.Probability = semPick(r, 0, 50)
		}
		e.Order, e.Priority = r.IntN(5), semPick(r, 100, 100, 50, 200)
		switch r.IntN(10) {
		case 0:
			e.Content += " {{user}}"
		case 1:
			e.Content = semPick(r, "@@activate", "@@dont_activate", "@@ignore_on_max_context", "@@priority 300") + "\n" + e.Content
		}
		if r.IntN(3) == 0 {
			e.Group, e.GroupOverride = semPick(r, "g1", "g2", "g1,g2"), r.IntN(8) == 0
			if r.IntN(2) == 0 {
				e.UseGroupScoring = new(true)
			}
		}
		e.ExcludeRecursion, e.PreventRecursion = r.IntN(10) == 0, r.IntN(10) == 0
		if r.IntN(15) == 0 {
			e.DelayUntilRecursion = 1
		}
		ents[k] = e
	}
	return ents, cols
}

// randomSemanticScores scores the candidates cands (ids) of one book a
// turn, each in [0, 1], as a ScoreMap or, with the book's candidate set
// (set: one per book), as setScores, nonzeroScores or aboveScores (kind
// 0-3), as the lexical ranker's are read.
func randomSemanticScores(r *rand.Rand, cands []int64, kind int, set, kept *int) Scores {
	m := ScoreMap{}
	for _, id := range cands {
		m[id] = semPick(r, 0, float64(r.IntN(11))/10, r.Float64())
	}
	s := setScores{set, m}
	switch kind {
	case 0:
		return m
	case 1:
		return s
	case 2:
		return nonzeroScores{s}
	}
	return aboveScores{nonzeroScores{s}, kept}
}

// semTally counts what the random turns reached, so that the test fails
// when its generator stops reaching the cases it is for.
type semTally struct {
	held, keywordShare, semanticShare, lostMatch, semCap, entryCap int
}

// requireHeld checks the hold a traced turn's over_budget items report
// (params held) against the similarity matches that claimed the budget:
// at least BudgetShare of the limit or what the semantic_match entries
// and those failing the semantic share cost (all held for), at most
// BudgetShare of the limit or what every match that met the budget
// could have cost (not those that lost a group or their chance, nor an
// IgnoreBudget entry).
func requireHeld(t *testing.T, m *Matcher, in Input, o Options, res Result, tally *semTally) {
	t.Helper()
	sem := in.Semantic
	if sem == nil || sem.BudgetShare <= 0 || res.Budget.Unit != UnitUTF16 || res.Budget.Limit < 0 {
		return
	}
	costOf := func(id int64) int {
		return lore.UTF16Len(ResolveIdentity(m.entries[id-1].body, o.UserName, o.CharName, o.BotName))
	}
	held, lower, upper := -1, 0, 0
	for _, it := range res.Trace {
		matched := it.Score != nil && *it.Score >= sem.Threshold && !in.Entries[it.ID-1].IgnoreBudget
		switch {
		case it.Verdict == VerdictSemanticMatch && !in.Entries[it.ID-1].IgnoreBudget:
			lower, upper = lower+costOf(it.ID), upper+costOf(it.ID)
		case it.Verdict == VerdictOverBudget && it.Params["share"] == shareSemantic:
			lower, upper = lower+costOf(it.ID), upper+costOf(it.ID)
		case matched && (it.Verdict == VerdictOverBudget || it.Verdict == VerdictOverEntryCap):
			upper += costOf(it.ID) // a keyed one may have met the budget by its keys
		}
		if h, ok := it.Params["held"].(int); ok {
			held = h
		}
		switch {
		case it.Verdict == VerdictOverBudget && it.Params["share"] == shareKeyword:
			tally.keywordShare++
		case it.Verdict == VerdictOverBudget && it.Params["share"] == shareSemantic:
			tally.semanticShare++
		case it.Verdict == VerdictGroupLost && matched:
			tally.lostMatch++
		case it.Verdict == VerdictOverSemanticCap:
			tally.semCap++
		case it.Verdict == VerdictOverEntryCap:
			tally.entryCap++
		}
	}
	if held < 0 {
		return
	}
	tally.held++
	share := int(sem.BudgetShare * float64(res.Budget.Limit))
	require.LessOrEqual(t, min(share, lower), held, "held for the matches that claimed the budget")
	require.LessOrEqual(t, held, min(share, upper), "held for no match that did not meet the budget")
}

// TestSemanticRandomTurns: random books (randomSemanticBook) under
// random budgets (characters, tight ones, tokens, unlimited), recursion
// and caps, with random similarity scores (randomSemanticScores), random
// thresholds, semantic caps and budget shares (0, small, half, all), turn
// after turn through one Matcher: each turn gives the same Result on the
// old code path, without the trace (admitAll's inline way, also into a
// reused AdmittedBuf) and from a gate plan (requireSameTurn), and the
// hold its trace reports is what its similarity matches cost, up to the
// share (requireHeld).
func TestSemanticRandomTurns(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var tally semTally
	for b := range 1500 {
		entries, cols := randomSemanticBook(r)
		opts := Options{UserName: "Ann", Recursive: r.IntN(4) != 0, MaxRecursionSteps: new(semPick(r, 0, 2, 3))}
		switch r.IntN(5) {
		case 0:
			opts.CharBudget = semPick(r, -1, 0)
		case 1:
			opts.TokenBudget, opts.Tokenizer = semPick(r, 10, 40), wordTokens{}
		default:
			opts.CharBudget = semPick(r, 20, 50, 100, 200, 400)
		}
		if r.IntN(6) == 0 {
			opts.MaxEntries = 1 + r.IntN(3)
		}
		in := baseInput(entries)
		in.Collections = cols
		m := CompileInput(&in, opts.MatchOptions())
		var cands []int64
		for _, e := range entries {
			if r.IntN(4) != 0 {
				cands = append(cands, e.ID)
			}
		}
		kind, set, kept := r.IntN(4), new(int), new(int)
		buf := make([]Admission, len(entries))
		for c := range 3 {
			in := in
			in.Messages = []string{semPhrase(r, 1+r.IntN(6)), semPhrase(r, 1+r.IntN(6))}
			in.Semantic = &Semantic{Scores: randomSemanticScores(r, cands, kind, set, kept), Ranker: "lexical",
				Threshold: semPick(r, 0, 0.1, 0.25, 0.5), MaxEntries: semPick(r, 0, 1, 2, 5),
				BudgetShare: semPick(r, 0, 0.1, 0.25, 0.5, 1)}
			draws := func() func() float64 { return rand.New(rand.NewPCG(uint64(b), uint64(c))).Float64 }
			o := opts
			o.Random = draws()
			res, err := m.Activate(context.Background(), in, o)
			require.NoError(t, err)
			requireHeld(t, m, in, o, res, &tally)
			requireSameTurn(t, m, in, o, draws, res)
			o.SkipTrace, o.AdmittedBuf, o.Random = true, buf, draws()
			lean, err := m.Activate(context.Background(), in, o)
			require.NoError(t, err)
			res.Trace = nil
			require.Equal(t, viewOf(res), viewOf(lean), "book %d, turn %d, into AdmittedBuf", b, c)
		}
		require.Zero(t, *kept, "every Above released")
	}
	t.Logf("%+v", tally)
	require.Positive(t, tally.held, "turns holding a share")
	require.Positive(t, tally.keywordShare, "keyword entries kept out by the hold")
	require.Positive(t, tally.semanticShare, "matches over the semantic share")
	require.Positive(t, tally.lostMatch, "matches that lost their group")
	require.Positive(t, tally.semCap, "matches over the semantic cap")
	require.Positive(t, tally.entryCap, "entries over the entry cap")
}
