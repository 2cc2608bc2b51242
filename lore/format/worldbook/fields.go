package worldbook

import (
	"encoding/json"
	"strings"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
)

// field is one worldbook member with a canonical destination: its dotted
// path, the SillyTavern world info field it reads as, the conversion of
// its value to that field's spelling, and its canonical encoding.
type field struct {
	path string
	st   string
	// toST turns the worldbook value into the world info value (nil: absent).
	toST func(json.RawMessage) json.RawMessage
	enc  func(e *lore.Entry) any
	// omit (may be nil) leaves the member out when the entry has the
	// default and the source had no such member.
	omit func(e *lore.Entry) bool
}

func same(raw json.RawMessage) json.RawMessage { return raw }

func null0(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

// positionNames are the worldbook position types in world info position
// order (0-7: before/after the character, author's note top/bottom, at
// depth, example messages top/bottom, outlet).
var positionNames = [...]string{
	"before_character_definition", "after_character_definition", "before_author_note", "after_author_note",
	"at_depth", "before_example_messages", "after_example_messages", "outlet",
}

// positionNumber is the world info position of a worldbook position type
// and whether the type is known.
func positionNumber(raw json.RawMessage) (int, bool) {
	s, _ := conv.String(raw)
	for i, n := range positionNames {
		if s == n {
			return i, true
		}
	}
	return 1, false
}

// logicNames are the keys_secondary logics in world info selectiveLogic
// order (0-3).
var logicNames = [...]string{"and_any", "not_all", "not_any", "and_all"}

func stVia[T any](m func(json.RawMessage) (T, bool)) func(json.RawMessage) json.RawMessage {
	return func(raw json.RawMessage) json.RawMessage {
		if v, ok := m(raw); ok {
			return conv.MustMarshal(v)
		}
		return raw
	}
}

func stField(name string) func(e *lore.Entry) any {
	f, _ := conv.STFieldByName(name)
	return f.Enc
}

// fields are the canonical members in the order Encode writes them.
var fields = []field{
	{path: "name", st: "comment", toST: same, enc: func(e *lore.Entry) any { return e.Title }},
	{path: "enabled", st: "disable", toST: func(raw json.RawMessage) json.RawMessage {
		if b, ok := conv.Bool(raw); ok {
			return conv.MustMarshal(!b)
		}
		return nil
	}, enc: func(e *lore.Entry) any { return e.Enabled }},
	{path: "strategy.type", st: "constant", toST: func(raw json.RawMessage) json.RawMessage {
		s, _ := conv.String(raw)
		return conv.MustMarshal(s == "constant")
	}, enc: func(e *lore.Entry) any {
		if e.Constant {
			return "constant"
		}
		if e.Vectorized {
			return "vectorized"
		}
		return "selective"
	}},
	{path: "strategy.keys", st: "key", toST: same, enc: func(e *lore.Entry) any { return conv.NonNil(e.Keys) }},
	{path: "strategy.keys_secondary.logic", st: "selectiveLogic", toST: stVia(func(raw json.RawMessage) (int, bool) {
		s, _ := conv.String(raw)
		for i, n := range logicNames {
			if s == n {
				return i, true
			}
		}
		return 0, false
	}), enc: func(e *lore.Entry) any { return logicNames[conv.STLogicInt(e.Logic)] }},
	{path: "strategy.keys_secondary.keys", st: "keysecondary", toST: same, enc: func(e *lore.Entry) any { return conv.NonNil(e.SecondaryKeys) }},
	{path: "strategy.scan_depth", st: "scanDepth", toST: func(raw json.RawMessage) json.RawMessage {
		if s, ok := conv.String(raw); ok && s == "same_as_global" {
			return json.RawMessage("null")
		}
		return raw
	}, enc: func(e *lore.Entry) any {
		if e.ScanDepth == nil {
			return "same_as_global"
		}
		return *e.ScanDepth
	}},
	{path: "position.type", st: "position", toST: stVia(func(raw json.RawMessage) (int, bool) {
		n, _ := positionNumber(raw)
		return n, true
	}), enc: encPosition},
	{path: "position.role", st: "role", toST: stVia(func(raw json.RawMessage) (int, bool) {
		s, _ := conv.String(raw)
		return conv.STRoleInt(lore.Role(s)), true
	}), enc: func(e *lore.Entry) any {
		if e.Role.Valid() {
			return string(e.Role)
		}
		return string(lore.RoleSystem)
	}},
	{path: "position.depth", st: "depth", toST: same, enc: func(e *lore.Entry) any { return e.Depth }},
	{path: "position.order", st: "order", toST: same, enc: func(e *lore.Entry) any { return e.Order }},
	{path: "content", st: "content", toST: same, enc: func(e *lore.Entry) any { return e.Content }},
	{path: "probability", st: "probability", toST: same, enc: func(e *lore.Entry) any { return e.Probability }},
	{path: "recursion.prevent_incoming", st: "excludeRecursion", toST: same, enc: func(e *lore.Entry) any { return e.ExcludeRecursion }},
	{path: "recursion.prevent_outgoing", st: "preventRecursion", toST: same, enc: func(e *lore.Entry) any { return e.PreventRecursion }},
	{path: "recursion.delay_until", st: "delayUntilRecursion", toST: same, enc: func(e *lore.Entry) any { return null0(e.DelayUntilRecursion) }},
	{path: "effect.sticky", st: "sticky", toST: same, enc: func(e *lore.Entry) any { return null0(e.Sticky) }},
	{path: "effect.cooldown", st: "cooldown", toST: same, enc: func(e *lore.Entry) any { return null0(e.Cooldown) }},
	{path: "effect.delay", st: "delay", toST: same, enc: func(e *lore.Entry) any { return null0(e.Delay) }},
	// Flat members in world info spelling, written when set.
	{path: "caseSensitive", st: "caseSensitive", toST: same, enc: stField("caseSensitive"), omit: func(e *lore.Entry) bool { return e.CaseSensitive == nil }},
	{path: "matchWholeWords", st: "matchWholeWords", toST: same, enc: stField("matchWholeWords"), omit: func(e *lore.Entry) bool { return e.WholeWords == nil }},
	{path: "group", st: "group", toST: same, enc: stField("group"), omit: func(e *lore.Entry) bool { return e.Group == "" }},
	{path: "groupOverride", st: "groupOverride", toST: same, enc: stField("groupOverride"), omit: func(e *lore.Entry) bool { return !e.GroupOverride }},
	{path: "groupWeight", st: "groupWeight", toST: same, enc: stField("groupWeight"), omit: func(e *lore.Entry) bool { return e.GroupWeight == lore.DefaultGroupWeight }},
	{path: "useGroupScoring", st: "useGroupScoring", toST: same, enc: stField("useGroupScoring"), omit: func(e *lore.Entry) bool { return e.UseGroupScoring == nil }},
	{path: "outletName", st: "outletName", toST: same, enc: stField("outletName"), omit: func(e *lore.Entry) bool { return e.Outlet == "" }},
	{path: "ignoreBudget", st: "ignoreBudget", toST: same, enc: stField("ignoreBudget"), omit: func(e *lore.Entry) bool { return !e.IgnoreBudget }},
	// Context sources, generation types and the character filter, in
	// world info spelling too (the worldbook has no member of its own for
	// them; docs/formats.md "Worldbook").
	matchMember("matchPersonaDescription", func(m lore.MatchSources) bool { return m.PersonaDescription }),
	matchMember("matchCharacterDescription", func(m lore.MatchSources) bool { return m.CharacterDescription }),
	matchMember("matchCharacterPersonality", func(m lore.MatchSources) bool { return m.CharacterPersonality }),
	matchMember("matchCharacterDepthPrompt", func(m lore.MatchSources) bool { return m.CharacterDepthPrompt }),
	matchMember("matchScenario", func(m lore.MatchSources) bool { return m.Scenario }),
	matchMember("matchCreatorNotes", func(m lore.MatchSources) bool { return m.CreatorNotes }),
	{path: "triggers", st: "triggers", toST: same, enc: stField("triggers"), omit: func(e *lore.Entry) bool { return len(e.GenerationTypes) == 0 }},
	{path: "characterFilter", st: "characterFilter", toST: same, enc: stField("characterFilter"), omit: func(e *lore.Entry) bool { return conv.OmitST("characterFilter", e) }},
}

// matchMember is the flat member of a match flag, written when the flag is set.
func matchMember(name string, flag func(lore.MatchSources) bool) field {
	return field{path: name, st: name, toST: same, enc: stField(name), omit: func(e *lore.Entry) bool { return !flag(e.Match) }}
}

func fieldByPath(p string) (field, bool) {
	for _, f := range fields {
		if f.path == p {
			return f, true
		}
	}
	return field{}, false
}

// consistent reports whether the kept source value kept still reads as
// e's value of the field (then Encode writes it back as it was).
func (f field) consistent(kept json.RawMessage, e *lore.Entry) bool {
	sf, ok := conv.STFieldByName(f.st)
	if !ok {
		return false
	}
	s := e.Clone()
	var c conv.STCtx
	sf.Dec(&s, f.toST(kept), &c)
	return sf.Eq(&s, e)
}

// encPosition is the worldbook position type of e's position kind.
func encPosition(e *lore.Entry) any {
	return positionNames[e.PositionKindOrDerived().ST()]
}

// tree builds an entry object with its nested objects, members in the
// order they were first set.
type tree struct {
	objs map[string]*conv.Object // by nest path; "" is the entry
}

func newTree() *tree { return &tree{objs: map[string]*conv.Object{"": conv.NewObject()}} }

// parent splits path into its nest (the longest nest path it is inside)
// and its member name there.
func parent(path string) (string, string) {
	best := ""
	for n := range nests {
		if strings.HasPrefix(path, n+".") && len(n) > len(best) {
			best = n
		}
	}
	if best == "" {
		return "", path
	}
	return best, path[len(best)+1:]
}

func (t *tree) obj(nest string) *conv.Object {
	if o, ok := t.objs[nest]; ok {
		return o
	}
	o := conv.NewObject()
	t.objs[nest] = o
	p, name := parent(nest)
	if po := t.obj(p); !po.Has(name) {
		po.Set(name, json.RawMessage("{}")) // placeholder keeps the order
	}
	return o
}

func (t *tree) set(path string, v json.RawMessage) {
	nest, name := parent(path)
	t.obj(nest).Set(name, v)
}

// marshal writes the entry, nested objects deepest first.
func (t *tree) marshal() (json.RawMessage, error) {
	var build func(nest string) (json.RawMessage, error)
	build = func(nest string) (json.RawMessage, error) {
		o := t.objs[nest]
		for _, f := range o.Fields {
			child := f.Name
			if nest != "" {
				child = nest + "." + f.Name
			}
			if _, ok := t.objs[child]; ok && nests[child] {
				raw, err := build(child)
				if err != nil {
					return nil, err
				}
				o.Set(f.Name, raw)
			}
		}
		return o.MarshalJSON()
	}
	return build("")
}
