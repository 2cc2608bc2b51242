package activation

import (
	"cmp"
	"slices"
	"strconv"
)

// The verdicts of retrieval by meaning (docs/contract.md#semantic).
const (
	// VerdictSemanticMatch: admitted by similarity (TraceItem.Score holds
	// the score), not by keys.
	VerdictSemanticMatch Verdict = "semantic_match"
	// VerdictBelowThreshold: a candidate whose score is below the
	// threshold.
	VerdictBelowThreshold Verdict = "below_threshold"
	// VerdictOverSemanticCap: a candidate above the threshold that the cap
	// on semantic admissions left out (better-scoring candidates took it).
	VerdictOverSemanticCap Verdict = "over_semantic_cap"
)

// Semantic is the retrieval-by-meaning part of a turn's input: the scores
// the caller's ranker gave the turn's candidates (lore/semantic: the
// lexical ranker or embeddings) and how many of them to admit. The engine
// never ranks; it admits by these scores in pass 1, after the keys, so a
// keyword hit wins (docs/contract.md#semantic).
type Semantic struct {
	// Scores are the candidates' similarities to the query, 0-1, by entry
	// id. An entry Scores does not hold is no candidate: its keys alone
	// decide.
	Scores Scores
	// Threshold is the least score admitted (semantic.DefaultThreshold
	// when the caller has no setting).
	Threshold float64
	// MaxEntries is how many candidates similarity admits at most, best
	// first (ties by insertion order); <= 0 admits none.
	MaxEntries int
	// Ranker names the ranker that scored ("lexical", "embeddings") for
	// the trace's details.
	Ranker string
	// BudgetShare is the most of the turn's budget, 0-1, held for the
	// similarity matches (as much as they cost): keyword and Always On
	// entries claim the budget less what is held
	// (docs/contract.md#semantic-budget). 0 holds nothing.
	BudgetShare float64
}

// Scores are a turn's candidates' scores by entry id: ok is false for an
// entry that is no candidate. ScoreMap holds them in a map; the lexical
// ranker's (lore/semantic.LexicalScores) reads its per-turn sums through
// the index it keeps with the scope, so a turn builds no map.
type Scores interface {
	Score(id int64) (score float64, ok bool)
}

// CandidateSet is implemented by Scores whose candidates are fixed for
// one scope version (the lexical ranker's, whose index the scope cache
// keeps): CandidateSet returns a comparable value (the index) equal for
// every turn scoring the same candidates, so the engine keeps their gates
// between turns (gateplan.go) and reads only the scores again, in one
// call: Index is a candidate's position in the set (false for an id that
// is none), ScoresAt sets out[k] to the score of the candidate at
// position idx[k] (what Score gives it, as a float32).
type CandidateSet interface {
	CandidateSet() any
	Index(id int64) (int32, bool)
	ScoresAt(idx []int32, out []float32)
}

// NonzeroScores is implemented by CandidateSet scores most of whose
// candidates score 0 (the lexical ranker's: a candidate sharing no term
// with the query): Nonzero appends to at and out the position and score
// (ScoresAt's) of every candidate scoring above 0, by position, so a gate
// plan's turn sets those alone (applyNonzero).
type NonzeroScores interface {
	Nonzero(at []int32, out []float32) ([]int32, []float32)
}

// AboveScores is implemented by NonzeroScores that keep one query's sums
// (the lexical ranker's): Above appends the position and score
// (ScoresAt's) of every candidate scoring at or above thr > 0, by
// position, and returns the query's sums by candidate position and its
// length, kept until Release: a candidate's score is SumScore of its sum.
// A gate plan's turn without a trace sets the scores of those at or above
// the threshold alone (applyNonzero) and reads the admitted entries' from
// the sums at the end (result).
type AboveScores interface {
	Above(thr float64, at []int32, out []float32) (pos []int32, scores, sums []float32, norm float64)
	Release()
}

// SumScore is the score of a candidate whose similarity sum is sum for a
// query of length norm > 0 (the lexical ranker's cosine): sum / norm, at
// most 1, as a float32; 0 for a sum of 0 or less.
func SumScore(sum float32, norm float64) float32 {
	if sum <= 0 {
		return 0
	}
	v := float64(sum) / norm
	if v > 1 {
		v = 1
	}
	return float32(v)
}

// ScoreMap is Scores in a map (embeddings' scores, tests).
type ScoreMap map[int64]float64

// Score is m's score of id.
func (m ScoreMap) Score(id int64) (float64, bool) {
	s, ok := m[id]
	return s, ok
}

// semanticGate marks entry i, still in mode keys after the gates, as a
// candidate when the turn's Semantic scores it; a candidate without a
// usable key is decided by similarity alone (modeSemantic).
func (t *turn) semanticGate(i int32, e int64) {
	sem := t.in.Semantic
	s := &t.st[i]
	if sem == nil || s.mode != modeKeys {
		return
	}
	if sem.Scores == nil {
		return
	}
	sc, ok := sem.Scores.Score(e)
	if !ok || t.in.Entries[i].DelayUntilRecursion > 0 {
		return // recursion does not feed similarity: a delayed entry waits for its keys
	}
	s.score, s.scored = float32(sc), true
	if !t.m.entries[i].hasPrimary {
		s.mode = modeSemantic
	}
}

// semanticPass admits by similarity at the end of pass 1: among the
// candidates that their keys did not admit (keyless ones, and keyed ones
// whose keys found nothing), the best MaxEntries at or above the threshold
// roll their chance and join passed, to meet groups and the budget like
// keyword hits. The others get below_threshold or over_semantic_cap; a
// keyed one stays pending, so recursion text may still match its keys.
func (t *turn) semanticPass(passed []int32) ([]int32, error) {
	sem := t.in.Semantic
	t.matched = t.matched[:0]
	// Those below the threshold are decided at once; only the others
	// (few) are sorted, best first.
	var cands []int32
	order := t.m.order
	if t.semPlanned && !t.trace {
		order = t.semNear // the others stay as they are (applyPlan)
	}
	for _, i := range order {
		s := &t.st[i]
		if !s.scored || s.stage != stagePending {
			continue
		}
		below := float64(s.score) < sem.Threshold
		if s.mode != modeSemantic && (below && !t.trace || s.verdict != vNoKeyMatch) {
			// A keyed one below the threshold stays pending (only a trace
			// shows below_threshold), as one whose keys decided.
			continue
		}
		if !below {
			cands = append(cands, i)
			continue
		}
		s.pass = 1
		s.verdict = vBelowThreshold
		t.setDetail(s, t.similarity(s, " below "))
		if s.mode == modeSemantic {
			s.stage = stageDone
		}
	}
	slices.SortStableFunc(cands, func(a, b int32) int { return cmp.Compare(t.st[b].score, t.st[a].score) })
	taken := 0
	for _, i := range cands {
		s, ce := &t.st[i], &t.m.entries[i]
		s.pass = 1
		keyless := s.mode == modeSemantic
		switch {
		case taken >= sem.MaxEntries:
			s.verdict = vOverSemanticCap
			t.setDetail(s, t.similarity(s, " at or above ")+"; "+strconv.Itoa(sem.MaxEntries)+" better candidates took the cap")
		default:
			taken++
			s.mode = modeSemantic
			t.setDetail(s, t.similarity(s, " at or above "))
			if ce.probability < 100 {
				if ok, err := t.roll(ce, s); err != nil {
					return nil, err
				} else if !ok {
					continue
				}
			}
			s.stage = stagePassed
			passed, t.matched = append(passed, i), append(t.matched, i)
			continue
		}
		if keyless {
			s.stage = stageDone
		}
	}
	return passed, nil
}

// similarity is the trace detail of a candidate's score against the
// threshold.
func (t *turn) similarity(s *entryState, rel string) string {
	if !t.trace {
		return ""
	}
	sem := t.in.Semantic
	d := "similarity " + strconv.FormatFloat(float64(s.score), 'f', 3, 32) + rel + "threshold " +
		strconv.FormatFloat(sem.Threshold, 'f', -1, 64)
	if sem.Ranker != "" {
		d += " (" + sem.Ranker + ")"
	}
	return d
}

// scoreOf is an entry's score for the trace: nil for an entry no ranker
// scored. The scores share t.scores' arrays.
func (t *turn) scoreOf(s *entryState) *float64 {
	if !s.scored {
		return nil
	}
	if len(t.scores) == cap(t.scores) {
		t.scores = make([]float64, 0, 64)
	}
	t.scores = append(t.scores, float64(s.score))
	return &t.scores[len(t.scores)-1]
}

// Entered reports whether the verdict is one of an entry in the prompt:
// admitted (keys, constants, decorators, turn state) or semantic_match.
func (v Verdict) Entered() bool { return v == VerdictAdmitted || v == VerdictSemanticMatch }

// semanticVerdict is the verdict the trace shows: semantic_match for an
// entry similarity admitted.
func semanticVerdict(s *entryState) Verdict {
	if s.verdict == vAdmitted && s.mode == modeSemantic {
		return VerdictSemanticMatch
	}
	return s.verdict.verdict()
}
