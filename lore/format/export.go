package format

import (
	"slices"

	"loregate/lore"
	"loregate/lore/decorator"
	"loregate/lore/format/agnai"
	"loregate/lore/format/card"
	"loregate/lore/format/internal/conv"
	"loregate/lore/format/novelai"
	"loregate/lore/format/risu"
	"loregate/lore/format/sillytavern"
	"loregate/lore/format/worldbook"
	"loregate/lore/i18n"
)

// sourceView returns book with the parts of split entries joined back into
// one entry (lore.JoinSplit) and the scan depths importers took from the
// book level removed again from entries that still have them, so exports
// write what the source had. Entries edited since keep their own depth.
func sourceView(book Book) Book {
	out := book
	joined := lore.JoinSplit(book.Entries)
	out.Entries = make([]lore.Entry, len(joined))
	for i, e := range joined {
		if raw, ok := e.Extensions[conv.KeyBookScanDepth]; ok {
			e = e.Clone()
			if d, ok := conv.Int(raw); ok && e.ScanDepth != nil && *e.ScanDepth == d {
				e.ScanDepth = nil
			}
			delete(e.Extensions, conv.KeyBookScanDepth)
		}
		out.Entries[i] = e
	}
	return out
}

// ExportST writes book as one SillyTavern world info JSON file (docs/contract.md#exports:
// standalone exports are world info). A book imported
// from world info exports back equal to its source, compared as JSON
// ignoring member order and fields ST fills with defaults.
func ExportST(book Book) ([]byte, error) { return sillytavern.Encode(sourceView(book)) }

// ExportCharacterBook writes book as a V2 character_book object with the
// SillyTavern entry fields in snake_case extensions as ST writes them
// (docs/formats.md), ready to embed in a card's data.character_book.
func ExportCharacterBook(book Book) ([]byte, error) {
	return card.EncodeCharacterBook(sourceView(book))
}

// ExportLorebookV3 writes book as a standalone CCv3 lorebook
// {spec:"lorebook_v3", data} (docs/formats.md).
func ExportLorebookV3(book Book) ([]byte, error) { return card.EncodeLorebookV3(sourceView(book)) }

// ExportNovelAI writes book as a NovelAI .lorebook (docs/formats.md). Lossy
// where NovelAI has no field (secondary keys, roles, chance); see
// docs/formats.md "Lossy-on-export". NovelAI has no decorators: they are
// mapped to entry fields (see NativeDecorators; DecoratorNotes lists the
// rest).
func ExportNovelAI(book Book) ([]byte, error) {
	return novelai.Encode(withoutDecorators(sourceView(book)))
}

// ExportRisu writes book as a RisuAI lorebook export {type: "risu"}
// (docs/formats.md); keys are joined with ", ".
func ExportRisu(book Book) ([]byte, error) { return risu.Encode(sourceView(book)) }

// ExportAgnai writes book as an Agnai memory book (docs/formats.md). Agnai
// has no decorators: they are mapped as for ExportNovelAI. Agnai has no
// Always On either: such entries carry loregate's marker (AgnaiNotes says
// so in a report).
func ExportAgnai(book Book) ([]byte, error) { return agnai.Encode(withoutDecorators(sourceView(book))) }

// ExportWorldbook writes book as a Tavern Helper worldbook, entries keyed
// "0", "1", ... (docs/formats.md "Worldbook"). Decorator lines stay in the
// content, as for world info.
func ExportWorldbook(book Book) ([]byte, error) { return worldbook.Encode(sourceView(book)) }

// AgnaiNotes lists the report notices of an export of book to Agnai: its
// Always On entries are kept only as loregate's marker, which Agnai does not
// act on. Nil when there is nothing to say.
func AgnaiNotes(book Book) []Notice { return agnai.AlwaysOnNotes(book) }

// HasDecorators reports whether kind is a format whose entries carry
// decorator lines in their content (CCv3 cards and books, RisuAI, and
// SillyTavern, which honours @@activate and @@dont_activate). Exports to the
// others (NovelAI, Agnai) map decorators to fields.
func HasDecorators(kind Kind) bool { return kind != KindNovelAI && kind != KindAgnai }

// withoutDecorators returns book with every entry's decorator lines mapped
// by NativeDecorators.
func withoutDecorators(book Book) Book {
	out := book
	out.Entries = make([]lore.Entry, len(book.Entries))
	for i, e := range book.Entries {
		out.Entries[i], _ = NativeDecorators(e)
	}
	return out
}

// NativeDecorators returns e for a format without decorators: the content
// without its decorator lines, and the decorators that have an entry field
// applied to it (@@dont_activate: disabled; @@activate: constant;
// @@scan_depth, @@probability, @@order, @@priority, @@role: the field;
// @@position and @@depth: the placement; @@additional_keys: more primary
// keys; @@match_full_word and @@match_partial_word: whole words;
// @@no_recursive_search and @@unrecursive: the recursion flags). It also
// returns the lines that have no field (for example @@is_greeting,
// @@exclude_keys, @@activate_only_after, unknown names): the export drops
// them and DecoratorNotes lists them.
func NativeDecorators(e lore.Entry) (lore.Entry, []string) {
	decs, body := decorator.Parse(e.Content)
	if decs == nil {
		return e, nil
	}
	set := decorator.Resolve(decs)
	e = e.Clone()
	e.Content = body
	switch {
	case set.DontActivate:
		e.Enabled = false
	case set.Activate:
		e.Constant = true
	}
	if set.ScanDepth != nil {
		e.ScanDepth = set.ScanDepth
	}
	for _, f := range []struct {
		dst *int
		v   *int
	}{{&e.Probability, set.Probability}, {&e.Order, set.Order}, {&e.Priority, set.Priority}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	if k := set.Kind(e.PositionKindOrDerived()); k != e.PositionKindOrDerived() || set.Depth != nil {
		e.Position, e.Placement = k, k.Placement()
		if set.Depth != nil && set.Position == nil {
			e.Depth = min(*set.Depth, lore.MaxDepth)
		}
	}
	if set.Role != "" {
		e.Role = set.Role
	}
	if len(set.AdditionalKeys) > 0 {
		e.Keys = append(slices.Clone(e.Keys), set.AdditionalKeys...)
	}
	if set.WholeWords != nil {
		e.WholeWords = set.WholeWords
	}
	e.ExcludeRecursion = e.ExcludeRecursion || set.ExcludeRecursion
	e.PreventRecursion = e.PreventRecursion || set.PreventRecursion
	var dropped []string
	for _, d := range decs {
		switch d.Name {
		case "dont_activate", "activate", "scan_depth", "probability", "order", "priority", "position", "role",
			"additional_keys", "match_full_word", "match_partial_word", "no_recursive_search", "unrecursive":
			if !d.Fallback && !ignoredLine(set, d.Line) {
				continue
			}
		case "depth":
			if set.Position == nil && !ignoredLine(set, d.Line) {
				continue // the position and depth carry it
			}
		}
		dropped = append(dropped, d.Line)
	}
	return e, dropped
}

func ignoredLine(set decorator.Set, line string) bool {
	for _, ig := range set.Ignored {
		if ig.Line == line {
			return true
		}
	}
	return false
}

// DecoratorNotes lists, one line per entry, the decorator lines an export
// to a format without decorators (HasDecorators false) drops because no
// field carries them (notices decorators_not_exported). Nil when there are
// none.
func DecoratorNotes(book Book) []Notice {
	var out []Notice
	for i, e := range sourceView(book).Entries {
		if _, dropped := NativeDecorators(e); len(dropped) > 0 {
			names := make([]string, len(dropped))
			for j, l := range dropped {
				names[j] = "@@" + conv.DecoratorName(l)
			}
			out = append(out, Notice{Reason: i18n.ReportDecoratorsNotExported,
				Params: map[string]any{"index": i, "title": conv.Snippet(e.Title), "decorators": names}})
		}
	}
	return out
}
