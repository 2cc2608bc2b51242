package format

import (
	"loregate/lore"
	"loregate/lore/i18n"
)

// PositionFilterNotes lists the report notices of an export of book to
// to ("risu", "agnai" or "novelai"; nil for the other formats, which keep
// every position and filter field: docs/formats.md "Positions, roles and
// filters per format"): the entries whose match flags, character filter
// or generation types the format has no field for, and, for RisuAI, the
// entries whose position only loregate's "loregate" member carries
// (author's note, example messages, outlets: RisuAI has no decorator for
// them); for Agnai and NovelAI, the entries whose position is lost.
func PositionFilterNotes(to string, book Book) []Notice {
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
	var out []Notice
	note := func(n int, one, many i18n.Key) {
		if n == 1 {
			out = append(out, Notice{Reason: one, Params: map[string]any{"format": names}})
		} else {
			out = append(out, Notice{Reason: many, Params: map[string]any{"format": names, "count": n}})
		}
	}
	if filtered > 0 {
		note(filtered, i18n.ReportFiltersNotExportedOne, i18n.ReportFiltersNotExported)
	}
	if unplaced > 0 && to == "risu" {
		note(unplaced, i18n.ReportRisuPositionsInMarkerOne, i18n.ReportRisuPositionsInMarker)
	} else if unplaced > 0 {
		note(unplaced, i18n.ReportPositionsLostOne, i18n.ReportPositionsLost)
	}
	return out
}
