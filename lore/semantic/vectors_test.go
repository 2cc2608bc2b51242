package semantic_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"loregate/lore/semantic"
)

// plainCosine is the reference: a plain scalar float32 loop computing the
// dot product and both lengths of every pair.
func plainCosine(a, b []float32) float32 {
	var dot, na, nb float32
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	return dot / float32(math.Sqrt(float64(na)*float64(nb)))
}

func randomVectors(n, dims int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		out[i] = v
	}
	return out
}

func TestVectorsScoreMatchesPlainCosine(t *testing.T) {
	for _, dims := range []int{1, 7, 8, 384, 1024, 1031} {
		t.Run(fmt.Sprint(dims), func(t *testing.T) {
			vecs := randomVectors(50, dims, uint64(dims))
			v := semantic.NewVectors(dims, len(vecs))
			for i, x := range vecs {
				if err := v.Add(int64(i+1), x); err != nil {
					t.Fatal(err)
				}
			}
			q := randomVectors(1, dims, 99)[0]
			got, err := v.Score(q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(vecs) {
				t.Fatalf("%d scores for %d vectors", len(got), len(vecs))
			}
			for i, s := range got {
				want := max(float64(plainCosine(q, vecs[i])), 0)
				if s.ID != int64(i+1) || math.Abs(s.Score-want) > 1e-5 {
					t.Fatalf("score %d = %+v, want id %d score %v", i, s, i+1, want)
				}
			}
			// Scaling a vector changes nothing: its cosine is its direction's.
			scaled := make([]float32, dims)
			for i, x := range q {
				scaled[i] = 1000 * x
			}
			again, _ := v.Score(scaled)
			for i := range got {
				if math.Abs(again[i].Score-got[i].Score) > 1e-5 {
					t.Fatalf("scaled query scores %v, was %v", again[i].Score, got[i].Score)
				}
			}
		})
	}
}

func TestCheckVector(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	cases := []struct {
		name string
		v    []float32
		dims int
		ok   bool
	}{
		{"good", []float32{1, 2, 3}, 3, true},
		{"any length", []float32{1, 2, 3}, 0, true},
		{"wrong length", []float32{1, 2}, 3, false},
		{"empty", nil, 0, false},
		{"too long", make([]float32, semantic.MaxDimensions+1), 0, false},
		{"NaN", []float32{1, nan, 3}, 3, false},
		{"infinite", []float32{inf, 0, 0}, 3, false},
		{"zero", []float32{0, 0, 0}, 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := semantic.CheckVector(c.v, c.dims)
			if c.ok != (err == nil) || (err != nil && !errors.Is(err, semantic.ErrBadVector)) {
				t.Fatalf("CheckVector = %v, want ok %v", err, c.ok)
			}
			v := semantic.NewVectors(3, 1)
			if err := v.Add(1, c.v); (err == nil) != (c.ok && len(c.v) == 3) {
				t.Fatalf("Add = %v", err)
			}
			if !c.ok && v.Len() != 0 {
				t.Fatal("a refused vector was kept")
			}
		})
	}
	v := semantic.NewVectors(3, 1)
	_ = v.Add(1, []float32{1, 0, 0})
	if _, err := v.Score([]float32{1, 0}); !errors.Is(err, semantic.ErrBadVector) {
		t.Fatalf("a query of the wrong length scored: %v", err)
	}
}

// BenchmarkCosine compares scoring one query against n candidates of 1,024
// dimensions: "plain" is a scalar float32 loop computing each cosine in
// full; "vectors" is Vectors.Score (unit vectors stored, eight-lane dot
// product). docs/benchmarks.md gives the ratio of one run.
func BenchmarkCosine(b *testing.B) {
	const dims = 1024
	for _, n := range []int{250, 5000} {
		vecs := randomVectors(n, dims, 7)
		q := randomVectors(1, dims, 8)[0]
		b.Run(fmt.Sprintf("plain/%d", n), func(b *testing.B) {
			out := make([]float32, n)
			for b.Loop() {
				for i, v := range vecs {
					out[i] = plainCosine(q, v)
				}
			}
		})
		b.Run(fmt.Sprintf("vectors/%d", n), func(b *testing.B) {
			v := semantic.NewVectors(dims, n)
			for i, x := range vecs {
				if err := v.Add(int64(i), x); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if _, err := v.Score(q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSizes: the sizes the scope cache charges grow with what is held.
func TestSizes(t *testing.T) {
	v := semantic.NewVectors(1024, 10)
	if v.Dims() != 1024 || v.Len() != 0 || v.Bytes() < 10*1024*4 {
		t.Fatalf("empty set: dims %d len %d bytes %d", v.Dims(), v.Len(), v.Bytes())
	}
	small := semantic.NewLexical([]semantic.Doc{{ID: 1, Text: "Tohka eats kinako bread"}})
	large := semantic.NewLexical([]semantic.Doc{{ID: 1, Text: "Tohka eats kinako bread"}, {ID: 2, Text: "Kurumi fires Zafkiel's bullets"}})
	if small.Len() != 1 || large.Len() != 2 || large.Bytes() <= small.Bytes() || small.Bytes() <= 0 {
		t.Fatalf("lexical sizes: %d/%d entries, %d/%d bytes", small.Len(), large.Len(), small.Bytes(), large.Bytes())
	}
}

func TestTextHash(t *testing.T) {
	// SHA-256 of "abc" (FIPS 180-2's test vector).
	if got := semantic.TextHash("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("TextHash(abc) = %s", got)
	}
	if semantic.EmbedText("@@depth 2\n  Lore about {{char}}.  ") != "Lore about {{char}}." {
		t.Fatalf("EmbedText keeps decorators or spaces: %q", semantic.EmbedText("@@depth 2\n  Lore about {{char}}.  "))
	}
}
