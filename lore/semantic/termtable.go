package semantic

import "math/bits"

// termTable finds a query word's term id among the profiles' terms: open
// addressing over the terms' FNV-1a hashes, so an ASCII word is hashed
// while it is lowered, with no string built and no map lookup (the lexical
// turn's query cost, docs/benchmarks.md#retrieval).
type termTable struct {
	slots []int32  // term id + 1; 0 empty
	terms []string // by term id, "" for a term in no profile
	mask  uint64
}

// FNV-1a, 64 bits.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// newTermTable indexes vocab (term -> id; ids below n).
func newTermTable(vocab map[string]int32, n int) termTable {
	size := 1 << bits.Len(uint(2*len(vocab)|1)) // at most half full
	tt := termTable{slots: make([]int32, size), terms: make([]string, n), mask: uint64(size - 1)}
	for t, id := range vocab {
		tt.terms[id] = t
		h := hashString(t)
		for tt.slots[h&tt.mask] != 0 {
			h++
		}
		tt.slots[h&tt.mask] = id + 1
	}
	return tt
}

func hashString(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// find returns the id of term w whose hash is h.
func (tt *termTable) find(w []byte, h uint64) (int32, bool) {
	if len(tt.slots) == 0 {
		return 0, false
	}
	for ; ; h++ {
		v := tt.slots[h&tt.mask]
		if v == 0 {
			return 0, false
		}
		if tt.terms[v-1] == string(w) {
			return v - 1, true
		}
	}
}

// lookup returns term t's id.
func (tt *termTable) lookup(t string) (int32, bool) {
	return tt.find([]byte(t), hashString(t))
}

// bytes is the table's memory, beside its terms' strings (counted with
// the vocabulary).
func (tt *termTable) bytes() int { return 4*len(tt.slots) + 16*len(tt.terms) }
