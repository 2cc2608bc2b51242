package lore_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestClipAndTruncate: each helper counts its own unit and cuts on a
// character boundary; Clip* marks a cut with "…", Truncate* does not.
func TestClipAndTruncate(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string, int) string
		in   string
		n    int
		want string
	}{
		{"bytes fit", lore.ClipBytes, "abc", 3, "abc"},
		{"bytes cut", lore.ClipBytes, "abcdef", 3, "abc…"},
		{"bytes cut before a split character", lore.ClipBytes, "aé", 2, "a…"},
		{"runes fit", lore.ClipRunes, "éèê", 3, "éèê"},
		{"runes cut: the mark is one of them", lore.ClipRunes, "éèêë", 3, "éè…"},
		{"truncate runes", lore.TruncateRunes, "龙胆主人", 2, "龙胆"},
		{"truncate runes fits", lore.TruncateRunes, "龙胆", 2, "龙胆"},
		{"truncate runes: invalid bytes count one each", lore.TruncateRunes, "a\xff\xfeb", 3, "a\uFFFD\uFFFD"},
		{"truncate runes to nothing", lore.TruncateRunes, "ab", 0, ""},
		{"utf16 counts a surrogate pair as two", lore.TruncateUTF16, "a😀b", 2, "a"},
		{"utf16 keeps the pair when it fits", lore.TruncateUTF16, "a😀b", 3, "a😀"},
		{"utf16 fits", lore.TruncateUTF16, "abc", 5, "abc"},
		{"utf16 cut", lore.TruncateUTF16, "abc", 2, "ab"},
		{"utf16 long input", lore.TruncateUTF16, strings.Repeat("名", 1<<20), 3, "名名名"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.fn(tt.in, tt.n))
		})
	}
}
