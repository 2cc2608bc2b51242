package format

import (
	"loregate/lore"
	"loregate/lore/format/agnai"
	"loregate/lore/format/card"
	"loregate/lore/format/internal/conv"
	"loregate/lore/format/novelai"
	"loregate/lore/format/risu"
	"loregate/lore/format/sillytavern"
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

// ExportST writes book as one SillyTavern world info JSON file (seed 000
// "Import and export": standalone exports are world info). A book imported
// from world info exports back equal to its source, compared as JSON
// ignoring member order and fields ST fills with defaults.
func ExportST(book Book) ([]byte, error) { return sillytavern.Encode(sourceView(book)) }

// ExportCharacterBook writes book as a V2 character_book object with the
// SillyTavern entry fields in snake_case extensions as ST writes them
// (sillytavern.md 3.2), ready to embed in a card's data.character_book.
func ExportCharacterBook(book Book) ([]byte, error) {
	return card.EncodeCharacterBook(sourceView(book))
}

// ExportLorebookV3 writes book as a standalone CCv3 lorebook
// {spec:"lorebook_v3", data} (formats.md 1.3).
func ExportLorebookV3(book Book) ([]byte, error) { return card.EncodeLorebookV3(sourceView(book)) }

// ExportNovelAI writes book as a NovelAI .lorebook (formats.md 1.6). Lossy
// where NovelAI has no field (secondary keys, roles, chance); see
// formats.md 2 "Lossy-on-export".
func ExportNovelAI(book Book) ([]byte, error) { return novelai.Encode(sourceView(book)) }

// ExportRisu writes book as a RisuAI lorebook export {type: "risu"}
// (formats.md 1.5.3); keys are joined with ", ".
func ExportRisu(book Book) ([]byte, error) { return risu.Encode(sourceView(book)) }

// ExportAgnai writes book as an Agnai memory book (formats.md 1.7).
func ExportAgnai(book Book) ([]byte, error) { return agnai.Encode(sourceView(book)) }
