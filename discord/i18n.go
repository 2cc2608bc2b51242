package discord

import (
	"strings"

	"github.com/bwmarrin/discordgo"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"loregate/lore/i18n"
)

// Every member-facing text of the adapter comes from one message catalog
// in English, Brazilian Portuguese (the language of the user guide, whose
// labels the Portuguese texts use) and Spanish (i18n_es.go); the catalog
// mechanism is shared with the web dashboard (lore/i18n). The
// interaction's locale picks the language (pt-BR and pt → Portuguese,
// es-ES and es-419 → Spanish, anything else → English). Message keys are
// the English texts, with fmt verbs; plural messages select on their
// first argument.

var (
	langEN = i18n.EN
	langPT = i18n.PT
	langES = i18n.ES
)

// pluralMsg is a message that selects on a count: one form for 1, another
// for every other number.
type pluralMsg = i18n.Plural

// textSet is the adapter's texts and plurals.
func textSet() i18n.Set { return i18n.Set{Texts: allTexts(), Es: allEs(), Plurals: plurals[:]} }

// tr translates for one interaction.
type tr struct {
	p *message.Printer
	// miss, when set (tests), is told about keys missing from the catalog.
	miss func(key string)
	lang language.Tag
}

// S formats the message key with args in the interaction's language.
func (t tr) S(key string, args ...any) string {
	if t.miss != nil {
		if _, ok := catalogKeys[key]; !ok {
			t.miss(key)
		}
	}
	if t.p == nil {
		return message.NewPrinter(langEN).Sprintf(key, args...)
	}
	return t.p.Sprintf(key, args...)
}

// N formats a plural message: n items.
func (t tr) N(key string, n int) string { return t.S(key, n) }

// catalogKeys holds every key of the catalog.
var catalogKeys = i18n.Keys(textSet())

// newCatalog builds the catalog of texts and plurals.
func newCatalog() catalog.Catalog { return i18n.NewCatalog(textSet()) }

// allTexts returns every text of the catalog: the panel's (texts), the
// import history's (historyTexts) and the workbench's (workbenchTexts).
func allTexts() [][2]string {
	return append(append(texts[:len(texts):len(texts)], historyTexts[:]...), workbenchEnPt()...)
}

// allEs returns every Spanish text: esTexts and the workbench's.
func allEs() [][2]string { return append(esTexts[:len(esTexts):len(esTexts)], workbenchEs()...) }

// localeTag maps a Discord locale to a catalog language.
func localeTag(l discordgo.Locale) language.Tag {
	switch {
	case strings.HasPrefix(string(l), "pt"):
		return langPT
	case strings.HasPrefix(string(l), "es"):
		return langES
	}
	return langEN
}

// translator returns the translator for an interaction's locale.
func (b *Bot) translator(l discordgo.Locale) tr {
	tag := localeTag(l)
	return tr{p: message.NewPrinter(tag, message.Catalog(b.cat)), miss: b.missingText, lang: tag}
}

// commandLocalizations are the Portuguese and Spanish command and option
// descriptions (command names stay /memories as the guide writes them).
func commandLocalizations(en string) *map[discordgo.Locale]string {
	for _, x := range texts {
		if x[0] != en {
			continue
		}
		m := map[discordgo.Locale]string{discordgo.PortugueseBR: x[1]}
		for _, y := range esTexts {
			if y[0] == en {
				m[discordgo.SpanishES], m[discordgo.SpanishLATAM] = y[1], y[1]
			}
		}
		return &m
	}
	return nil
}
