package activation

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// TestTextTablesAgainstReference checks every BMP rune: the boundary
// classes are the reference predicates', and a rune the tables keep or map
// normalises (alone and between two kept runes) exactly as normalize does.
func TestTextTablesAgainstReference(t *testing.T) {
	tb := classes()
	nz := newNormalizer()
	kept, mapped := 0, 0
	for r := rune(0); r < 0x10000; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		c := tb.cls[r]
		if (c&classWord != 0) != isWordRune(r) || (c&classJoiner != 0) != isJoiner(r) {
			t.Fatalf("U+%04X: class %08b, isWordRune %v, isJoiner %v", r, c, isWordRune(r), isJoiner(r))
		}
		for _, fold := range []bool{false, true} {
			// "a" and "中" around the rune: a kept starter on each side.
			s := "a" + string(r) + "中"
			if fold {
				s = "A" + string(r) + "中"
			}
			got := tb.normalizeFast(nz, s, fold)
			if want := nz.normalize(s, fold); got != want {
				t.Fatalf("U+%04X fold=%v: fast %q, reference %q", r, fold, got, want)
			}
		}
		if c&(classKeep|classKeepFold) != 0 {
			kept++
		}
		if c&(classMap|classMapFold) != 0 {
			mapped++
		}
	}
	// Han, Kana, Hangul syllables and Latin letters alone are tens of
	// thousands of kept runes; full-width forms and capitals are mapped.
	require.Greater(t, kept, 40000)
	require.Greater(t, mapped, 1000)
	for _, r := range "中文日本語ひらがなカタカナ한국어ไทย、。「」" {
		require.NotZero(t, tb.cls[r]&classKeepFold, "%q should be kept", r)
	}
	for _, r := range "，！？（）：ＡＢｂ　ÉΣД" {
		require.NotZero(t, tb.cls[r]&classMapFold, "%q should be mapped", r)
	}
}

// textAlphabet mixes the fast path's scripts with everything that must
// leave it: combining marks (Latin, kana voicing, Thai above/below marks in
// non-canonical order), Hangul jamo that compose with a syllable,
// half-width katakana, compatibility ideographs, full-width forms, Thai
// SARA AM (a compatibility decomposition), supplementary-plane letters,
// sigma forms, ligatures and invalid UTF-8.
var textAlphabet = []string{"a", "Z", " ", "1", "中", "文", "龍", "の", "か", "\u3099", "゛", "ｶ", "ﾞ", "ア", "한", "\u11a8",
	"\u1100", "\u1161", "ไ", "ท", "\u0e33", "\u0e48", "\u0e38", "、", "。", "，", "！", "　", "Ａ", "ｂ", "\uf900", "é",
	"e\u0301", "Σ", "ς", "ß", "ﬀ", "İ", "𝐀", "😀", "\xff", "Ω", "Ω", "K", "ǅ", "ŉ", "\u0345", "Д"}

func TestNormalizeFastMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tb := classes()
	nz := newNormalizer()
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(textAlphabet[r.IntN(len(textAlphabet))])
		}
		s := b.String()
		checkFastText(t, tb, nz, s)
	}
}

func checkFastText(t testing.TB, tb *textTables, nz *normalizer, s string) {
	for _, fold := range []bool{false, true} {
		got := tb.normalizeFast(nz, s, fold)
		want := nz.normalize(s, fold)
		if got != want {
			t.Fatalf("normalize %q fold=%v: fast %q, reference %q", s, fold, got, want)
		}
		for _, edges := range []bool{false, true} {
			if g, w := tb.markFast(nil, want, edges), mark(nil, want, edges); string(g) != string(w) {
				t.Fatalf("mark %q edges=%v: fast %q, reference %q", want, edges, g, w)
			}
		}
	}
}

// FuzzNormalizeFast compares the table path with the reference normalize
// and mark on arbitrary text.
func FuzzNormalizeFast(f *testing.F) {
	for _, s := range []string{"龙胆花。Gentian花", "ｶﾞｷﾞ", "か\u3099", "한\u11a8", "ไทย\u0e48\u0e38", "ÉCOLE，ｂ！", "\xff中"} {
		f.Add(s)
	}
	tb := classes()
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4000 || !utf8.ValidString(s) && len(s) > 400 {
			return
		}
		checkFastText(t, tb, newNormalizer(), s)
	})
}

func TestTextCacheEvictsByBytes(t *testing.T) {
	c := NewTextCache(16 * (textItemOverhead + 64))
	msg := func(i int) string { return strings.Repeat("中", 10) + string(rune('a'+i)) } // 31 bytes
	for i := range 20 {
		require.Nil(t, c.get(msg(i), true))
		c.put(msg(i), true, []byte(msg(i)))
	}
	st := c.Stats()
	require.LessOrEqual(t, st.Bytes, 16*(textItemOverhead+64))
	require.Equal(t, int64(20), st.Misses)
	require.Less(t, st.Len, 20)
	require.Nil(t, c.get(msg(0), true), "oldest evicted")
	require.Equal(t, msg(19), string(c.get(msg(19), true)))
	require.Nil(t, c.get(msg(19), false), "fold mode is part of the key")
	// A message over a sixteenth of the budget is not cached.
	big := strings.Repeat("中", 200)
	c.put(big, true, []byte(big))
	require.Nil(t, c.get(big, true))
}
