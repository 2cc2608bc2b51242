package semantic

import (
	"math"
	"runtime"
	"testing"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/format"
	"loregate/lore/sharedtest"
)

// TestLexicalBytesMeasured: Lexical.Bytes tracks the live heap of the
// index on corpus books (29, 107 and 250 candidates, every entry a
// candidate; the last also with ids spread out, so the candidate index is
// a map): what NewLexical keeps is within 5% of indexBytes, and what three
// turns add is within 25% of turnBytes less the term memo's bound (these
// turns fill it with a few hundred bytes).
func TestLexicalBytesMeasured(t *testing.T) {
	sharedtest.SkipUnderRace(t)
	// The process's text tables, built by the first text that is not all
	// ASCII: no index's (Bytes).
	sharedtest.LiveHeap(func() any { return activation.MatchingForm("Éclair") })
	chat := []string{
		"Shido walks into the classroom and looks around for Tohka.",
		"Is the spirit still near the shrine? The AST was there yesterday.",
		"Let's ask Kotori about Ratatoskr and the Fraxinus before the date.",
	}
	for _, c := range []struct {
		name   string
		spread int64 // id step: 1 dense (a table), 1,000 a map
	}{
		{"bronya-rand__Eorzea.json", 1},
		{"archkrrr__Date_a_Live_12.0.0_Vectorized.json", 1},
		{"bronya-rand__GI-Core.json", 1},
		{"bronya-rand__GI-Core.json", 1000},
	} {
		res, err := format.Import(c.name, sharedtest.Read(t, "corpus", "st-worldinfo", c.name), format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var docs []Doc
		for i, e := range lore.JoinSplit(res.Book.Entries) {
			if len(docs) == lore.MaxEntriesPerScope {
				break
			}
			docs = append(docs, Doc{ID: int64(i+1) * c.spread, Title: e.Title, Text: EmbedText(e.Content)})
		}
		// docs stay live throughout: were they freed while the index is
		// built, the heap would shrink by their texts.
		var x *Lexical
		built, turns := int64(math.MaxInt64), int64(math.MaxInt64)
		for range sharedtest.HeapRounds { // a new index each round, the last kept
			x = nil // not live before the next is built
			built = min(built, sharedtest.LiveHeap(func() any { x = NewLexical(docs); return x }))
			turns = min(turns, sharedtest.LiveHeap(func() any {
				for range 3 {
					x.ScoresOf(chat).Nonzero(nil, nil)
				}
				return x
			}))
		}
		estIndex, estTurns := x.indexBytes(), x.turnBytes()-termMemoBytes
		t.Logf("%s (id step %d), %d candidates, %d terms: index %d B, estimate %d; turns %d B, estimate %d",
			c.name, c.spread, len(docs), len(x.idf), built, estIndex, turns, estTurns)
		if d := float64(estIndex)/float64(built) - 1; d < -0.05 || d > 0.05 {
			t.Errorf("%s (id step %d): indexBytes %d against %d measured (%+.1f%%)", c.name, c.spread, estIndex, built, 100*d)
		}
		if d := float64(estTurns)/float64(turns) - 1; d < -0.25 || d > 0.25 {
			t.Errorf("%s (id step %d): turnBytes %d (without the term memo) against %d measured (%+.0f%%)", c.name, c.spread, estTurns, turns, 100*d)
		}
		if got, want := x.Bytes(), estIndex+estTurns+termMemoBytes; got != want {
			t.Errorf("%s: Bytes %d, want %d", c.name, got, want)
		}
		runtime.KeepAlive(docs)
	}
}
