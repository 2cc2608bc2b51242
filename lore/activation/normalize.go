package activation

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// boundaryByte is the marker inserted into normalised text and keys at every
// word edge (see mark). 0xFF never occurs in valid UTF-8, and every string is
// made valid before marking, so the marker cannot collide with text.
const boundaryByte = 0xFF

// normalizer turns text and keys into their matching form: NFKC, then (for
// case-insensitive matching) Unicode full case folding, then NFKC again so
// that folding output is recomposed. Fold, not lowercase: Greek final sigma
// folds to sigma (docs/contract.md#matching). A normalizer is
// not safe for concurrent use (the caser keeps state); make one per call.
type normalizer struct {
	fold cases.Caser
}

func newNormalizer() *normalizer {
	return &normalizer{fold: cases.Fold()}
}

// normalize returns the matching form of s. Invalid UTF-8 becomes U+FFFD
// first, so the result never holds boundaryByte.
func (n *normalizer) normalize(s string, fold bool) string {
	if isASCII(s) {
		if !fold {
			return s
		}
		return asciiLower(s)
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = norm.NFKC.String(s)
	if fold {
		n.fold.Reset()
		s = n.fold.String(s)
		s = norm.NFKC.String(s)
	}
	return s
}

// isASCII reports whether s holds only bytes below 0x80, eight at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		v := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if v&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// isWordRune reports whether r is a word character of the boundary rule: a
// Latin, Cyrillic or Greek letter, or a decimal digit (docs/contract.md#matching).
// A key edge that is a word character needs a boundary next to it.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	if unicode.IsDigit(r) {
		return true
	}
	return unicode.IsLetter(r) && (unicode.Is(unicode.Latin, r) || unicode.Is(unicode.Cyrillic, r) || unicode.Is(unicode.Greek, r))
}

// isJoiner reports whether r, next to a word character, continues the word
// (so there is no boundary): word characters, combining marks (Mn, Mc, Me)
// and letters outside the Basic Multilingual Plane (docs/contract.md#matching: "Combining marks and supplementary-plane letters count as word
// characters"). Han, Kana, Hangul, Thai, punctuation and space are not
// joiners, so a Latin name written inside Chinese text is a whole word.
func isJoiner(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	if isWordRune(r) {
		return true
	}
	if unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me) {
		return true
	}
	return r > 0xFFFF && unicode.IsLetter(r)
}

// mark appends s to dst with boundaryByte inserted between every two
// adjacent characters x, y where (x is a word character and y is not a
// joiner) or (y is a word character and x is not a joiner). With edges, it
// also marks the start when the first character is a word character and the
// end when the last one is (text edges count as non-joiners).
//
// Text is marked with edges; a whole-word key with edges; a substring key
// without. Because a marker depends only on its two neighbours, a key
// occurs in the marked text exactly where it occurs in the plain text and,
// for a whole-word key, every word-character edge has a boundary next to it.
// Matching therefore needs no boundary checks afterwards.
func mark(dst []byte, s string, edges bool) []byte {
	prevWord, prevJoin, first := false, false, true
	for _, r := range s {
		w, j := isWordRune(r), isJoiner(r)
		if first {
			if edges && w {
				dst = append(dst, boundaryByte)
			}
			first = false
		} else if (prevWord && !j) || (w && !prevJoin) {
			dst = append(dst, boundaryByte)
		}
		dst = utf8.AppendRune(dst, r)
		prevWord, prevJoin = w, j
	}
	if edges && prevWord {
		dst = append(dst, boundaryByte)
	}
	return dst
}
