package lore

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Shortening text, named by the unit of the limit. Clip* shortens text
// shown to people (echoed input in errors and reports, Discord labels) and
// appends "…" when it cut; Truncate* returns the longest prefix within a
// limit and adds nothing (stored names, budgets). Every one cuts on a
// character boundary.

// ClipBytes shortens s to at most maxBytes bytes, with "…" appended when it
// was cut. It is for echoing user input in error and report messages,
// which never carry whole file contents.
func ClipBytes(s string, maxBytes int) string {
	if len(s) <= maxBytes {
		return s
	}
	cut := maxBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// ClipRunes shortens s to at most maxRunes characters (runes), the last of
// them "…" when it was cut. maxRunes must be at least 1.
func ClipRunes(s string, maxRunes int) string {
	if utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	return TruncateRunes(s, maxRunes-1) + "…"
}

// TruncateRunes returns the longest prefix of s that is at most maxRunes
// characters (runes) long; s itself when it fits (an invalid byte counts
// as one character and becomes U+FFFD when s is cut).
func TruncateRunes(s string, maxRunes int) string {
	n := 0
	for i := range s {
		if n == maxRunes {
			return validRunes(s[:i])
		}
		n++
	}
	return s
}

// validRunes returns s with each invalid byte replaced by U+FFFD, as a
// []rune conversion would, without copying a valid s.
func validRunes(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// TruncateUTF16 returns the longest prefix of s, cut on a character
// boundary, that is at most max UTF-16 code units long. One pass; s is
// returned unchanged when it fits.
func TruncateUTF16(s string, max int) string {
	n := 0
	for i, r := range s {
		n += utf16.RuneLen(r)
		if n > max {
			return s[:i]
		}
	}
	return s
}
