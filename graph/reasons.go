package graph

import "loregate/lore"

// entriesByID indexes entries by id, for the params of trace reasons
// (activation.TraceItem.Reason); nil when want is false (no trace).
func entriesByID(entries []lore.Entry, want bool) map[int64]*lore.Entry {
	if !want {
		return nil
	}
	m := make(map[int64]*lore.Entry, len(entries))
	for i := range entries {
		m[entries[i].ID] = &entries[i]
	}
	return m
}
