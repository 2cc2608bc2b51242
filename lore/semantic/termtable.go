package semantic

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// termTable finds a query word's term id among the profiles' terms: open
// addressing over the terms' hashes (hashTerm), so an ASCII word is hashed
// eight bytes at a time while it is lowered, and compared with a term
// eight bytes at a time, with no string built and no map lookup (the
// lexical turn's query cost, docs/benchmarks.md#retrieval).
type termTable struct {
	slots []int32 // term id + 1; 0 empty
	// keys holds the terms' bytes eight to a word (little-endian, as
	// hashTerm reads them), each term from a word of its own, zero-padded;
	// spans says where, by term id (n 0: a term in no profile).
	keys  []uint64
	spans []termSpan
	mask  uint64
}

// termSpan is where a term's n bytes lie in termTable.keys: from word at.
type termSpan struct{ at, n int32 }

// The hash's seed and multiplier (wyhash's).
const (
	hashSeed = 0xa0761d6478bd642f
	hashMul  = 0xe7037ed1a0b428db
)

// newTermTable indexes vocab (term -> id; ids below n).
func newTermTable(vocab map[string]int32, n int) termTable {
	size := 1 << bits.Len(uint(2*len(vocab)|1)) // at most half full
	tt := termTable{slots: allocated[int32](size), spans: allocated[termSpan](n), mask: uint64(size - 1)}
	words := 0
	for t := range vocab {
		words += (len(t) + 7) / 8
	}
	tt.keys = allocated[uint64](words)[:0]
	for t, id := range vocab {
		tt.spans[id] = termSpan{at: int32(len(tt.keys)), n: int32(len(t))}
		tt.keys = appendWords(tt.keys, t)
		h := hashTerm(t)
		for tt.slots[h&tt.mask] != 0 {
			h++
		}
		tt.slots[h&tt.mask] = id + 1
	}
	return tt
}

// appendWords appends t's bytes to dst eight to a word, little-endian, the
// last word zero-padded.
func appendWords(dst []uint64, t string) []uint64 {
	for k := 0; k < len(t); k += 8 {
		var c [8]byte
		copy(c[:], t[k:])
		dst = append(dst, binary.LittleEndian.Uint64(c[:]))
	}
	return dst
}

// mix folds the 128-bit product of a and b into 64 bits.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashTerm hashes t eight bytes at a time (little-endian, the last chunk
// zero-padded), as queryWord hashes a lowered word.
func hashTerm(t string) uint64 {
	h := uint64(len(t)) ^ hashSeed
	for k := 0; k < len(t); k += 8 {
		var c [8]byte
		copy(c[:], t[k:])
		h = mix(h^binary.LittleEndian.Uint64(c[:]), hashMul)
	}
	return h
}

// lowerASCII lowers the ASCII letters of the eight bytes v, each below
// 0x80: a byte gets 0x20 when it lies in 'A'-'Z' (no carry crosses a
// byte).
func lowerASCII(v uint64) uint64 {
	const (
		geA   = 0x3f3f3f3f3f3f3f3f // + byte: bit 7 set from 'A' up
		gtZ   = 0x2525252525252525 // + byte: bit 7 set above 'Z'
		highs = 0x8080808080808080
	)
	return v | ((v+geA)&^(v+gtZ)&highs)>>2
}

// Eight bytes at once: ones has 1 in each byte, highs bit 7 of each.
const (
	ones  = 0x0101010101010101
	highs = 0x80 * ones
)

// wordBytes has bit 7 set in each byte of v that is an ASCII letter or
// digit, a word character of ASCII text (activation.IsWordRune): bytes in
// 'a'-'z' once 0x20 is set, or in '0'-'9', each test an add whose bit 7
// tells (no carry crosses a byte of seven bits).
func wordBytes(v uint64) uint64 {
	y := v &^ highs
	l := y | 0x20*ones
	alpha := (l + (0x80-'a')*ones) &^ (l + (0x7f-'z')*ones)
	digit := (y + (0x80-'0')*ones) &^ (y + (0x7f-'9')*ones)
	return (alpha | digit) &^ v & highs
}

// queryWord returns the term id of the ASCII word text[i:j], 2-64 bytes
// of word characters, lowered into low eight bytes at a time as they are
// hashed (hashTerm of the lowered word).
func (tt *termTable) queryWord(text string, i, j int, low *[8]uint64) (int32, bool) {
	n := j - i
	h := uint64(n) ^ hashSeed
	c := 0
	for k := 0; k < n; k, c = k+8, c+1 {
		var v uint64
		if i+k+8 <= len(text) {
			v = le64(text[i+k : i+k+8])
		} else {
			var b [8]byte
			copy(b[:], text[i+k:j])
			v = binary.LittleEndian.Uint64(b[:])
		}
		if r := n - k; r < 8 {
			v &= 1<<(8*r) - 1 // the word's bytes only
		}
		v = lowerASCII(v)
		low[c&7] = v
		h = mix(h^v, hashMul)
	}
	return tt.find(low[:c], n, h)
}

// le64 is the first eight bytes of s, little-endian (one load).
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// find returns the id of the term of n bytes whose words (appendWords)
// are w and whose hash is h.
func (tt *termTable) find(w []uint64, n int, h uint64) (int32, bool) {
	if len(tt.slots) == 0 {
		return 0, false
	}
	for ; ; h++ {
		v := tt.slots[h&tt.mask]
		if v == 0 {
			return 0, false
		}
		if sp := tt.spans[v-1]; int(sp.n) == n && slices.Equal(tt.keys[sp.at:int(sp.at)+len(w)], w) {
			return v - 1, true
		}
	}
}

// lookup returns term t's id.
func (tt *termTable) lookup(t string) (int32, bool) {
	var buf [8]uint64
	return tt.find(appendWords(buf[:0], t), len(t), hashTerm(t))
}

// term is term id's text ("" for a term in no profile).
func (tt *termTable) term(id int32) string {
	sp := tt.spans[id]
	b := make([]byte, 0, 8*((sp.n+7)/8))
	for _, w := range tt.keys[sp.at : sp.at+(sp.n+7)/8] {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return string(b[:sp.n])
}

// bytes is the table's memory: its slots, the terms' words and spans.
func (tt *termTable) bytes() int {
	return 4*cap(tt.slots) + 8*cap(tt.keys) + termSpanSize*cap(tt.spans)
}
