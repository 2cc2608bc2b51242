package activation

import (
	"context"
	"math"
	"runtime"
	"testing"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/sharedtest"
)

// TestMatcherBytesMeasured: Matcher.Bytes tracks the live heap of the
// compiled structures on corpus books (29, 115 and 256 entries): what
// Compile keeps is within 10% of compiledBytes, and what three turns add
// is within 25% of turnBytes less the chat memo's bound (a chat of many
// distinct messages fills it over many turns; these turns fill it with
// a few hundred bytes at most).
func TestMatcherBytesMeasured(t *testing.T) {
	sharedtest.SkipUnderRace(t)
	book := func(name string) []lore.Entry {
		res, err := format.Import(name, sharedtest.Read(t, "corpus", "st-worldinfo", name), format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		es := res.Book.Entries
		for i := range es {
			es[i].ID = int64(i + 1)
		}
		return es
	}
	// A first compile and turn: what the process initialises once.
	warm := Compile(book("sillytavern__Eldoria.json"), MatchOptions{})
	if _, err := warm.Activate(context.Background(), Input{Entries: book("sillytavern__Eldoria.json"), Messages: []string{"hello"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bronya-rand__Eorzea.json", "archkrrr__Date_a_Live_12.0.0.json", "bronya-rand__GI-Core.json"} {
		// The entries stay live throughout (they are the turns' input):
		// what the matcher shares of them is not its own.
		es := book(name)
		var m *Matcher
		in := Input{Entries: es, Messages: []string{"hello there", "the city, the guild and the dragon", "what about the war"}}
		compiled, turns := int64(math.MaxInt64), int64(math.MaxInt64)
		for range sharedtest.HeapRounds { // a new matcher each round, the last kept
			m = nil // not live before the next is built
			compiled = min(compiled, sharedtest.LiveHeap(func() any { m = Compile(es, MatchOptions{}); return m }))
			turns = min(turns, sharedtest.LiveHeap(func() any {
				for range 3 {
					if _, err := m.Activate(context.Background(), in, Options{}); err != nil {
						t.Fatal(err)
					}
				}
				return m
			}))
		}
		estCompiled, estTurns := m.compiledBytes(), m.turnBytes()-chatMemoBytes
		t.Logf("%s, %d entries: compiled %d B, estimate %d; turns %d B, estimate %d", name, len(es), compiled, estCompiled, turns, estTurns)
		if d := float64(estCompiled)/float64(compiled) - 1; d < -0.1 || d > 0.1 {
			t.Errorf("%s: compiledBytes %d against %d measured (%+.0f%%)", name, estCompiled, compiled, 100*d)
		}
		if d := float64(estTurns)/float64(turns) - 1; d < -0.25 || d > 0.25 {
			t.Errorf("%s: turnBytes %d (without the chat memo) against %d measured (%+.0f%%)", name, estTurns, turns, 100*d)
		}
		if got, want := m.Bytes(), estCompiled+estTurns+chatMemoBytes; got != want {
			t.Errorf("%s: Bytes %d, want %d", name, got, want)
		}
		runtime.KeepAlive(es)
	}
}
