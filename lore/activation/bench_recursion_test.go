package activation

import (
	"context"
	"encoding/json"
	"testing"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/sharedtest"
)

// recWorkload is one book of the shared bench workload (workload/NAME.json)
// with its 100-message chat, imported by the real importer.
func recWorkload(b *testing.B, book, chat string) Input {
	res, err := format.Import(book+".json", sharedtest.Read(b, "bench", "workload", book+".json"), format.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var msgs []string
	if err := json.Unmarshal(sharedtest.Read(b, "bench", "workload", chat+".json"), &msgs); err != nil {
		b.Fatal(err)
	}
	entries := res.Book.Entries
	for i := range entries {
		entries[i].ID, entries[i].Collection = int64(i+1), lore.DefaultCollection
	}
	return Input{
		Entries:     entries,
		Collections: map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true}},
		Messages:    msgs,
	}
}

// recBooks are the bench workload's recursion books with their 100-message
// chats.
var recBooks = []struct{ book, chat string }{
	{"latin-250", "latin-250-chat-100"},
	{"latin-500", "latin-500-chat-100"},
	{"cjk-250", "cjk-250-chat-100"},
}

// recVariant is one row of the recursion benchmarks: a compiled book, its
// turn and options, and the passes the turn must run.
type recVariant struct {
	name   string
	m      *Matcher
	in     Input
	opts   Options
	passes int
}

// recVariants are the rows of book (recBooks) as the bot runs a turn
// (SkipTrace, warm text cache, unlimited budget, scan depth 100): single
// is the -rec book without recursion, recursive-3 the same turn with it;
// plain and idle-pass are the book without links, without and with
// recursion; single-buf and recursive-3-buf are single and recursive-3
// with a reused Options.AdmittedBuf. It fails b when a turn does not run its passes or the tiers
// are not linked as described.
func recVariants(b *testing.B, book, chat string) ([]recVariant, map[string]int) {
	rec, plain := recWorkload(b, book+"-rec", chat), recWorkload(b, book, chat)
	opts := Options{ScanDepth: ptr(100), CharBudget: -1, Random: func() float64 { return 0 }, SkipTrace: true, Texts: NewTextCache(0)}
	on := opts
	on.Recursive = true
	mRec, mPlain := CompileInput(&rec, opts.MatchOptions()), CompileInput(&plain, opts.MatchOptions())
	buf, onBuf := opts, on
	buf.AdmittedBuf, onBuf.AdmittedBuf = make([]Admission, 0, len(rec.Entries)), make([]Admission, 0, len(rec.Entries))
	variants := []recVariant{
		{"single", mRec, rec, opts, 1},
		{"recursive-3", mRec, rec, on, 3},
		{"plain", mPlain, plain, opts, 1},
		{"idle-pass", mPlain, plain, on, 2},
		{"single-buf", mRec, rec, buf, 1},
		{"recursive-3-buf", mRec, rec, onBuf, 3},
	}
	admitted := map[string]int{}
	for _, v := range variants {
		res, err := v.m.Activate(context.Background(), v.in, v.opts)
		if err != nil {
			b.Fatal(err)
		}
		if res.Passes != v.passes {
			b.Fatalf("%s: %d passes, want %d", v.name, res.Passes, v.passes)
		}
		admitted[v.name] = res.NumAdmitted()
	}
	if admitted["recursive-3"] < 2*admitted["single"] || admitted["idle-pass"] != admitted["plain"] {
		b.Fatalf("admitted %v: the workload's tiers are not linked as described", admitted)
	}
	return variants, admitted
}

// BenchmarkRecursionWorkload measures recursion by new text on the bench
// workload's recursion books (docs/benchmarks.md "Recursion by new text"):
// each entry the 100-message chat admits names a second-tier entry whose
// content names a third, so 3 passes triple the admissions. Rows
// (recVariants): recursive-3 over single (goal: at most 1.5x); idle-pass
// over plain, where pass 2 reads the admitted text and admits nothing
// (goal: at most 1.1x); rec3buf/single-buf is recursive-3 over single when
// both reuse an Options.AdmittedBuf (no Admitted slice allocated a turn).
// Ratios are process CPU time per turn, each variant's fastest of 7
// interleaved rounds.
func BenchmarkRecursionWorkload(b *testing.B) {
	for _, w := range recBooks {
		b.Run(w.book, func(b *testing.B) {
			variants, admitted := recVariants(b, w.book, w.chat)
			per := map[string]int64{}
			for range 7 {
				for _, v := range variants {
					d := cpuPerTurn(30_000_000, func() {
						res, _ := v.m.Activate(context.Background(), v.in, v.opts)
						benchSink += res.NumAdmitted()
					}).Nanoseconds()
					if old, ok := per[v.name]; !ok || d < old {
						per[v.name] = d
					}
				}
			}
			for b.Loop() {
				benchSink++
			}
			b.ReportMetric(float64(per["single"]), "single-ns/turn")
			b.ReportMetric(float64(per["recursive-3"]), "rec3-ns/turn")
			b.ReportMetric(float64(per["idle-pass"]), "idle-ns/turn")
			b.ReportMetric(float64(per["single-buf"]), "singlebuf-ns/turn")
			b.ReportMetric(float64(per["recursive-3-buf"]), "rec3buf-ns/turn")
			b.ReportMetric(float64(per["recursive-3"])/float64(per["single"]), "rec3/single")
			b.ReportMetric(float64(per["idle-pass"])/float64(per["plain"]), "idle/plain")
			b.ReportMetric(float64(per["recursive-3-buf"])/float64(per["single-buf"]), "rec3buf/single-buf")
			b.ReportMetric(float64(admitted["recursive-3"])/float64(admitted["single"]), "admit-x")
		})
	}
}

// BenchmarkRecursionTurn runs one row of BenchmarkRecursionWorkload per
// sub-benchmark (BOOK/VARIANT), b.N turns, for instruction counts under
// valgrind (docs/benchmarks.md "Recursion by new text"), which do not
// depend on the machine's load.
func BenchmarkRecursionTurn(b *testing.B) {
	for _, w := range recBooks {
		b.Run(w.book, func(b *testing.B) {
			variants, _ := recVariants(b, w.book, w.chat)
			for _, v := range variants {
				b.Run(v.name, func(b *testing.B) {
					for b.Loop() {
						res, _ := v.m.Activate(context.Background(), v.in, v.opts)
						benchSink += res.NumAdmitted()
					}
				})
			}
		})
	}
}
