package turn_test

import (
	"context"
	"math/rand/v2"
	"slices"
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

// lexicalBenchConversation returns 2,000 chats of four messages sliding
// over a conversation, one new message a turn: msgs' first two, then
// messages retelling entries, each 30 words of some entry's content from
// a place that moves on every 250 messages, so no two are alike. The
// conversation (about 400 KB) outgrows the keyword matcher's chat memo and
// the lexical ranker's term memo, so each turn's newest message is new to
// both, its other query message seen the turn before.
func lexicalBenchConversation(entries []lore.Entry, msgs []string) [][]string {
	conv := slices.Clone(msgs[:2])
	for j := range 2002 {
		words := strings.Fields(entries[(j*37+11)%len(entries)].Content)
		at := (j / len(entries) * 9) % (len(words) - 30)
		conv = append(conv, strings.Join(words[at:at+30], " "))
	}
	chats := make([][]string, 2000)
	for k := range chats {
		chats[k] = conv[k : k+4]
	}
	return chats
}

// keptRankers are Rankers keeping the candidates and the lexical index
// they build first, as the scope cache keeps them.
func keptRankers() turn.Rankers {
	var (
		index *semantic.Lexical
		cands []semantic.Candidate
	)
	return turn.Rankers{Candidates: func(build func() []semantic.Candidate) []semantic.Candidate {
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
}

// lexicalBenchTurn returns a dry-run turn over snap under ranker, each
// call with the next of chats (round and round), with the scope's
// compiled matcher and its candidates and lexical index built once, as
// the scope cache keeps them.
func lexicalBenchTurn(b *testing.B, snap lore.Snapshot, chats [][]string, ranker lore.SemanticRanker) func() turn.Outcome {
	ctx := context.Background()
	reqs := make([]turn.Request, len(chats))
	for k, msgs := range chats {
		reqs[k] = turn.Request{Messages: msgs, Overrides: turn.Overrides{SemanticRanker: &ranker, Budget: ptr(2000000)}}
	}
	first, err := turn.Prepare(snap, reqs[0])
	if err != nil {
		b.Fatal(err)
	}
	m := activation.CompileInput(&first.Input, first.Options.MatchOptions())
	rk := keptRankers()
	k := 0
	return func() turn.Outcome {
		t, err := turn.Prepare(snap, reqs[k])
		if err != nil {
			b.Fatal(err)
		}
		k = (k + 1) % len(reqs)
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
// variant's fastest of 21, so other work on a shared machine skews it
// little; "ratio-newmsg" the same over a conversation bringing one new
// message a turn (lexicalBenchConversation), each variant through the
// same turns. docs/benchmarks.md#retrieval gives one run (goal: at most
// 1.3x).
func BenchmarkLexicalTurn(b *testing.B) {
	entries, msgs := lexicalBenchBook(250)
	snap := lore.Snapshot{Server: lore.Server{Settings: lore.DefaultServerSettings()}, Entries: entries,
		Collections: map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true}}}
	conv := lexicalBenchConversation(entries, msgs)
	runs := map[string]func() turn.Outcome{}
	for name, ranker := range map[string]lore.SemanticRanker{"keyword": lore.RankerOff, "lexical": lore.RankerLexical} {
		runs[name] = lexicalBenchTurn(b, snap, [][]string{msgs}, ranker)
		runs[name+"-newmsg"] = lexicalBenchTurn(b, snap, conv, ranker)
		out := runs[name]()
		retold := 0 // the two retold entries, admitted by similarity alone
		for _, ad := range out.Result.Admitted() {
			if (ad.Entry.ID == 101 || ad.Entry.ID == 201) && ad.Score != nil {
				retold++
			}
		}
		if out.Result.NumAdmitted() == 0 || (ranker == lore.RankerLexical) != (retold > 0) {
			b.Fatalf("%s: %d admitted, %d retold", name, out.Result.NumAdmitted(), retold)
		}
	}
	for _, name := range []string{"keyword", "lexical", "keyword-newmsg", "lexical-newmsg"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				runs[name]()
			}
		})
	}
	for _, v := range []string{"", "-newmsg"} {
		b.Run("ratio"+v, func(b *testing.B) {
			kwRun, lexRun := runs["keyword"+v], runs["lexical"+v]
			for b.Loop() {
				lexRun()
			}
			b.StopTimer()
			kw, lex := time.Duration(1<<62), time.Duration(1<<62)
			for range 21 {
				kw = min(kw, cpuPerRun(40*time.Millisecond, func() { kwRun() }))
				lex = min(lex, cpuPerRun(40*time.Millisecond, func() { lexRun() }))
			}
			b.ReportMetric(float64(kw.Nanoseconds()), "keyword-cpu-ns")
			b.ReportMetric(float64(lex.Nanoseconds()), "lexical-cpu-ns")
			b.ReportMetric(float64(lex)/float64(kw), "lexical/keyword")
		})
	}
}
