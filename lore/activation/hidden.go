package activation

import (
	"strconv"

	"loregate/lore"
)

// GateTrace returns trace items for entries that a turn's scope read left
// out: the per-turn read loads only enabled entries of enabled collections
// (docs/turns.md), while a preview trace lists every entry of the scope.
// Each entry of entries gets the verdict the engine's gates give it
// against in (disabled, gated_collection, gated_channel, ...: rule 1 of
// Activate), with pass 0, in the order given; one that passes them and
// whose category is in offCategories (category id -> name: the disabled
// categories of its book) gets gated_category. Any other entry is left
// out: it was not hidden from the turn (the scope changed after the
// turn's read), and only a turn can give it a verdict.
func GateTrace(entries []lore.Entry, in *Input, offCategories map[int64]string) []TraceItem {
	var (
		gc  gateCache
		out []TraceItem
	)
	for i := range entries {
		e := &entries[i]
		if v, d := gc.gate(e, in); v != "" {
			out = append(out, TraceItem{ID: e.ID, Title: e.Title, Verdict: v, Detail: d, Params: verdictParams(v, e, d)})
		} else if name, off := offCategories[e.CategoryID]; off && e.CategoryID != 0 {
			out = append(out, TraceItem{ID: e.ID, Title: e.Title, Verdict: VerdictGatedCategory,
				Detail: "category " + strconv.Quote(name) + " is disabled", Params: lore.Params{"category": name}})
		}
	}
	return out
}
