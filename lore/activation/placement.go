package activation

import (
	"cmp"
	"slices"
	"strings"

	"loregate/lore"
)

// This file builds Result.Injections and Result.Outlets: where the
// admitted entries of kinds other than BEFORE_CHAR and AFTER_CHAR go
// (docs/authoring.md "Positions").

// injectionKey groups injected entries: one Injection per key.
type injectionKey struct {
	kind   lore.PositionKind
	depth  int
	role   lore.Role
	outlet string
}

// injections groups the admitted entries (in insertion order) of the
// injected kinds by (kind, depth, role, outlet) and joins their contents
// in SillyTavern's order for the kind: ascending insertion order (highest
// order last) for AN_TOP, AN_BOTTOM, AT_DEPTH and EM_BOTTOM; highest first
// for EM_TOP and OUTLET. Groups come in kind order, AT_DEPTH by depth then
// role, OUTLET by name. An OUTLET entry without a name is listed (outlet
// "") but has no Outlet: nothing can read it.
func injections(r *Result) ([]Injection, []Outlet) {
	var keys []injectionKey
	var groups [][]int
	for k := range r.NumAdmitted() {
		p := &r.AdmittedAt(k).Position
		if !p.Kind.Injected() {
			continue
		}
		key := injectionKey{kind: p.Kind}
		if p.Depth != nil {
			key.depth, key.role = *p.Depth, *p.Role
		}
		if p.Outlet != nil {
			key.outlet = *p.Outlet
		}
		g := slices.Index(keys, key)
		if g < 0 {
			g = len(keys)
			keys, groups = append(keys, key), append(groups, nil)
		}
		groups[g] = append(groups[g], k)
	}
	if len(keys) == 0 {
		return nil, nil
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		ka, kb := keys[a], keys[b]
		return cmp.Or(cmp.Compare(ka.kind.ST(), kb.kind.ST()), cmp.Compare(ka.depth, kb.depth),
			cmp.Compare(ka.role.ST(), kb.role.ST()), cmp.Compare(ka.outlet, kb.outlet))
	})
	var out []Injection
	var outlets []Outlet
	for _, g := range idx {
		in := injection(keys[g], groups[g], r)
		out = append(out, in)
		if in.Kind == lore.PositionOutlet && *in.Outlet != "" {
			outlets = append(outlets, Outlet{Name: *in.Outlet, Text: in.Text})
		}
	}
	return out, outlets
}

// injection joins the entries members (indexes of r's admitted entries,
// insertion order) of one key.
func injection(key injectionKey, members []int, r *Result) Injection {
	if key.kind == lore.PositionEMTop || key.kind == lore.PositionOutlet {
		members = slices.Clone(members)
		slices.Reverse(members)
	}
	texts := make([]string, 0, len(members))
	in := Injection{Kind: key.kind, EntryIDs: make([]int64, 0, len(members))}
	for _, k := range members {
		a := r.AdmittedAt(k)
		texts = append(texts, a.Content)
		in.EntryIDs = append(in.EntryIDs, a.Entry.ID)
	}
	in.Text = strings.Join(texts, "\n")
	p := lore.NewPosition(key.kind, key.depth, key.role, key.outlet)
	in.Depth, in.Role, in.Outlet = p.Depth, p.Role, p.Outlet
	return in
}
