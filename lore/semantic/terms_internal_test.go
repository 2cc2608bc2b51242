package semantic

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"loregate/lore/activation"
)

// TestQueryTermsASCII: the byte cutter of ASCII queries (lowering each
// word) finds the same term ids, in the same order, as cutTerms over the
// matching form, the cutter of every query.
func TestQueryTermsASCII(t *testing.T) {
	x := NewLexical([]Doc{
		{ID: 1, Title: "Lollipop", Text: "Kotori always has a lollipop; chupa-chups, 2 of them, in her mouth."},
		{ID: 2, Title: "Tohka", Text: "Tohka eats kinako bread every afternoon at Raizen High."},
	})
	for _, q := range []string{"", "   ", "Kotori's lollipop!", "kinako_bread 2 2nd,raizen.high\tTOHKA", "a b c", "lollipop--kotori...kinako",
		"LOLLIPOP " + strings.Repeat("x", 70) + " Kotori", "Kotori’s lollipop, Tōhka"} {
		form := matchingForm(q)
		var want []int32
		cutTerms(form, func(term string, _ bool) {
			if id, ok := x.terms.lookup(term); ok && len(x.postings[id]) > 0 {
				want = append(want, id)
			}
		})
		got := x.queryTerms(q, nil)
		if !slices.Equal(got, want) {
			t.Errorf("%q: byte cutter %v, cutTerms %v", q, got, want)
		}
	}
}

// TestScoresAt: the scores read by position (the engine's gate plan) are
// Score's, for a query sharing terms with the candidates and for one
// sharing none.
func TestScoresAt(t *testing.T) {
	x := NewLexical([]Doc{
		{ID: 10, Title: "Lollipop", Text: "Kotori always has a lollipop in her mouth."},
		{ID: 12, Title: "Tohka", Text: "Tohka eats kinako bread every afternoon."},
		{ID: 40, Title: "Fraxinus", Text: "The airship Fraxinus floats above Tengu City."},
	})
	for _, q := range []string{"Kotori, the lollipop!", "nothing shared here"} {
		s := x.Scores(q)
		var idx []int32
		for _, id := range []int64{40, 10, 12} {
			i, ok := s.Index(id)
			if !ok {
				t.Fatalf("candidate %d has no index", id)
			}
			idx = append(idx, i)
		}
		out := make([]float32, len(idx))
		s.ScoresAt(idx, out)
		for k, id := range []int64{40, 10, 12} {
			want, _ := s.Score(id)
			if out[k] != float32(want) {
				t.Errorf("%q, candidate %d: ScoresAt %v, Score %v", q, id, out[k], want)
			}
		}
		if _, ok := s.Index(11); ok {
			t.Error("id 11 is no candidate")
		}
	}
}

// TestScoresOfMessages: the query's messages scored apart give the scores
// of their text joined by newlines (the turn's query).
func TestScoresOfMessages(t *testing.T) {
	x := NewLexical([]Doc{
		{ID: 1, Title: "Lollipop", Text: "Kotori always has a lollipop in her mouth."},
		{ID: 2, Title: "Tohka", Text: "Tohka eats kinako bread every afternoon; Tōhka’s angel is Sandalphon."},
	})
	for _, msgs := range [][]string{{"Hi Kotori!", "Kotori, why the LOLLIPOP?"}, {"Tōhka’s angel", "kinako bread"}, {"nothing", "shared"}} {
		joined, apart := x.Scores(strings.Join(msgs, "\n")), x.ScoresOf(msgs)
		for _, id := range []int64{1, 2} {
			a, _ := joined.Score(id)
			b, _ := apart.Score(id)
			if a != b {
				t.Errorf("%q, candidate %d: joined %v, apart %v", msgs, id, a, b)
			}
		}
	}
}

// TestTermTable: every profile term is found under its id, and no other
// word (a term in no profile, a stop word, an unknown word) is found.
func TestTermTable(t *testing.T) {
	x := NewLexical([]Doc{
		{ID: 1, Title: "Lollipop", Text: strings.Repeat("Kotori always has a lollipop in her mouth. ", 3) + "once"},
		{ID: 2, Title: "Tohka", Text: "Tohka eats kinako bread every afternoon at Raizen High School in Tengu City."},
	})
	found := 0
	for id := range x.terms.spans {
		term := x.terms.term(int32(id))
		if term == "" {
			continue
		}
		got, ok := x.terms.lookup(term)
		if !ok || got != int32(id) {
			t.Errorf("term %q: got %d %v, want %d", term, got, ok, id)
		}
		if len(x.postings[id]) == 0 {
			t.Errorf("term %q is in no profile", term)
		}
		found++
	}
	if found < 10 {
		t.Fatalf("only %d terms", found)
	}
	for _, w := range []string{"the", "zzz", "lollipops", ""} {
		if _, ok := x.terms.lookup(w); ok {
			t.Errorf("%q found", w)
		}
	}
}

// TestSumsInTermOrder: the query's sums are made term by term in the
// order of their ids, each term's weight from how often the query says
// it, so two processes give the same scores: they equal, bit for bit,
// those of a sort of the query's term ids, for queries with repeated
// terms, terms across messages and a term said more than 64 times, read
// whole (ScoresAt) or sparsely (Nonzero), query after query from the
// pooled arrays.
func TestSumsInTermOrder(t *testing.T) {
	var docs []Doc
	words := strings.Fields("kotori lollipop tohka kinako bread raizen high tengu city fraxinus airship sandalphon angel throne sword spirit origami shido reine mana yoshino puppet")
	for i := range 40 {
		var b strings.Builder
		for k := range 12 {
			b.WriteString(words[(i*7+k*k)%len(words)] + " ")
		}
		docs = append(docs, Doc{ID: int64(100 + i), Title: words[i%len(words)], Text: b.String()})
	}
	x := NewLexical(docs)
	reference := func(msgs []string) []float32 {
		var ids []int32
		for _, m := range msgs {
			ids = x.queryTerms(m, ids)
		}
		slices.Sort(ids)
		acc := make([]float32, len(x.ids))
		qnorm := 0.0
		for i := 0; i < len(ids); {
			t, f := ids[i], 1
			for i+f < len(ids) && ids[i+f] == t {
				f++
			}
			i += f
			qw := float64(x.idf[t]) * tfWeight(f)
			qnorm += qw * qw
			for _, p := range x.postings[t] {
				acc[p.doc] += float32(qw) * p.weight
			}
		}
		out := make([]float32, len(acc))
		for i, a := range acc {
			if a > 0 {
				out[i] = float32(min(float64(a)/math.Sqrt(qnorm), 1))
			}
		}
		return out
	}
	idx := make([]int32, len(x.ids))
	for i := range idx {
		idx[i] = int32(i)
	}
	queries := [][]string{
		{"Shido and Tohka eat kinako bread; Tohka, TOHKA!", "the airship Fraxinus over Tengu City, Fraxinus again"},
		{"Yoshino's puppet", "puppet puppet"},
		{strings.Repeat("reine origami ", 70), "mana"},
		{"nothing shared", ""},
		{"Tōhka’s angel Sandalphon", "a throne and a sword"},
		{"Shido and Tohka", "kinako bread for Shido, Tōhka’s angel"},
		{"tohka", "Tohka's sword", "the sword of Tohka", "kinako"},
	}
	// Every query twice: its messages' terms come from the memo the
	// second time.
	for _, msgs := range append(queries, queries...) {
		want := reference(msgs)
		got := make([]float32, len(idx))
		x.ScoresOf(msgs).ScoresAt(idx, got)
		if !slices.Equal(got, want) {
			t.Errorf("%q: sums %v, want %v", msgs, got, want)
		}
		// The sparse read (the engine's gate plan): the candidates scoring
		// above 0 alone, by position.
		at, nz := x.ScoresOf(msgs).Nonzero(nil, nil)
		var wantAt []int32
		var wantNz []float32
		for i, v := range want {
			if v > 0 {
				wantAt, wantNz = append(wantAt, int32(i)), append(wantNz, v)
			}
		}
		if !slices.Equal(at, wantAt) || !slices.Equal(nz, wantNz) {
			t.Errorf("%q: nonzero %v %v, want %v %v", msgs, at, nz, wantAt, wantNz)
		}
		testAbove(t, x, msgs, want)
	}
}

// testAbove checks Above's read of the scores of msgs (want, by position)
// at some thresholds: those at or above alone, and the kept sums read
// (SumScore of Above's sums, ScoresAt, Score) as summed anew until
// Release.
func testAbove(t *testing.T, x *Lexical, msgs []string, want []float32) {
	t.Helper()
	for _, thr := range []float64{0.01, 0.25, float64(slices.Max(want)), 0.9} {
		s := x.ScoresOf(msgs)
		at, out, sums, norm := s.Above(thr, nil, nil)
		for i, v := range want {
			if got := activation.SumScore(sums[i], norm); got != v {
				t.Errorf("%q: kept sum %d scores %v, want %v", msgs, i, got, v)
			}
		}
		var wantAt []int32
		var wantOut []float32
		for i, v := range want {
			if v > 0 && float64(v) >= thr {
				wantAt, wantOut = append(wantAt, int32(i)), append(wantOut, v)
			}
		}
		if !slices.Equal(at, wantAt) || !slices.Equal(out, wantOut) {
			t.Errorf("%q, threshold %v: above %v %v, want %v %v", msgs, thr, at, out, wantAt, wantOut)
		}
		idx := []int32{int32(len(want) - 1), 0, 3}
		got := make([]float32, len(idx))
		s.ScoresAt(idx, got)
		fresh, _ := x.ScoresOf(msgs).Score(x.ids[3])
		kept, _ := s.Score(x.ids[3])
		if got[0] != want[idx[0]] || got[1] != want[0] || got[2] != want[3] || kept != fresh {
			t.Errorf("%q: kept sums read %v and %v, want %v and %v", msgs, got, kept, []float32{want[idx[0]], want[0], want[3]}, fresh)
		}
		s.Release()
	}
}

// TestEightBytes: the eight-byte tests of the ASCII cutter agree with
// the byte tables for every byte in every place: wordBytes with
// asciiKinds (no byte of 0x80 and up is a word byte), lowerASCII with
// lowering one byte at a time.
func TestEightBytes(t *testing.T) {
	for b := range 256 {
		for place := range 8 {
			for _, fill := range []byte{' ', 'Q', '7', 'z', '9', 'a', '0', 0x7f} {
				var c [8]byte
				for k := range c {
					c[k] = fill
				}
				c[place] = byte(b)
				v := uint64(0)
				for k := range c {
					v |= uint64(c[k]) << (8 * k)
				}
				got := wordBytes(v)>>(8*place+7)&1 == 1
				if want := b < 0x80 && asciiKinds[b] == kindWord; got != want {
					t.Fatalf("byte %#x in place %d among %q: word %v, want %v", b, place, fill, got, want)
				}
				if b >= 0x80 {
					continue
				}
				low := byte(lowerASCII(v) >> (8 * place))
				want := byte(b)
				if want >= 'A' && want <= 'Z' {
					want += 'a' - 'A'
				}
				if low != want {
					t.Fatalf("byte %#x in place %d: lowered %#x, want %#x", b, place, low, want)
				}
			}
		}
	}
}

// TestQueryTermsChunks: the eight-byte cutter finds the terms the cut of
// the matching form finds (queryTermsUnicode) in texts of words of every
// length up to 70, separators of one to nine bytes and either case, so
// words and separators start and end at every place of a chunk and at
// the end of the text.
func TestQueryTermsChunks(t *testing.T) {
	words := strings.Fields("ab Kotori LOLLIPOP tohka kinako2 bread raizen-high tengu city fraxinus airship sandalphon 7th")
	var docs []Doc
	for i, w := range words {
		docs = append(docs, Doc{ID: int64(i + 1), Text: w + " " + strings.Repeat(w[:1], 9+i)})
	}
	x := NewLexical(docs)
	r := rand.New(rand.NewPCG(8, 8))
	for range 2000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(strings.Repeat(",. !?\t-'"[r.IntN(8):][:1], 1+r.IntN(9)))
			if w := words[r.IntN(len(words))]; r.IntN(4) > 0 {
				b.WriteString(w)
			} else {
				b.WriteString(strings.Repeat("Tq", 1+r.IntN(35)))
			}
		}
		q := b.String()
		if got, want := x.queryTerms(q, nil), x.queryTermsUnicode(q, nil); !slices.Equal(got, want) {
			t.Fatalf("%q: %v, want %v", q, got, want)
		}
	}
}

// TestSumsFrom: the sums read two to a word give the positions a plain
// loop gives, for every length and sums on both sides of the limit in
// every place.
func TestSumsFrom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		acc := make([]float32, n)
		for range 20 {
			for i := range acc {
				acc[i] = []float32{0, 0, 0.5, 1, 1.5, math.MaxFloat32, math.SmallestNonzeroFloat32}[r.IntN(7)]
			}
			lim := []float32{1, math.SmallestNonzeroFloat32, math.MaxFloat32, 0.75}[r.IntN(4)]
			for _, sums := range [][]float32{acc, acc[min(n, 1):]} { // the second one unaligned
				var want []int32
				for i, a := range sums {
					if a >= lim {
						want = append(want, int32(i))
					}
				}
				if got := sumsFrom(sums, math.Float32bits(lim), nil); !slices.Equal(got, want) {
					t.Fatalf("%v from %v: %v, want %v", sums, lim, got, want)
				}
			}
		}
	}
}

// TestTermMemo: the memo stays within its bound as messages come (it
// starts again empty), a message larger than the bound is cut every time,
// and a memoised message's terms are its terms.
func TestTermMemo(t *testing.T) {
	x := NewLexical([]Doc{{ID: 1, Title: "Lollipop", Text: "Kotori always has a lollipop in her mouth."}})
	for i := range 3000 {
		msg := "Kotori's lollipop " + strings.Repeat("x", i%50) + " message " + strconv.Itoa(i)
		tc, _ := x.textTerms(msg, nil)
		if x.memo.bytes > termMemoBytes {
			t.Fatalf("message %d: memo of %d bytes", i, x.memo.bytes)
		}
		if again, _ := x.textTerms(msg, nil); len(tc) != 2 || !slices.Equal(again, tc) {
			t.Fatalf("message %d: terms %v, then %v", i, tc, again)
		}
	}
	long := strings.Repeat("kotori ", termMemoBytes/7+1)
	if tc, _ := x.textTerms(long, nil); len(tc) != 1 || tc[0].n != termMemoBytes/7+1 {
		t.Fatalf("long message: %v", tc)
	}
	if _, ok := x.memo.terms[long]; ok {
		t.Error("a message larger than the bound memoised")
	}
}
