package lore

import (
	"regexp"
	"strings"
)

// MaxFindLen bounds the find text of a Replacement (UTF-16 units, as keys).
const MaxFindLen = 200

// Replacement is a find-and-replace over entries' titles, keys (primary
// and secondary) and content (replaceInEntries).
type Replacement struct {
	Find, With           string
	Title, Keys, Content bool
	CaseSensitive        bool
}

// Validate checks the find text and that a field is chosen.
func (r Replacement) Validate() error {
	switch {
	case strings.TrimSpace(r.Find) == "":
		return Invalid("find", "is empty")
	case UTF16Len(r.Find) > MaxFindLen:
		return Invalid("find", "is %d characters long, at most %d allowed", UTF16Len(r.Find), MaxFindLen)
	case UTF16Len(r.With) > MaxFindLen:
		return Invalid("replace", "is %d characters long, at most %d allowed", UTF16Len(r.With), MaxFindLen)
	case !r.Title && !r.Keys && !r.Content:
		return Invalid("fields", "names no field (TITLE, KEYS, CONTENT)")
	}
	return nil
}

// Apply returns e with every occurrence of Find replaced in the chosen
// fields, and whether anything changed. Case-insensitive finds match by
// Unicode simple folding (regexp (?i)); With is inserted literally.
func (r Replacement) Apply(e Entry) (Entry, bool) {
	re := r.compile()
	out := e.Clone()
	rep := func(s string) string { return re.ReplaceAllLiteralString(s, r.With) }
	if r.Title {
		out.Title = rep(out.Title)
	}
	if r.Content {
		out.Content = rep(out.Content)
	}
	if r.Keys {
		for i := range out.Keys {
			out.Keys[i] = rep(out.Keys[i])
		}
		for i := range out.SecondaryKeys {
			out.SecondaryKeys[i] = rep(out.SecondaryKeys[i])
		}
	}
	return out, len(ChangedFields(e, out)) > 0
}

func (r Replacement) compile() *regexp.Regexp {
	p := regexp.QuoteMeta(r.Find)
	if !r.CaseSensitive {
		p = "(?i)" + p
	}
	return regexp.MustCompile(p)
}
