package lore

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
)

// KeySplit is the extension key that links the parts of a split entry: an
// entry whose content was over the content limit when it was imported is
// stored as several rows (parts), each carrying {"group": G, "part": i,
// "parts": n}. The parts of one group share every field but Content, and
// their contents concatenated in part order are the original content
// (docs/formats.md "Long entries").
const KeySplit = "loregate/split"

// SplitRef is the value of KeySplit.
type SplitRef struct {
	// Group identifies the split group within its scope (opaque).
	Group string `json:"group"`
	// Part is the 0-based position of this part.
	Part int `json:"part"`
	// Parts is the number of parts of the group.
	Parts int `json:"parts"`
}

// Split returns the split group reference of e, if it is a part.
func (e Entry) Split() (SplitRef, bool) {
	raw, ok := e.Extensions[KeySplit]
	if !ok {
		return SplitRef{}, false
	}
	var r SplitRef
	if json.Unmarshal(raw, &r) != nil || r.Group == "" {
		return SplitRef{}, false
	}
	return r, true
}

// SetSplit marks e as part r of a split group (it copies Extensions first,
// so e may share them with other entries).
func (e *Entry) SetSplit(r SplitRef) {
	ext := make(map[string]json.RawMessage, len(e.Extensions)+1)
	for k, v := range e.Extensions {
		ext[k] = v
	}
	b, _ := json.Marshal(r)
	ext[KeySplit] = b
	e.Extensions = ext
}

// JoinSplit returns entries with the parts of each split group replaced by
// one logical entry at the position of the group's first part: the first
// part's id and fields (keys and settings are the group's), the parts'
// contents concatenated in part order, and no KeySplit extension. Groups are
// told apart by scope (lineage, collection) and group id. Entries that are
// not parts are returned as they are; entries is not modified. A group with
// parts missing (a filtered read) is joined from the parts present.
func JoinSplit(entries []Entry) []Entry {
	type gkey struct {
		lineage    Lineage
		collection string
		group      string
	}
	var groups map[gkey][]int
	for i, e := range entries {
		if r, ok := e.Split(); ok {
			if groups == nil {
				groups = map[gkey][]int{}
			}
			k := gkey{e.Lineage, e.Collection, r.Group}
			groups[k] = append(groups[k], i)
		}
	}
	if groups == nil {
		return entries
	}
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		r, ok := e.Split()
		if !ok {
			out = append(out, e)
			continue
		}
		k := gkey{e.Lineage, e.Collection, r.Group}
		idx, first := groups[k]
		if !first {
			continue // joined already
		}
		delete(groups, k)
		parts := make([]Entry, len(idx))
		for j, i := range idx {
			parts[j] = entries[i]
		}
		slices.SortStableFunc(parts, func(a, b Entry) int {
			ra, _ := a.Split()
			rb, _ := b.Split()
			return cmp.Compare(ra.Part, rb.Part)
		})
		var sb strings.Builder
		for _, p := range parts {
			sb.WriteString(p.Content)
		}
		joined := parts[0].Clone()
		joined.Content = sb.String()
		delete(joined.Extensions, KeySplit)
		if len(joined.Extensions) == 0 {
			joined.Extensions = nil
		}
		out = append(out, joined)
	}
	return out
}
