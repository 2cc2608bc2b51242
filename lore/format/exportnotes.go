package format

import (
	"fmt"

	"loregate/lore"
)

// PositionFilterNotes lists the report warnings of an export of book to
// to ("risu", "agnai" or "novelai"; nil for the other formats, which keep
// every position and filter field: docs/formats.md "Positions, roles and
// filters per format"): the entries whose match flags, character filter
// or generation types the format has no field for, and, for RisuAI, the
// entries whose position only loregate's "loregate" member carries
// (author's note, example messages, outlets: RisuAI has no decorator for
// them); for Agnai and NovelAI, the entries whose position is lost.
func PositionFilterNotes(to string, book Book) []string {
	var names string
	switch to {
	case "risu":
		names = "RisuAI"
	case "agnai":
		names = "Agnai"
	case "novelai":
		names = "NovelAI"
	default:
		return nil
	}
	filtered, unplaced := 0, 0
	for i := range book.Entries {
		e := &book.Entries[i]
		if e.Match.Any() || !e.CharacterFilter.IsZero() || e.CharacterFilter.Exclude || len(e.GenerationTypes) > 0 {
			filtered++
		}
		switch k := e.PositionKindOrDerived(); {
		case to == "risu" && k != lore.PositionAtDepth && k != lore.PositionBeforeChar && k != lore.PositionAfterChar:
			unplaced++
		case to != "risu" && k != lore.PositionAfterChar:
			unplaced++
		}
	}
	var out []string
	if filtered > 0 {
		out = append(out, fmt.Sprintf("%s match flags, a character filter or generation types, which %s has no field for: not carried by the export",
			lore.Count(filtered, "entry has", "entries have"), names))
	}
	if unplaced > 0 && to == "risu" {
		out = append(out, fmt.Sprintf("%s placed around the author's note, around the example messages or in an outlet, which RisuAI has no decorator for: the export keeps the position in the \"loregate\" member, which loregate reads back; RisuAI itself places such an entry after the character",
			lore.Count(unplaced, "entry is", "entries are")))
	} else if unplaced > 0 {
		out = append(out, fmt.Sprintf("%s not after the character, and %s has no position field: the export places %s after the character",
			lore.Count(unplaced, "entry is", "entries are"), names, map[bool]string{true: "it", false: "them"}[unplaced == 1]))
	}
	return out
}
