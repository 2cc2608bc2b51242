package activation

// MatchingForm returns the case-insensitive matching form of s that keys and
// messages are compared in: NFKC, Unicode full case folding, NFKC again
// (docs/contract.md#matching). Invalid UTF-8 becomes U+FFFD. The lexical
// ranker (lore/semantic) cuts its terms from this form, so similarity and
// keywords see the same words.
func MatchingForm(s string) string {
	if isASCII(s) {
		return asciiLower(s) // normalize's own ASCII path, with no normalizer to make
	}
	return classes().normalizeFast(newNormalizer(), s, true)
}

// IsWordRune reports whether r is a word character of the matching rule: a
// Latin, Cyrillic or Greek letter, or a decimal digit
// (docs/contract.md#matching).
func IsWordRune(r rune) bool { return isWordRune(r) }

// IsJoiner reports whether r, next to a word character, continues the word:
// word characters, combining marks and supplementary-plane letters
// (docs/contract.md#matching).
func IsJoiner(r rune) bool { return isJoiner(r) }
