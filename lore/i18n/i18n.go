// Package i18n is the message catalog mechanism shared by loregate's
// member-facing adapters (the Discord bot and the web dashboard): English
// and Brazilian Portuguese texts in one golang.org/x/text catalog. Message
// keys are the English texts with fmt verbs; a Set pairs each key with its
// Portuguese translation, and plural messages select on their first
// argument (one form for 1, another for every other number).
package i18n

import (
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// The catalog's languages; English is the fallback.
var (
	EN = language.English
	PT = language.BrazilianPortuguese
)

// Plural is a message that selects on a count: Key is the English text
// with a %d verb; One and Many are the forms for 1 and for every other
// number, per language.
type Plural struct{ Key, EnOne, EnMany, PtOne, PtMany string }

// Set is one adapter's texts: pairs of English key and Portuguese
// translation, and plural messages.
type Set struct {
	Texts   [][2]string
	Plurals []Plural
}

// Keys returns every key of the sets (for tests that check a text is in
// the catalog).
func Keys(sets ...Set) map[string]struct{} {
	m := map[string]struct{}{}
	for _, s := range sets {
		for _, x := range s.Texts {
			m[x[0]] = struct{}{}
		}
		for _, x := range s.Plurals {
			m[x.Key] = struct{}{}
		}
	}
	return m
}

// NewCatalog builds the catalog of the sets' texts and plurals, falling
// back to English.
func NewCatalog(sets ...Set) catalog.Catalog {
	b := catalog.NewBuilder(catalog.Fallback(EN))
	for _, s := range sets {
		for _, x := range s.Texts {
			_ = b.SetString(EN, x[0], x[0])
			_ = b.SetString(PT, x[0], x[1])
		}
		for _, x := range s.Plurals {
			_ = b.Set(EN, x.Key, plural.Selectf(1, "%d", "=1", x.EnOne, "other", x.EnMany))
			_ = b.Set(PT, x.Key, plural.Selectf(1, "%d", "=1", x.PtOne, "other", x.PtMany))
		}
	}
	return b
}

// Tag maps a locale or an Accept-Language header to a catalog language:
// Portuguese (pt, pt-BR, pt-PT...) first among the preferences gives
// Portuguese, anything else English.
func Tag(locale string) language.Tag {
	tags, _, err := language.ParseAcceptLanguage(locale)
	if err != nil || len(tags) == 0 {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(locale)), "pt") {
			return PT
		}
		return EN
	}
	if base, _ := tags[0].Base(); base.String() == "pt" {
		return PT
	}
	return EN
}

// Printer returns a printer of cat in the language of tag.
func Printer(cat catalog.Catalog, tag language.Tag) *message.Printer {
	return message.NewPrinter(tag, message.Catalog(cat))
}
