package semantic

import (
	"errors"
	"fmt"
	"math"
)

// MaxDimensions bounds an embedding's length: larger answers are refused as
// malformed (the largest common models have 3,072 or 4,096 dimensions).
const MaxDimensions = 8192

// ErrBadVector is wrapped by every refusal of a vector: wrong length, NaN
// or infinite components, zero length.
var ErrBadVector = errors.New("bad embedding vector")

// CheckVector reports whether v is a usable embedding of dims dimensions
// (dims 0 accepts any length from 1 to MaxDimensions): finite components
// and a non-zero length. Provider answers are untrusted input; every
// vector passes here before it is stored or scored.
func CheckVector(v []float32, dims int) error {
	switch {
	case len(v) == 0 || len(v) > MaxDimensions:
		return fmt.Errorf("%w: %d dimensions (1-%d)", ErrBadVector, len(v), MaxDimensions)
	case dims > 0 && len(v) != dims:
		return fmt.Errorf("%w: %d dimensions, want %d", ErrBadVector, len(v), dims)
	}
	var n float64
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: component %d is not a finite number", ErrBadVector, i)
		}
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return fmt.Errorf("%w: zero length", ErrBadVector)
	}
	return nil
}

// Vectors are one scope's candidate embeddings, kept scaled to unit length
// in one flat float32 array so that scoring a query is one dot product per
// candidate (exact float32 cosine, docs/contract.md#semantic; 4 bytes per
// dimension and candidate). Build with NewVectors and Add, then share read-only: Score is
// safe for concurrent use.
type Vectors struct {
	dims int
	ids  []int64
	data []float32
}

// NewVectors returns an empty set of dims-dimensional vectors, with room
// for n.
func NewVectors(dims, n int) *Vectors {
	return &Vectors{dims: dims, ids: make([]int64, 0, n), data: make([]float32, 0, n*dims)}
}

// Dims is the vectors' length.
func (v *Vectors) Dims() int { return v.dims }

// Len is the number of vectors.
func (v *Vectors) Len() int { return len(v.ids) }

// Bytes is the memory of the vectors and ids in bytes.
func (v *Vectors) Bytes() int { return 4*cap(v.data) + 8*cap(v.ids) }

// Add stores the vector of candidate id, scaled to unit length; an error
// wrapping ErrBadVector (CheckVector) leaves v unchanged.
func (v *Vectors) Add(id int64, vec []float32) error {
	if err := CheckVector(vec, v.dims); err != nil {
		return err
	}
	v.ids = append(v.ids, id)
	v.data = appendUnit(v.data, vec)
	return nil
}

// appendUnit appends vec scaled to unit length (norm in float64).
func appendUnit(dst, vec []float32) []float32 {
	var n float64
	for _, x := range vec {
		n += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(n))
	for _, x := range vec {
		dst = append(dst, x*inv)
	}
	return dst
}

// Score returns the cosine similarity of query to every vector, in the
// order they were added, clamped to 0-1: a negative cosine is 0, as unrelated
// as it gets for admission. The query is checked like a stored vector.
func (v *Vectors) Score(query []float32) ([]Score, error) {
	if err := CheckVector(query, v.dims); err != nil {
		return nil, err
	}
	q := appendUnit(make([]float32, 0, len(query)), query)
	out := make([]Score, len(v.ids))
	for i, id := range v.ids {
		c := float64(Dot(q, v.data[i*v.dims:(i+1)*v.dims]))
		out[i] = Score{ID: id, Score: min(max(c, 0), 1)}
	}
	return out, nil
}

// ScoreByID is Score as a map from candidate id to score.
func (v *Vectors) ScoreByID(query []float32) (map[int64]float64, error) {
	scores, err := v.Score(query)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]float64, len(scores))
	for _, s := range scores {
		out[s.ID] = s.Score
	}
	return out, nil
}

// Dot is the float32 dot product of a and b (len(b) >= len(a)), summed in
// eight lanes so the additions pipeline; the order of additions is fixed,
// so the result is the same on every run.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
		s4 += a[i+4] * b[i+4]
		s5 += a[i+5] * b[i+5]
		s6 += a[i+6] * b[i+6]
		s7 += a[i+7] * b[i+7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}
