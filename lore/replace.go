package lore

import (
	"regexp"
	"strings"

	"loregate/lore/i18n"
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
		return Reject("find", i18n.Empty, nil)
	case UTF16Len(r.Find) > MaxFindLen:
		return Reject("find", i18n.TooLong, Params{"length": UTF16Len(r.Find), "max": MaxFindLen})
	case UTF16Len(r.With) > MaxFindLen:
		return Reject("replace", i18n.TooLong, Params{"length": UTF16Len(r.With), "max": MaxFindLen})
	case !r.Title && !r.Keys && !r.Content:
		return Reject("fields", i18n.NoReplaceField, nil)
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
