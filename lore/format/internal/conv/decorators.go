package conv

import (
	"strconv"
	"strings"

	"loregate/lore"
)

// SplitDecorators separates the leading decorator block of a CCv3 or RisuAI
// entry content (formats.md 3.1, the CCL parser RisuAI uses): the content is
// trimmed and split into lines; the leading lines that start with "@@" are
// the header, the first other line (a blank one included) ends it, and the
// trimmed rest is the body. Content without a leading "@@" line comes back
// unchanged with a nil header.
func SplitDecorators(content string) (header []string, body string) {
	trimmed := strings.TrimSpace(content)
	if !strings.HasPrefix(trimmed, "@@") {
		return nil, content
	}
	lines := strings.Split(trimmed, "\n")
	i := 0
	for ; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r")
		if !strings.HasPrefix(l, "@@") {
			break
		}
		header = append(header, l)
	}
	return header, strings.TrimSpace(strings.Join(lines[i:], "\n"))
}

// ApplyDecorators sets the canonical fields the decorators of header
// express (formats.md 3.2) and lists the others in c.Ignored, named
// "decorator @@name" (Builder.AddEntry counts them as ignored settings):
//
//   - @@activate: Constant; @@dont_activate: disabled.
//   - @@scan_depth N (1-100), @@role R, @@probability N (0-100, RisuAI),
//     @@priority N (RisuAI): the matching field.
//   - @@additional_keys a,b: secondary keys with AND_ANY; several
//     @@additional_keys lines of one key each mean AND_ALL (formats.md 2).
//     @@exclude_keys a,b: NOT_ANY; @@exclude_keys_all a,b: NOT_ALL (RisuAI).
//     Secondary keys from decorators replace those of the entry fields.
//   - @@match_full_word / @@match_partial_word (RisuAI): WholeWords.
//   - @@depth, @@reverse_depth, @@position: the placement collapses to
//     "before" (c.Collapsed), as world info positions 2-7 do.
//
// Only the first occurrence of a scalar decorator counts (the spec's rule);
// fallback lines ("@@@name") and everything else are reported, never acted
// on. Invalid values are ignored and reported.
func ApplyDecorators(e *lore.Entry, header []string, c *STCtx) {
	seen := map[string]bool{}
	var additional [][]string
	var exclude []string
	excludeAll := false
	ignore := func(name string) { c.Ignored = append(c.Ignored, "decorator @@"+name) }
	for _, line := range header {
		if strings.HasPrefix(line, "@@@") {
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "@@@"), " ")
			ignore("@" + name)
			continue
		}
		name, arg, _ := strings.Cut(strings.TrimPrefix(line, "@@"), " ")
		arg = strings.TrimSpace(arg)
		if seen[name] && name != "additional_keys" {
			continue
		}
		seen[name] = true
		num := func(lo, hi int) (int, bool) {
			n, err := strconv.Atoi(arg)
			return n, err == nil && n >= lo && n <= hi
		}
		switch name {
		case "activate":
			e.Constant = true
		case "dont_activate":
			e.Enabled = false
		case "scan_depth":
			if n, ok := num(lore.MinScanDepth, lore.MaxScanDepth); ok {
				e.ScanDepth = &n
			} else {
				ignore(name)
			}
		case "role":
			if r := lore.Role(strings.ToLower(arg)); r.Valid() {
				e.Role = r
			} else {
				ignore(name)
			}
		case "probability":
			if n, ok := num(0, 100); ok {
				e.Probability = n
			} else {
				ignore(name)
			}
		case "priority":
			if n, ok := num(-1<<31, 1<<31-1); ok {
				e.Priority = n
			} else {
				ignore(name)
			}
		case "additional_keys":
			if keys := splitArgs(arg); len(keys) > 0 {
				additional = append(additional, keys)
			}
		case "exclude_keys", "exclude_keys_all":
			exclude = append(exclude, splitArgs(arg)...)
			excludeAll = excludeAll || name == "exclude_keys_all"
		case "match_full_word":
			yes := true
			e.WholeWords = &yes
		case "match_partial_word":
			no := false
			e.WholeWords = &no
		case "depth", "reverse_depth", "position":
			e.Placement = lore.Before
			c.Collapsed = true
		default:
			ignore(name)
		}
	}
	switch {
	case len(additional) > 0:
		var keys []string
		single := len(additional) > 1
		for _, ks := range additional {
			keys = append(keys, ks...)
			single = single && len(ks) == 1
		}
		e.SecondaryKeys, e.Logic = keys, lore.AndAny
		if single {
			e.Logic = lore.AndAll
		}
		if len(exclude) > 0 {
			ignore("exclude_keys")
		}
	case len(exclude) > 0:
		e.SecondaryKeys, e.Logic = exclude, lore.NotAny
		if excludeAll {
			e.Logic = lore.NotAll
		}
	}
}

func splitArgs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
