package sillytavern

import (
	"encoding/json"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
)

// hybridBook reports whether book came from a Chub/Venus hybrid: it kept
// the card book fields IsHybrid looks for at its top level.
func hybridBook(book *conv.Book) bool {
	for _, n := range []string{"is_creation", "scan_depth", "token_budget"} {
		if _, ok := book.Extensions[conv.PrefixST+n]; ok {
			return true
		}
	}
	return false
}

// writeMirrors gives eo, the world info object of hybrid entry e, the card
// mirror fields its source carried (keys, secondary_keys, insertion_order,
// enabled, case_sensitive, id; docs/formats.md#rules-worth-knowing), each with
// the value of its world info twin as written, so the file stays a hybrid
// and an edit made in loregate is not undone by the stale card spelling
// (which a hybrid reader prefers). An entry that had none gets none.
func writeMirrors(eo *conv.Object, e *lore.Entry) {
	for _, p := range hybridNames {
		card, st := p[0], p[1]
		if _, had := e.Extensions[conv.PrefixCard+card]; !had {
			continue
		}
		v, ok := eo.Get(st)
		if !ok {
			continue
		}
		if card == "enabled" {
			if disabled, isBool := conv.Bool(v); isBool {
				v = conv.MustMarshal(!disabled)
			}
		}
		eo.Set(card, json.RawMessage(v))
	}
}
