package conv

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"loregate/lore"
)

// SplitContent cuts s into parts of at most max UTF-16 code units whose
// concatenation is s (docs/formats.md "Long entries"). Each cut is placed,
// in order of preference, after a paragraph break (blank line), a line
// break, a sentence end (. ! ? and their CJK forms followed by a space or
// not), or a space, taking the last such place in the second half of the
// window, then anywhere in it; failing all, it cuts at a character
// boundary. A blank tail is kept on the previous part, which is then the
// last part and may be longer than max by those blanks only. max must be
// > 0.
func SplitContent(s string, max int) []string {
	var parts []string
	for lore.UTF16Len(s) > max {
		window := lore.TruncateUTF16(s, max)
		cut := cutPoint(window)
		if cut <= 0 {
			cut = len(window)
		}
		if cut == 0 { // max smaller than the first character
			_, cut = utf8.DecodeRuneInString(s)
		}
		part, rest := s[:cut], s[cut:]
		if strings.TrimSpace(rest) == "" {
			// Never leave a blank part: the tail stays with this one.
			part, rest = s, ""
		}
		parts = append(parts, part)
		s = rest
	}
	if s != "" {
		parts = append(parts, s)
	}
	return parts
}

// cutPoint returns the byte offset after the best boundary in w, or 0.
func cutPoint(w string) int {
	finders := []func(string) int{
		func(w string) int { return afterLast(w, "\n\n") },
		func(w string) int { return afterLast(w, "\n") },
		lastSentenceEnd,
		func(w string) int { return afterLast(w, " ") },
	}
	half := len(w) / 2
	for _, f := range finders {
		if i := f(w); i > half && strings.TrimSpace(w[:i]) != "" {
			return i
		}
	}
	for _, f := range finders {
		if i := f(w); i > 0 && strings.TrimSpace(w[:i]) != "" {
			return i
		}
	}
	return 0
}

func afterLast(w, sep string) int {
	i := strings.LastIndex(w, sep)
	if i < 0 {
		return 0
	}
	// Take the whole run of the separator's characters.
	j := i + len(sep)
	for j < len(w) && strings.HasPrefix(w[j:], sep[:1]) {
		j++
	}
	return j
}

// lastSentenceEnd returns the offset after the last sentence end in w (the
// punctuation and the spaces after it), or 0.
func lastSentenceEnd(w string) int {
	best := 0
	for i, r := range w {
		switch r {
		case '。', '！', '？', '…':
			best = i + utf8.RuneLen(r)
		case '.', '!', '?':
			j := i + 1
			if j < len(w) && !unicode.IsSpace(rune(w[j])) {
				continue
			}
			for j < len(w) && w[j] == ' ' {
				j++
			}
			if j < len(w) {
				best = j
			}
		}
	}
	return best
}

// NewSplitGroup returns a fresh split group id: 16 random hex digits.
func NewSplitGroup() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
