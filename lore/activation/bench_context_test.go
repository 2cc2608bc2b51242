package activation

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"loregate/lore"
)

// BenchmarkContextSources measures the bot turn (SkipTrace, warm cache)
// on the 250 entries x 20 messages workload twice in one run: A is the
// book and request without the issue-27 inputs (what the parent commit
// ran), B the same book where every 5th entry has a character filter,
// every 7th generation types and every 10th match flags, with a request
// carrying a character, a persona and 8 KB of context texts. It reports
// both CPU times per turn and B/A (goal <= 1.2), from each variant's
// fastest of 9 interleaved rounds.
func BenchmarkContextSources(b *testing.B) {
	r := rand.New(rand.NewPCG(250, 20))
	plain := benchBook(r, 250)
	msgs := benchChat(r, 20, plain)
	filtered := make([]lore.Entry, len(plain))
	for i, e := range plain {
		e = e.Clone()
		switch {
		case i%5 == 0:
			e.CharacterFilter = lore.CharacterFilter{Names: []string{"Vex", "Ilse"}}
		case i%7 == 0:
			e.GenerationTypes = []lore.GenerationType{lore.GenNormal, lore.GenContinue}
		}
		if i%10 == 3 {
			e.Match = lore.MatchSources{CharacterDescription: true, PersonaDescription: true}
		}
		filtered[i] = e
	}
	text := strings.Repeat("A tall rider of the northern marches who keeps old oaths. ", 35) // ~2 KB
	char := &Character{Name: "Vex", Tags: []string{"rider"}, Description: text, Personality: text, Scenario: text}
	persona := &Persona{Name: "Ana", Description: text}
	cols := map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true}}
	opts := Options{ScanDepth: ptr(20), CharBudget: -1, Random: func() float64 { return 0 }, SkipTrace: true}
	inA := Input{Entries: plain, Collections: cols, Messages: msgs}
	inB := Input{Entries: filtered, Collections: cols, Messages: msgs, Character: char, Persona: persona}
	cache := NewCache(4)
	keyA, keyB := CacheKey{Version: 1}, CacheKey{Version: 2}
	turn := func(key CacheKey, in Input) func() {
		return func() {
			res, err := cache.Activate(context.Background(), key, in, opts)
			if err != nil {
				b.Fatal(err)
			}
			benchSink += res.NumAdmitted()
		}
	}
	ra, _ := cache.Activate(context.Background(), keyA, inA, opts)
	rb, _ := cache.Activate(context.Background(), keyB, inB, opts)
	if ra.NumAdmitted() == 0 || rb.NumAdmitted() == 0 {
		b.Fatalf("the chat admits %d and %d entries", ra.NumAdmitted(), rb.NumAdmitted())
	}
	for b.Loop() {
		turn(keyB, inB)()
	}
	b.StopTimer()
	a, bb := time.Duration(1<<62), time.Duration(1<<62)
	for range 9 {
		a = min(a, cpuPerTurn(20*time.Millisecond, turn(keyA, inA)))
		bb = min(bb, cpuPerTurn(20*time.Millisecond, turn(keyB, inB)))
	}
	b.ReportMetric(float64(a.Nanoseconds()), "A-cpu-ns/turn")
	b.ReportMetric(float64(bb.Nanoseconds()), "B-cpu-ns/turn")
	b.ReportMetric(float64(bb)/float64(a), "B/A")
}

// BenchmarkMinActivations measures the min-activations sweep over 10 extra
// messages (scan depth 2, min activations out of reach, depth max 12) on
// 250 entries and 30 messages against one pass at scan depth 2
// (sweep/one; goal <= 2) and one pass over the same 12 messages
// (sweep/one12: the sweep's cost beyond reading 10 more messages), CPU
// time per turn, fastest of 9 interleaved rounds.
func BenchmarkMinActivations(b *testing.B) {
	r := rand.New(rand.NewPCG(250, 30))
	book := benchBook(r, 250)
	msgs := benchChat(r, 30, book)
	in := Input{Entries: book, Collections: map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true}},
		Messages: msgs}
	one := Options{ScanDepth: ptr(2), CharBudget: -1, SkipTrace: true, Random: func() float64 { return 0 }}
	sweep, one12 := one, one
	sweep.MinActivations, sweep.MinActivationsDepthMax = 1000, 12
	one12.ScanDepth = ptr(12)
	cache := NewCache(2)
	key := CacheKey{Version: 1}
	turn := func(o Options, passes *int) func() {
		return func() {
			res, err := cache.Activate(context.Background(), key, in, o)
			if err != nil {
				b.Fatal(err)
			}
			*passes = res.Passes
			benchSink += res.NumAdmitted()
		}
	}
	var p1, p2, p3 int
	turn(one, &p1)()
	turn(sweep, &p2)()
	if p2 != p1+10 {
		b.Fatalf("the sweep ran %d passes, one pass %d: want 10 more", p2, p1)
	}
	for b.Loop() {
		turn(sweep, &p2)()
	}
	b.StopTimer()
	a, a12, s := time.Duration(1<<62), time.Duration(1<<62), time.Duration(1<<62)
	for range 9 {
		a = min(a, cpuPerTurn(20*time.Millisecond, turn(one, &p1)))
		a12 = min(a12, cpuPerTurn(20*time.Millisecond, turn(one12, &p3)))
		s = min(s, cpuPerTurn(20*time.Millisecond, turn(sweep, &p2)))
	}
	b.ReportMetric(float64(a.Nanoseconds()), "one-cpu-ns/turn")
	b.ReportMetric(float64(a12.Nanoseconds()), "one12-cpu-ns/turn")
	b.ReportMetric(float64(s.Nanoseconds()), "sweep-cpu-ns/turn")
	b.ReportMetric(float64(s)/float64(a), "sweep/one")
	b.ReportMetric(float64(s)/float64(a12), "sweep/one12")
}
