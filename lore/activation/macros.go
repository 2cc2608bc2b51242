package activation

import "strings"

// ResolveIdentity replaces the identity macros {{user}}, {{char}} and
// {{bot}} in s by names (docs/contract.md#prompt: content "passes
// through convertMentions, so {{user}}, {{char}}, and {{bot}} resolve to
// current names. Other macros and conditional blocks stay literal").
//
// Macro names are matched case-insensitively (strings.EqualFold) ({{User}} works, as in
// SillyTavern); no spaces are allowed inside the braces. A macro whose name
// is empty stays literal; bot falls back to char. Every other {{...}},
// including conditionals and {{random}}, is copied unchanged. The result is
// s itself when nothing is replaced.
func ResolveIdentity(s, user, char, bot string) string {
	if bot == "" {
		bot = char
	}
	i := strings.Index(s, "{{")
	if i < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i >= 0 {
		rest := s[i+2:]
		var name string
		var n int
		switch {
		case hasFoldPrefix(rest, "user}}"):
			name, n = user, 8
		case hasFoldPrefix(rest, "char}}"):
			name, n = char, 8
		case hasFoldPrefix(rest, "bot}}"):
			name, n = bot, 7
		}
		if n > 0 && name != "" {
			if b.Len() == 0 {
				b.Grow(len(s) + 16)
			}
			b.WriteString(s[last:i])
			b.WriteString(name)
			last = i + n
			i = last
		} else {
			i++
		}
		j := strings.Index(s[i:], "{{")
		if j < 0 {
			break
		}
		i += j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
