package activation

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// naiveMatch is the reference matcher: normalise key and text, find every
// occurrence with strings.Index and check the boundary rule on the
// neighbouring runes directly (no markers, no automaton).
func naiveMatch(key, text string, whole, sens bool) bool {
	if strings.TrimSpace(key) == "" {
		return false
	}
	nz := newNormalizer()
	k, t := nz.normalize(key, !sens), nz.normalize(text, !sens)
	if k == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(k)
	last, _ := utf8.DecodeLastRuneInString(k)
	for off := 0; off <= len(t); {
		i := strings.Index(t[off:], k)
		if i < 0 {
			return false
		}
		s, e := off+i, off+i+len(k)
		ok := true
		if whole && isWordRune(first) && s > 0 {
			prev, _ := utf8.DecodeLastRuneInString(t[:s])
			ok = !isJoiner(prev)
		}
		if ok && whole && isWordRune(last) && e < len(t) {
			next, _ := utf8.DecodeRuneInString(t[e:])
			ok = !isJoiner(next)
		}
		if ok {
			return true
		}
		off = s + 1
	}
	return false
}

// engineMatchesDense runs keys (one entry each) over msgs, every message
// within scan depth, with a bound on the dense table so that small key sets
// also exercise the sparse (failure link) states.
func engineMatchesDense(t testing.TB, keys, msgs []string, opts Options, denseCap uint32) []bool {
	entries := make([]lore.Entry, len(keys))
	depth := max(len(msgs), 1)
	for i, k := range keys {
		e := lore.NewEntry()
		e.ID = int64(i + 1)
		e.Keys = []string{k}
		e.Content = "c"
		e.Lineage = 0
		e.ScanDepth = &depth
		entries[i] = e
	}
	opts.CharBudget = -1
	in := Input{
		Entries:     entries,
		Collections: map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true}},
		Messages:    msgs,
	}
	m := compile(&in, opts.MatchOptions(), denseCap)
	res, err := m.Activate(context.Background(), in, opts)
	require.NoError(t, err)
	requireSameTurn(t, m, in, opts, func() func() float64 { return opts.Random }, res)
	got := make([]bool, len(keys))
	for _, tr := range res.Trace {
		got[tr.ID-1] = tr.Verdict == VerdictAdmitted
	}
	return got
}

// resultView is a Result as its caller reads it: its admitted entries
// (Result.Admitted) beside the rest, without the Matcher and entries they
// are read from, so that the Results of two Matchers compare equal when
// their callers would read the same.
type resultView struct {
	Admitted []Admitted
	Result   Result
}

// viewOf is r's resultView.
func viewOf(r Result) resultView {
	adm := r.Admitted()
	r.Admissions, r.entries, r.m, r.rare, r.tokens, r.list = nil, nil, nil, nil, nil, nil
	return resultView{adm, r}
}

// requireSameTurn runs the turn of in again through m on the old code path
// (Options.baseline) and without the trace (Options.SkipTrace), each with
// fresh draws from draws(), and requires what res has: the same Result on
// the old path, the same Result but the trace without it.
func requireSameTurn(t testing.TB, m *Matcher, in Input, opts Options, draws func() func() float64, res Result) {
	t.Helper()
	old, bot := opts, opts
	old.baseline, old.Random = true, draws()
	bot.SkipTrace, bot.Random = true, draws()
	was, err := m.Activate(context.Background(), in, old)
	require.NoError(t, err)
	require.Equal(t, viewOf(was), viewOf(res), "the old code path")
	lean, err := m.Activate(context.Background(), in, bot)
	require.NoError(t, err)
	require.Nil(t, lean.Trace)
	traced := res
	res.Trace = nil
	require.Equal(t, viewOf(res), viewOf(lean), "without the trace")
	// The turns above repeat their gates, so m now holds a gate plan
	// (gateplan.go) when the turn can have one: turns that read it give
	// the same Result, with and without the trace.
	bot.Random = draws()
	again, err := m.Activate(context.Background(), in, bot)
	require.NoError(t, err)
	require.Equal(t, viewOf(res), viewOf(again), "without the trace, gates planned")
	withTrace := opts
	withTrace.Random = draws()
	again, err = m.Activate(context.Background(), in, withTrace)
	require.NoError(t, err)
	require.Equal(t, viewOf(traced), viewOf(again), "with the trace, gates planned")
}

func checkAgainstNaive(t testing.TB, keys, msgs []string, opts Options) {
	checkAgainstNaiveDense(t, keys, msgs, opts, maxDenseCells)
	// Sparse states, and messages through a text cache (twice: filled,
	// then read).
	opts.Texts = NewTextCache(0)
	checkAgainstNaiveDense(t, keys, msgs, opts, 1)
	checkAgainstNaiveDense(t, keys, msgs, opts, 1)
}

func checkAgainstNaiveDense(t testing.TB, keys, msgs []string, opts Options, denseCap uint32) {
	got := engineMatchesDense(t, keys, msgs, opts, denseCap)
	for i, k := range keys {
		want := false
		for _, m := range msgs {
			if naiveMatch(k, m, !opts.Substring, opts.CaseSensitive) {
				want = true
				break
			}
		}
		require.Equal(t, want, got[i], "key %q in %q (substring=%v case=%v)", k, msgs, opts.Substring, opts.CaseSensitive)
	}
}

// alphabet mixes ASCII word and non-word characters, Latin with accents
// (composed and decomposed), Greek sigmas, Cyrillic, Han, a combining mark,
// full-width letters, a supplementary-plane letter and the ligature ﬀ.
var alphabet = []string{"a", "b", "A", "B", "e", " ", "-", "'", "1", "é", "e\u0301", "\u0301", "Σ", "σ", "ς",
	"в", "В", "中", "文", "ｂ", "𝐀", "ﬀ", "f", "ß", "s", "#", "\n", "+", "_", "か", "\u3099", "，", "한", "\u11a8", "Ａ"}

func randString(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

func TestMatcherAgainstNaiveRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		keys := make([]string, 1+r.IntN(12))
		for i := range keys {
			keys[i] = randString(r, 1+r.IntN(4))
		}
		msgs := make([]string, 1+r.IntN(3))
		for i := range msgs {
			msgs[i] = randString(r, r.IntN(40))
		}
		opts := Options{Substring: round%3 == 1, CaseSensitive: round%4 == 3}
		checkAgainstNaive(t, keys, msgs, opts)
	}
}

// FuzzMatch compares the engine's matcher with naiveMatch. keys is split on
// '|', messages on '\n' (matches must not cross messages).
func FuzzMatch(f *testing.F) {
	f.Add("art|modern", "Modern art, then.", false, false)
	f.Add("café|caf", "two cafés", false, false)
	f.Add("Вега", "«Вега» молчит.\nВегас", false, true)
	f.Add("ΟΔΥΣΣΕΥΣ|σ", "ο Οδυσσεύς", true, false)
	f.Add("龙胆|Gentian", "我喜欢龙胆花。Gentian花", false, false)
	f.Add("C++|#hello| divines", "I write C++ daily. #hello\nPray to the divines.", false, false)
	f.Add("aa|aaa|aaaa|a a", "aaaaaa a a a", true, false)
	f.Add("ab|b ab", "ab ab ab", false, false)
	f.Fuzz(func(t *testing.T, keyList, text string, substring, sensitive bool) {
		if len(keyList) > 400 || len(text) > 2000 {
			return
		}
		keys := strings.Split(keyList, "|")
		msgs := strings.Split(text, "\n")
		checkAgainstNaive(t, keys, msgs, Options{Substring: substring, CaseSensitive: sensitive})
	})
}
