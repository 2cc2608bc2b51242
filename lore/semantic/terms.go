package semantic

import (
	"unicode"
	"unicode/utf8"

	"loregate/lore/activation"
)

// Terms returns the lexical terms of text, in order, repeats kept: the
// text's matching form (activation.MatchingForm: NFKC, case-folded), cut
// into words at the matcher's word edges; Han, Kana and Hangul runs become
// character bigrams (a lone character stays a unigram); words of one
// character and the stop words of English, Portuguese and Spanish
// (stopwords.go) are dropped (docs/contract.md#semantic).
func Terms(text string) []string {
	return appendTerms(nil, matchingForm(text))
}

// runeKind is how the term cutter treats a character.
type runeKind uint8

const (
	kindSep      runeKind = iota // punctuation, space, symbols: ends a term
	kindWord                     // letters of spaced scripts, digits, marks
	kindCJK                      // Han, Kana, Hangul: bigrams
	kindNonASCII                 // a byte of a multi-byte character (byteKinds)
)

// asciiKinds are kindOf's answers for ASCII, by byte.
var asciiKinds = func() (k [utf8.RuneSelf]runeKind) {
	for r := range rune(utf8.RuneSelf) {
		if activation.IsWordRune(r) {
			k[r] = kindWord
		}
	}
	return k
}()

func kindOf(r rune) runeKind {
	if r < utf8.RuneSelf {
		return asciiKinds[r]
	}
	switch {
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
		return kindCJK
	case activation.IsJoiner(r), unicode.IsLetter(r), unicode.IsMark(r), unicode.IsDigit(r):
		return kindWord
	}
	return kindSep
}

// appendTerms appends the terms of s (already in matching form) to dst.
func appendTerms(dst []string, s string) []string {
	cutTerms(s, func(w string, word bool) {
		if !word || utf8.RuneCountInString(w) > 1 && !isStopWord(w) {
			dst = append(dst, w)
		}
	})
	return dst
}

// cutTerms calls emit with each word (word true) and CJK bigram or lone
// CJK character (word false) of s, in order, before the one-character and
// stop-word filter appendTerms applies: a lookup in an index of filtered
// terms (Lexical's query) needs no filter.
func cutTerms(s string, emit func(term string, word bool)) {
	start, kind := 0, kindSep
	var cjkBuf [16]int
	cjk := cjkBuf[:0] // byte offsets of the current CJK run's characters
	flush := func(end int) {
		switch kind {
		case kindWord:
			emit(s[start:end], true)
		case kindCJK:
			cjk = append(cjk, end)
			if len(cjk) == 2 {
				emit(s[cjk[0]:end], false)
			}
			for i := 0; i+2 < len(cjk); i++ {
				emit(s[cjk[i]:cjk[i+2]], false)
			}
			cjk = cjk[:0]
		}
	}
	for i, r := range s {
		k := kindOf(r)
		if k == kindWord && kind == kindWord {
			continue
		}
		if k == kindCJK && kind == kindCJK {
			cjk = append(cjk, i)
			continue
		}
		// A mark after a CJK character stays with it (kindOf says word).
		if kind == kindCJK && unicode.IsMark(r) {
			continue
		}
		flush(i)
		start, kind = i, k
		if k == kindCJK {
			cjk = append(cjk, i)
		}
	}
	flush(len(s))
}

func matchingForm(s string) string { return activation.MatchingForm(s) }
