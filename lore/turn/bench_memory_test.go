package turn_test

import (
	"math/rand/v2"
	"testing"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/format"
	"loregate/lore/semantic"
	"loregate/lore/sharedtest"
	"loregate/lore/turn"
)

// BenchmarkScopeMemory measures what the scope cache holds per scope for
// retrieval by meaning (docs/operations.md#embeddings "Memory per
// scope"), as live heap: the candidate list, the lexical index and 1,024-
// and 3,072-dimension vectors, for a full scope of 250 vectorized entries
// of about 80 words (lexicalBenchBook) and for the corpus's vectorized
// Date a Live book; next to each, the estimate the cache charges to its
// budget (Lexical.Bytes, Vectors.Bytes). textTables is what the process
// holds once, for every scope: lore/activation's text tables, built by
// the first text that is not all ASCII (0 when something in the process
// built them before: run the benchmark alone). They are built before the
// books are measured, so one round (-benchtime 1x) gives what later rounds
// do; built in the Date a Live book's first round, they were counted as
// its lexical index's.
func BenchmarkScopeMemory(b *testing.B) {
	tables := sharedtest.LiveHeap(func() any { return activation.MatchingForm("Éclair") })
	b.Run("textTables", func(b *testing.B) {
		for b.Loop() {
		}
		b.ReportMetric(float64(tables), "once-per-process-B")
	})
	bench, _ := lexicalBenchBook(250)
	data := sharedtest.Read(b, "corpus", "st-worldinfo", "archkrrr__Date_a_Live_12.0.0_Vectorized.json")
	res, err := format.Import("Date a Live (Vectorized).json", data, format.Options{})
	if err != nil {
		b.Fatal(err)
	}
	dal := res.Book.Entries
	for i := range dal {
		dal[i].ID = int64(i + 1)
	}
	for _, book := range []struct {
		name    string
		entries []lore.Entry
	}{{"bench250", bench}, {"dateALive", dal}} {
		entries := book.entries
		b.Run(book.name, func(b *testing.B) {
			var cands []semantic.Candidate
			var x *semantic.Lexical
			var candBytes, lexBytes int64
			for b.Loop() {
				cands, x = nil, nil // measure this round's, not the last one's freed
				candBytes = sharedtest.LiveHeap(func() any {
					cands = semantic.Candidates(entries, semantic.Which{})
					return cands
				})
				lexBytes = sharedtest.LiveHeap(func() any { x = turn.NewLexical(cands); return x })
			}
			b.ReportMetric(float64(len(cands)), "candidates")
			b.ReportMetric(float64(candBytes), "candidates-B")
			b.ReportMetric(float64(lexBytes), "lexical-B")
			b.ReportMetric(float64(x.Bytes()), "lexical-estimate-B")
			for _, dims := range []int{1024, 3072} {
				r := rand.New(rand.NewPCG(uint64(dims), 28))
				var v *semantic.Vectors
				vb := sharedtest.LiveHeap(func() any {
					v = semantic.NewVectors(dims, len(cands))
					for _, c := range cands {
						vec := make([]float32, dims)
						for i := range vec {
							vec[i] = r.Float32() - 0.5
						}
						if err := v.Add(c.ID, vec); err != nil {
							b.Fatal(err)
						}
					}
					return v
				})
				suffix := "-1024d-B"
				if dims == 3072 {
					suffix = "-3072d-B"
				}
				b.ReportMetric(float64(vb), "vectors"+suffix)
				b.ReportMetric(float64(v.Bytes()), "vectors-estimate"+suffix)
			}
		})
	}
}
