// Package i18n holds loregate's member-facing texts in English, Brazilian
// Portuguese and Spanish, shared by the Discord bot, the web dashboard and
// every API client that renders a reason key.
//
// Two kinds of text live here:
//
//   - Reason keys (reasons.go): the stable lower_snake keys the API returns
//     as MutationError.reason, FieldError.reason and TraceItem.reason, each
//     with its params (a JSON object) and its text in the three languages.
//     To add one, add ONE line to the reasons table in reasons.go: the key,
//     then the English, Portuguese and Spanish texts with {param}
//     placeholders. Raise it from Go with lore.Reject(field, key, params)
//     (field errors) or return it from a trace. TestReasons fails when a key
//     lacks a language, when a text names a param the others do not, or
//     when docs/api.md does not list the key.
//   - Adapter sets (Set): each adapter's labels and messages, keyed by the
//     English text with fmt verbs, with its Portuguese translation beside
//     it and its Spanish one in the adapter's Spanish file (a Set's Es
//     pairs). Missing reports a key without one of the languages; each
//     adapter has a test that calls it.
//
// English is the fallback language: a key with no text in the asked
// language answers in English.
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
	ES = language.Spanish
)

// Langs are the catalog's languages, English first.
func Langs() []language.Tag { return []language.Tag{EN, PT, ES} }

// Plural is a message that selects on a count: Key is the English text
// with a %d verb; One and Many are the forms for 1 and for every other
// number, per language.
type Plural struct{ Key, EnOne, EnMany, PtOne, PtMany, EsOne, EsMany string }

// Set is one adapter's texts: pairs of English key and Portuguese
// translation, pairs of English key and Spanish translation (Es, kept in
// the adapter's Spanish file), and plural messages.
type Set struct {
	Texts   [][2]string
	Es      [][2]string
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

// Missing lists the problems of a set, one sentence each, sorted by key:
// a text without its Portuguese or Spanish translation, a Spanish text
// whose key is not one of the set's texts, a plural with an empty form.
// An adapter's test fails on any of them.
func Missing(s Set) []string {
	es := make(map[string]string, len(s.Es))
	var out []string
	for _, x := range s.Es {
		es[x[0]] = x[1]
	}
	keys := Keys(s)
	for _, x := range s.Texts {
		if x[1] == "" {
			out = append(out, "no Portuguese for "+quote(x[0]))
		}
		if es[x[0]] == "" {
			out = append(out, "no Spanish for "+quote(x[0]))
		}
	}
	for _, x := range s.Es {
		if _, ok := keys[x[0]]; !ok {
			out = append(out, "a Spanish text for a key the set does not have: "+quote(x[0]))
		}
	}
	for _, p := range s.Plurals {
		if p.EnOne == "" || p.EnMany == "" || p.PtOne == "" || p.PtMany == "" || p.EsOne == "" || p.EsMany == "" {
			out = append(out, "a plural form is missing for "+quote(p.Key))
		}
	}
	return out
}

func quote(s string) string { return `"` + s + `"` }

// NewCatalog builds the catalog of the sets' texts and plurals, falling
// back to English.
func NewCatalog(sets ...Set) catalog.Catalog {
	b := catalog.NewBuilder(catalog.Fallback(EN))
	for _, s := range sets {
		for _, x := range s.Texts {
			_ = b.SetString(EN, x[0], x[0])
			_ = b.SetString(PT, x[0], x[1])
		}
		for _, x := range s.Es {
			_ = b.SetString(ES, x[0], x[1])
		}
		for _, x := range s.Plurals {
			_ = b.Set(EN, x.Key, plural.Selectf(1, "%d", "=1", x.EnOne, "other", x.EnMany))
			_ = b.Set(PT, x.Key, plural.Selectf(1, "%d", "=1", x.PtOne, "other", x.PtMany))
			if x.EsOne != "" {
				_ = b.Set(ES, x.Key, plural.Selectf(1, "%d", "=1", x.EsOne, "other", x.EsMany))
			}
		}
	}
	return b
}

// Tag maps a locale or an Accept-Language header to a catalog language:
// Portuguese (pt, pt-BR, pt-PT...) first among the preferences gives
// Portuguese, Spanish (es, es-ES, es-419, es-MX...) Spanish, anything else
// English.
func Tag(locale string) language.Tag {
	tags, _, err := language.ParseAcceptLanguage(locale)
	if err != nil || len(tags) == 0 {
		return tagOfPrefix(locale)
	}
	base, _ := tags[0].Base()
	return tagOfPrefix(base.String())
}

func tagOfPrefix(locale string) language.Tag {
	l := strings.ToLower(strings.TrimSpace(locale))
	switch {
	case strings.HasPrefix(l, "pt"):
		return PT
	case strings.HasPrefix(l, "es"):
		return ES
	}
	return EN
}

// Code returns the dashboard's name of a catalog language: "en", "pt-BR"
// or "es" (the values of GET /dashboard/lang/{lang}).
func Code(tag language.Tag) string {
	switch tag {
	case PT:
		return "pt-BR"
	case ES:
		return "es"
	}
	return "en"
}

// Printer returns a printer of cat in the language of tag.
func Printer(cat catalog.Catalog, tag language.Tag) *message.Printer {
	return message.NewPrinter(tag, message.Catalog(cat))
}
