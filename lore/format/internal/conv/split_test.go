package conv

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

func TestSplitContent(t *testing.T) {
	para := strings.Repeat("word ", 30) // 150 units
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"fits", "short", 10, []string{"short"}},
		{"paragraph", para + "\n\n" + para, 200, []string{para + "\n\n", para}},
		{"line before sentence", "a. b. c.\nd e f", 12, []string{"a. b. c.\n", "d e f"}},
		{"sentence", "One two. Three four. Five six.", 22, []string{"One two. Three four. ", "Five six."}},
		{"cjk sentence", "第一句。第二句。第三句。", 9, []string{"第一句。第二句。", "第三句。"}},
		{"space", "aaaa bbbb cccc", 10, []string{"aaaa bbbb ", "cccc"}},
		{"hard cut", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"surrogate pair not cut", "😀😀😀", 3, []string{"😀", "😀", "😀"}},
		{"blank tail kept", "abc def" + strings.Repeat(" ", 10), 8, []string{"abc def" + strings.Repeat(" ", 10)}},
		{"blank tail on last part", "abc def ghi" + strings.Repeat(" ", 3), 8, []string{"abc def ", "ghi   "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SplitContent(tc.in, tc.max)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.in, strings.Join(got, ""))
		})
	}
}

func FuzzSplitContent(f *testing.F) {
	f.Add("Para one.\n\nPara two. Sentence! Another?  Last", 12)
	f.Add("第一句。第二句。", 3)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max <= 1 || max > 1<<12 || strings.TrimSpace(s) == "" {
			return
		}
		parts := SplitContent(s, max)
		require.Equal(t, s, strings.Join(parts, ""))
		for i, p := range parts {
			require.NotEmpty(t, p)
			if n := lore.UTF16Len(strings.TrimRightFunc(p, unicode.IsSpace)); i < len(parts)-1 || n > 0 {
				require.LessOrEqual(t, min(n, lore.UTF16Len(p)), max)
			}
		}
	})
}
