package activation

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// setScores are Scores of a fixed candidate set (as the lexical ranker's):
// the set is the pointer, the scores change from turn to turn.
type setScores struct {
	set    *int
	scores ScoreMap
}

func (s setScores) Score(id int64) (float64, bool) { return s.scores.Score(id) }
func (s setScores) CandidateSet() any              { return s.set }

// Index is id itself (the test's candidates are its ids).
func (s setScores) Index(id int64) (int32, bool) {
	_, ok := s.scores[id]
	return int32(id), ok
}

func (s setScores) ScoresAt(idx []int32, out []float32) {
	for k, i := range idx {
		out[k] = float32(s.scores[int64(i)])
	}
}

// TestGatePlanSimilarity: turns whose similarity scores come from one
// candidate set keep their gates in a plan and read only the scores again:
// every turn, with scores changing each time, another set, a map of scores
// (no set) and none, gives a freshly compiled engine's Result, and the
// same admissions with the trace as without.
func TestGatePlanSimilarity(t *testing.T) {
	var entries []lore.Entry
	for id := int64(1); id <= 12; id++ {
		var keys []string
		if id%3 == 0 {
			keys = []string{"storm"}
		}
		e := ent(id, keys, "lore of the glade")
		e.Enabled = id != 5
		e.Constant = id == 7
		entries = append(entries, e)
	}
	in := baseInput(entries, "a storm over the glade")
	opts := Options{Random: noDraw, CharBudget: 60}
	m := CompileInput(&in, opts.MatchOptions())
	setA, setB := new(int), new(int)
	n := 0
	// The candidates are fixed per set (step), their scores change every
	// turn.
	scores := func(set *int, step int64) func() Scores {
		return func() Scores {
			n++
			s := ScoreMap{}
			for id := int64(1); id <= 12; id += step {
				s[id] = float64((id*7+int64(n)*5)%10) / 10
			}
			if set == nil {
				return s
			}
			return setScores{set, s}
		}
	}
	for _, step := range []struct {
		name   string
		scores func() Scores
	}{
		{"set A", scores(setA, 2)}, {"set B", scores(setB, 1)}, {"map", scores(nil, 3)}, {"none", func() Scores { return nil }},
		{"set A again", scores(setA, 2)},
	} {
		for k := range 5 {
			in := in
			in.Semantic = &Semantic{Scores: step.scores(), Threshold: 0.25, MaxEntries: 3, Ranker: "lexical", BudgetShare: 0.25}
			o := opts
			o.SkipTrace = k%2 == 1
			fresh, err := Activate(context.Background(), in, o)
			require.NoError(t, err)
			got, err := m.Activate(context.Background(), in, o)
			require.NoError(t, err)
			require.Equal(t, viewOf(fresh), viewOf(got), "%s, turn %d", step.name, k)
			o.SkipTrace = !o.SkipTrace // the trace changes no admission
			other, err := Activate(context.Background(), in, o)
			require.NoError(t, err)
			require.Equal(t, fresh.Admitted(), other.Admitted(), "%s, turn %d, with and without the trace", step.name, k)
		}
	}
	p := m.plan.Load()
	require.NotNil(t, p)
	require.Equal(t, any(setA), p.key.cands, "the last repeated turns left a plan of set A")
	require.NotEmpty(t, p.scored)
}

// nonzeroScores are setScores read sparsely (NonzeroScores, as the
// lexical ranker's): only the candidates scoring above 0.
type nonzeroScores struct{ setScores }

func (s nonzeroScores) Nonzero(at []int32, out []float32) ([]int32, []float32) {
	for id := int64(0); id <= 20; id++ {
		if v, ok := s.scores[id]; ok && v > 0 {
			at, out = append(at, int32(id)), append(out, float32(v))
		}
	}
	return at, out
}

// aboveScores are nonzeroScores that keep their sums (AboveScores, as
// the lexical ranker's): Above lists those at or above the threshold
// alone; kept counts the Above calls not yet released.
type aboveScores struct {
	nonzeroScores
	kept *int
}

// Above's sums are the scores (norm 1).
func (s aboveScores) Above(thr float64, at []int32, out []float32) ([]int32, []float32, []float32, float64) {
	*s.kept++
	sums := make([]float32, 21)
	for id := int64(0); id <= 20; id++ {
		v, ok := s.scores[id]
		sums[id] = float32(v)
		if ok && v > 0 && float64(float32(v)) >= thr {
			at, out = append(at, int32(id)), append(out, float32(v))
		}
	}
	return at, out, sums, 1
}

func (s aboveScores) Release() { *s.kept-- }

// TestGatePlanNonzeroScores: a plan's turns reading only the nonzero
// scores (most candidates score 0, keyed and keyless ones, some entries
// no candidate), or without a trace only those at or above the threshold
// (AboveScores: the admitted entries' read at the end, the sums given
// back), give a freshly compiled engine's Result turn after turn,
// whichever scores were nonzero the turn before, with and without the
// trace; a threshold of 0 reads every score (ScoresAt).
func TestGatePlanNonzeroScores(t *testing.T) {
	t.Run("nonzero", func(t *testing.T) { testGatePlanNonzero(t, false) })
	t.Run("above", func(t *testing.T) { testGatePlanNonzero(t, true) })
}

func testGatePlanNonzero(t *testing.T, above bool) {
	var entries []lore.Entry
	for id := int64(1); id <= 16; id++ {
		var keys []string
		if id%4 != 1 {
			keys = []string{"storm"}
			if id%2 == 0 {
				keys = []string{"nothing said"}
			}
		}
		entries = append(entries, ent(id, keys, "lore of the glade"))
	}
	in := baseInput(entries, "a storm over the glade")
	opts := Options{Random: noDraw, CharBudget: 200}
	m := CompileInput(&in, opts.MatchOptions())
	set := new(int)
	atThreshold, keyless := 0, 0 // similarity admissions in plans' turns
	keyed, kept := 0, 0          // keyed candidates admitted by their keys below the threshold
	for turn := range 30 {
		s := ScoreMap{}
		for id := int64(1); id <= 14; id++ { // 15 and 16 are no candidates
			s[id] = 0
		}
		s[3] = 0.125 // a keyed candidate below any threshold but 0
		for k := range 4 {
			s[int64(turn*3+k*5)%14+1] = []float64{0.75, 0.5, 0.5, 0.25}[(turn+k)%4] // ties: insertion order decides
		}
		thr := []float64{0.5, 0, 0.25}[turn/10]
		in := in
		var sc Scores = nonzeroScores{setScores{set, s}}
		if above {
			sc = aboveScores{nonzeroScores{setScores{set, s}}, &kept}
		}
		in.Semantic = &Semantic{Scores: sc, Threshold: thr, MaxEntries: 2, Ranker: "lexical"}
		o := opts
		o.SkipTrace = turn%3 != 0
		fresh, err := Activate(context.Background(), in, o)
		require.NoError(t, err)
		got, err := m.Activate(context.Background(), in, o)
		require.NoError(t, err)
		require.Equal(t, viewOf(fresh), viewOf(got), "turn %d", turn)
		require.Zero(t, kept, "turn %d: every kept sum given back", turn)
		for _, a := range got.Admitted() {
			switch {
			case a.Score == nil || turn%10 < 2 || thr == 0 || !o.SkipTrace: // no plan's sparse turn without a trace
			case len(a.Entry.Keys) == 0:
				keyless++
			case *a.Score == thr && a.Entry.Keys[0] != "storm":
				atThreshold++
			case *a.Score > 0 && *a.Score < thr:
				keyed++
			}
		}
	}
	require.Positive(t, keyless, "keyless candidates admitted in plans' turns")
	require.Positive(t, atThreshold, "keyed candidates admitted at the threshold in plans' turns")
	require.Positive(t, keyed, "keyed candidates admitted by their keys below the threshold in plans' turns")
	p := m.plan.Load()
	require.NotNil(t, p)
	require.NotEmpty(t, p.entryAt, "the plan reads the scores sparsely")
}
