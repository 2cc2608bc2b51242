package turn_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/semantic"
	"loregate/lore/turn"
	"loregate/lore/turnstate"
)

// lexicalBenchBook returns n vectorized entries of about 80 words each,
// drawn from a vocabulary of invented words (frequent ones more often, as
// in prose), with three of those words as keys, and a chat of four
// messages, the two newest retelling two entries.
func lexicalBenchBook(n int) ([]lore.Entry, []string) {
	r := rand.New(rand.NewPCG(28, 250))
	syl := []string{"val", "dor", "mir", "ka", "then", "or", "ish", "ra", "el", "quo", "zan", "bri", "lo", "um", "tar", "vek"}
	vocab := make([]string, 3000)
	for i := range vocab {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		vocab[i] = b.String()
	}
	word := func() string { return vocab[int(float64(len(vocab))*r.Float64()*r.Float64())] }
	sentence := func(words int) string {
		parts := make([]string, words)
		for i := range parts {
			parts[i] = word()
			if i%5 == 4 {
				parts[i] = "the " + parts[i]
			}
		}
		return strings.Join(parts, " ") + "."
	}
	entries := make([]lore.Entry, n)
	for i := range entries {
		e := lore.NewEntry()
		e.ID, e.Title, e.Vectorized, e.Order = int64(i+1), word()+" "+word(), true, r.IntN(200)
		e.Content = sentence(80)
		e.Keys = []string{word(), word(), word()}
		entries[i] = e
	}
	msgs := make([]string, 4)
	for i := range msgs {
		msgs[i] = sentence(20)
	}
	// The two newest messages (the query) retell two entries without
	// naming their keys: what similarity is for.
	for m, i := range map[int]int{2: 100, 3: 200} {
		entries[i].Keys = []string{"unsaid" + entries[i].Title}
		msgs[m] = strings.Join(strings.Fields(entries[i].Content)[:30], " ")
	}
	return entries, msgs
}

// lexicalBenchTurn returns one dry-run turn over snap with msgs under
// ranker, with the scope's compiled matcher and its candidates and
// lexical index built once, as the scope cache keeps them.
func lexicalBenchTurn(b *testing.B, snap lore.Snapshot, msgs []string, ranker lore.SemanticRanker) func() turn.Outcome {
	ctx := context.Background()
	req := turn.Request{Messages: msgs, Overrides: turn.Overrides{SemanticRanker: &ranker, Budget: ptr(2000000)}}
	first, err := turn.Prepare(snap, req)
	if err != nil {
		b.Fatal(err)
	}
	m := activation.CompileInput(&first.Input, first.Options.MatchOptions())
	var (
		index *semantic.Lexical
		cands []semantic.Candidate
	)
	rk := turn.Rankers{Candidates: func(build func() []semantic.Candidate) []semantic.Candidate {
		if cands == nil {
			cands = build()
		}
		return cands
	}, Lexical: func(cands []semantic.Candidate) *semantic.Lexical {
		if index == nil {
			index = turn.NewLexical(cands)
		}
		return index
	}}
	return func() turn.Outcome {
		t, err := turn.Prepare(snap, req)
		if err != nil {
			b.Fatal(err)
		}
		t.Rank(ctx, rk)
		out, err := turn.DryRun(ctx, m, t, nil, turnstate.Conversation{})
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
}

// cpuPerRun is the process CPU time (user and system) per call of f over
// calls made for about d of wall time.
func cpuPerRun(d time.Duration, f func()) time.Duration {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start, c0, n := time.Now(), cpu(), 0
	for n == 0 || time.Since(start) < d {
		f()
		n++
	}
	return (cpu() - c0) / time.Duration(n)
}

// BenchmarkLexicalTurn: a dry-run turn over 250 vectorized entries with
// keys (the scope limit) ranked by the lexical ranker ("lexical"),
// against the same turn with the ranker OFF, keys alone ("keyword"); both
// with what the scope cache keeps (lexicalBenchTurn). "ratio" reports
// lexical/keyword from process CPU time over interleaved rounds, each
// variant's fastest of 21, so other work on a shared machine skews it little;
// docs/benchmarks.md#retrieval gives one run (goal: at most 1.3x).
func BenchmarkLexicalTurn(b *testing.B) {
	entries, msgs := lexicalBenchBook(250)
	snap := lore.Snapshot{Server: lore.Server{Settings: lore.DefaultServerSettings()}, Entries: entries,
		Collections: map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true}}}
	runs := map[string]func() turn.Outcome{}
	for name, ranker := range map[string]lore.SemanticRanker{"keyword": lore.RankerOff, "lexical": lore.RankerLexical} {
		runs[name] = lexicalBenchTurn(b, snap, msgs, ranker)
		out := runs[name]()
		retold := 0 // the two retold entries, admitted by similarity alone
		for _, ad := range out.Result.Admitted {
			if (ad.Entry.ID == 101 || ad.Entry.ID == 201) && ad.Score != nil {
				retold++
			}
		}
		if len(out.Result.Admitted) == 0 || (ranker == lore.RankerLexical) != (retold > 0) {
			b.Fatalf("%s: %d admitted, %d retold", name, len(out.Result.Admitted), retold)
		}
	}
	for _, name := range []string{"keyword", "lexical"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				runs[name]()
			}
		})
	}
	b.Run("ratio", func(b *testing.B) {
		for b.Loop() {
			runs["lexical"]()
		}
		b.StopTimer()
		kw, lex := time.Duration(1<<62), time.Duration(1<<62)
		for range 21 {
			kw = min(kw, cpuPerRun(40*time.Millisecond, func() { runs["keyword"]() }))
			lex = min(lex, cpuPerRun(40*time.Millisecond, func() { runs["lexical"]() }))
		}
		b.ReportMetric(float64(kw.Nanoseconds()), "keyword-cpu-ns")
		b.ReportMetric(float64(lex.Nanoseconds()), "lexical-cpu-ns")
		b.ReportMetric(float64(lex)/float64(kw), "lexical/keyword")
	})
}
