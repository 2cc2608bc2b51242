package activation

import (
	"sync"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// The text fast path. normalize (NFKC, fold, NFKC) and mark (boundary
// markers from isWordRune and isJoiner) are the reference; the functions
// here give byte-for-byte the same output from tables precomputed for the
// Basic Multilingual Plane, one table load per character instead of
// several Unicode range searches and three normalisation passes.
//
// Why per-character mapping is exact: when every character of a string
// "starts a segment" for NFKC (canonical combining class 0 and no
// composition with a character on its left, x/text's BoundaryBefore), NFKC
// of the string is the concatenation of NFKC of each character. If, in
// addition, each character's folded form fold(NFKC(c)) consists only of
// characters that NFKC and folding leave unchanged and that also start a
// segment, the final NFKC pass changes nothing, so the whole matching form
// is the concatenation of the per-character forms, which the tables hold.
// Any other text (combining sequences, Hangul jamo, characters outside the
// BMP, invalid UTF-8) takes the reference path.

// Class bits of a BMP rune.
const (
	// classWord: isWordRune.
	classWord uint8 = 1 << iota
	// classJoiner: isJoiner.
	classJoiner
	// classStarter: starts an NFKC segment (combining class 0, never
	// composes with a character on its left).
	classStarter
	// classKeep: NFKC leaves the rune unchanged (a starter whose NFKC form
	// is itself and contains only starters).
	classKeep
	// classKeepFold: folding matching form (NFKC, fold, NFKC) is the rune
	// itself.
	classKeepFold
	// classMap: the NFKC form differs but is exact per character (see
	// above): textTables.mapped holds it.
	classMap
	// classMapFold: likewise for the folding form, in textTables.mappedFold.
	classMapFold
)

// textTables are the precomputed per-rune classes and matching forms of the
// BMP (about 320 KiB); read-only once built.
type textTables struct {
	cls [0x10000]uint8
	// idx is the position of the rune's forms in mapped and mappedFold
	// (0: none).
	idx        [0x10000]uint16
	mapped     []string
	mappedFold []string
}

var (
	tablesOnce sync.Once
	tables     *textTables
)

// classes returns the text tables, building them on first use (a few
// normalisation and folding calls per BMP rune, tens of milliseconds once
// per process).
func classes() *textTables {
	tablesOnce.Do(func() { tables = buildTextTables() })
	return tables
}

func buildTextTables() *textTables {
	t := &textTables{mapped: []string{""}, mappedFold: []string{""}}
	fold := cases.Fold()
	nfkcFold := func(s string) string {
		fold.Reset()
		return norm.NFKC.String(fold.String(norm.NFKC.String(s)))
	}
	starter := func(r rune) bool {
		p := norm.NFKC.PropertiesString(string(r))
		return p.CCC() == 0 && p.BoundaryBefore()
	}
	// First pass: which runes are starters kept as they are.
	for r := rune(0); r < 0x10000; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // surrogates never decode from valid UTF-8
		}
		var c uint8
		if isWordRune(r) {
			c |= classWord
		}
		if isJoiner(r) {
			c |= classJoiner
		}
		if starter(r) {
			c |= classStarter
			s := string(r)
			if norm.NFKC.String(s) == s {
				c |= classKeep
				if nfkcFold(s) == s {
					c |= classKeepFold
				}
			}
		}
		t.cls[r] = c
	}
	// allKept reports whether every rune of s is a BMP starter kept by the
	// given form.
	allKept := func(s string, bit uint8) bool {
		for _, r := range s {
			if r >= 0x10000 || t.cls[r]&(classStarter|bit) != classStarter|bit {
				return false
			}
		}
		return s != ""
	}
	// Second pass: starters whose form differs but is made of kept runes.
	for r := rune(0x80); r < 0x10000; r++ {
		c := t.cls[r]
		if c&classStarter == 0 {
			continue
		}
		s := string(r)
		k, kf := "", ""
		if c&classKeep == 0 {
			if f := norm.NFKC.String(s); allKept(f, classKeep) {
				k = f
			}
		}
		if c&classKeepFold == 0 {
			if f := nfkcFold(s); allKept(f, classKeepFold) {
				kf = f
			}
		}
		if k == "" && kf == "" {
			continue
		}
		t.idx[r] = uint16(len(t.mapped))
		t.mapped = append(t.mapped, k)
		t.mappedFold = append(t.mappedFold, kf)
		if k != "" {
			t.cls[r] |= classMap
		}
		if kf != "" {
			t.cls[r] |= classMapFold
		}
	}
	return t
}

// wordJoiner returns the boundary classes of r (classWord, classJoiner).
func (t *textTables) wordJoiner(r rune) uint8 {
	if r < 0x10000 {
		return t.cls[r] & (classWord | classJoiner)
	}
	var c uint8
	if isWordRune(r) {
		c |= classWord
	}
	if isJoiner(r) {
		c |= classJoiner
	}
	return c
}

// normalizeFast returns normalize(s, fold), from the tables when every
// character of s allows it (see above) and through n otherwise. Text in
// scripts without case (Han, Kana, Hangul syllables, Thai without combining
// marks), ASCII, precomposed Latin, Greek and Cyrillic, and full-width
// punctuation all take the table path.
func (t *textTables) normalizeFast(n *normalizer, s string, fold bool) string {
	keep, mapBit := classKeep, classMap
	if fold {
		keep, mapBit = classKeepFold, classMapFold
	}
	changed := false
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			changed = changed || (fold && b >= 'A' && b <= 'Z')
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 || (r == utf8.RuneError && size == 1) {
			return n.normalize(s, fold)
		}
		c := t.cls[r]
		switch {
		case c&keep != 0:
		case c&mapBit != 0:
			changed = true
		default:
			return n.normalize(s, fold)
		}
		i += size
	}
	if !changed {
		return s
	}
	forms := t.mapped
	if fold {
		forms = t.mappedFold
	}
	out := make([]byte, 0, len(s)+len(s)/8)
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if fold && b >= 'A' && b <= 'Z' {
				b += 'a' - 'A'
			}
			out = append(out, b)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if t.cls[r]&keep != 0 {
			out = append(out, s[i:i+size]...)
		} else {
			out = append(out, forms[t.idx[r]]...)
		}
		i += size
	}
	return string(out)
}

// markFast is mark with the class table; the output is byte for byte
// mark's. s must be valid UTF-8 (normalised text is).
func (t *textTables) markFast(dst []byte, s string, edges bool) []byte {
	prevWord, prevJoin, first := false, false, true
	for i := 0; i < len(s); {
		var c uint8
		size := 1
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' {
				c = classWord | classJoiner
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			c = t.wordJoiner(r)
		}
		w, j := c&classWord != 0, c&classJoiner != 0
		if first {
			if edges && w {
				dst = append(dst, boundaryByte)
			}
			first = false
		} else if (prevWord && !j) || (w && !prevJoin) {
			dst = append(dst, boundaryByte)
		}
		dst = append(dst, s[i:i+size]...)
		prevWord, prevJoin = w, j
		i += size
	}
	if edges && prevWord {
		dst = append(dst, boundaryByte)
	}
	return dst
}
