package lore

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"loregate/lore/i18n"
)

// PositionKind is where an entry's text goes in the prompt: SillyTavern's
// eight world info positions, 0-7 in this order (docs/authoring.md
// "Positions").
type PositionKind string

// The eight position kinds (SillyTavern position 0-7).
const (
	// PositionBeforeChar (0): before the character definition, the Before
	// placement of docs/contract.md#prompt.
	PositionBeforeChar PositionKind = "BEFORE_CHAR"
	// PositionAfterChar (1): after the character definition (the After
	// placement); the kind of a new entry.
	PositionAfterChar PositionKind = "AFTER_CHAR"
	// PositionANTop and PositionANBottom (2, 3): above and below the
	// author's note.
	PositionANTop    PositionKind = "AN_TOP"
	PositionANBottom PositionKind = "AN_BOTTOM"
	// PositionAtDepth (4): its own message, Entry.Depth messages before the
	// end of the history, with Entry.Role.
	PositionAtDepth PositionKind = "AT_DEPTH"
	// PositionEMTop and PositionEMBottom (5, 6): before and after the
	// example messages.
	PositionEMTop    PositionKind = "EM_TOP"
	PositionEMBottom PositionKind = "EM_BOTTOM"
	// PositionOutlet (7): the named outlet Entry.Outlet, read where
	// {{outlet::NAME}} appears.
	PositionOutlet PositionKind = "OUTLET"
)

// positionKinds lists the kinds in SillyTavern's order (index = ST number).
var positionKinds = [...]PositionKind{PositionBeforeChar, PositionAfterChar, PositionANTop, PositionANBottom,
	PositionAtDepth, PositionEMTop, PositionEMBottom, PositionOutlet}

// PositionFromST returns the kind of SillyTavern position n (0-7).
func PositionFromST(n int) (PositionKind, bool) {
	if n < 0 || n >= len(positionKinds) {
		return "", false
	}
	return positionKinds[n], true
}

// ST returns the SillyTavern position number of k (0-7), -1 for an invalid
// kind.
func (k PositionKind) ST() int {
	return slices.Index(positionKinds[:], k)
}

// ST returns the SillyTavern role number of r: 0 system (also for an
// unknown role), 1 user, 2 assistant; the order injections sort roles in.
func (r Role) ST() int {
	switch r {
	case RoleUser:
		return 1
	case RoleAssistant:
		return 2
	}
	return 0
}

// Valid reports whether k is one of the eight kinds.
func (k PositionKind) Valid() bool { return k.ST() >= 0 }

// Placement is the placement derived from k: After for AFTER_CHAR, Before
// for every other kind (docs/contract.md#prompt: the two slots).
func (k PositionKind) Placement() Placement {
	if k == PositionAfterChar {
		return After
	}
	return Before
}

// Injected reports whether entries of kind k leave the two placements and
// become injections (every kind but BEFORE_CHAR and AFTER_CHAR).
func (k PositionKind) Injected() bool {
	return k.Valid() && k != PositionBeforeChar && k != PositionAfterChar
}

// Limits of the position fields.
const (
	// DefaultDepth is the depth of an entry whose source has none
	// (SillyTavern's default injection depth).
	DefaultDepth = 4
	// MaxDepth bounds Entry.Depth (0..MaxDepth messages).
	MaxDepth = 10_000
	// MaxOutletLen bounds an outlet name (UTF-16 code units).
	MaxOutletLen = MaxTitleLen
	// MaxFilterItems bounds CharacterFilter.Names and .Tags, each;
	// MaxFilterItemLen bounds one name or tag.
	MaxFilterItems   = 100
	MaxFilterItemLen = MaxTitleLen
)

// Position is the resolved position of an entry as the API reports it:
// Depth and Role are set only for AT_DEPTH, Outlet only for OUTLET.
type Position struct {
	Kind   PositionKind `json:"kind"`
	Depth  *int         `json:"depth"`
	Role   *Role        `json:"role"`
	Outlet *string      `json:"outlet"`
}

// NewPosition returns the reported position of kind k with depth, role and
// outlet, each kept only where k uses it.
func NewPosition(k PositionKind, depth int, role Role, outlet string) Position {
	p := Position{Kind: k}
	switch k {
	case PositionAtDepth:
		if role == "" {
			role = RoleSystem
		}
		p.Depth, p.Role = &depth, &role
	case PositionOutlet:
		p.Outlet = &outlet
	}
	return p
}

// PositionKindOrDerived returns e.Position, or the kind of e.Placement when
// e has none (an entry built before positions existed).
func (e *Entry) PositionKindOrDerived() PositionKind {
	if e.Position.Valid() {
		return e.Position
	}
	if e.Placement == Before {
		return PositionBeforeChar
	}
	return PositionAfterChar
}

// EntryPosition returns the reported position of e.
func (e *Entry) EntryPosition() Position {
	return NewPosition(e.PositionKindOrDerived(), e.Depth, e.Role, e.Outlet)
}

// MatchSources are the context texts an entry's keys are also matched
// against (SillyTavern's match* flags, docs/authoring.md "Context
// sources"). The zero value matches chat messages only.
type MatchSources struct {
	CharacterDescription bool `json:"characterDescription,omitempty"`
	CharacterPersonality bool `json:"characterPersonality,omitempty"`
	Scenario             bool `json:"scenario,omitempty"`
	CreatorNotes         bool `json:"creatorNotes,omitempty"`
	CharacterDepthPrompt bool `json:"characterDepthPrompt,omitempty"`
	PersonaDescription   bool `json:"personaDescription,omitempty"`
}

// Any reports whether a source is set.
func (m MatchSources) Any() bool { return m != MatchSources{} }

// CharacterFilter limits an entry to characters (SillyTavern's
// characterFilter): Names and Tags include (or with Exclude, exclude) the
// request's character (docs/authoring.md "Character filter"). The zero
// value admits every character.
type CharacterFilter struct {
	Names   []string `json:"names,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Exclude bool     `json:"exclude,omitempty"`
}

// IsZero reports whether f filters nothing (no names and no tags).
func (f CharacterFilter) IsZero() bool { return len(f.Names) == 0 && len(f.Tags) == 0 }

// GenerationType is the kind of generation a turn is for (SillyTavern's
// triggers).
type GenerationType string

// The six generation types, lower case as SillyTavern writes them.
const (
	GenNormal      GenerationType = "normal"
	GenContinue    GenerationType = "continue"
	GenImpersonate GenerationType = "impersonate"
	GenSwipe       GenerationType = "swipe"
	GenRegenerate  GenerationType = "regenerate"
	GenQuiet       GenerationType = "quiet"
)

// GenerationTypes returns the six types in SillyTavern's order.
func GenerationTypes() []GenerationType {
	return []GenerationType{GenNormal, GenContinue, GenImpersonate, GenSwipe, GenRegenerate, GenQuiet}
}

// Valid reports whether g is one of the six types.
func (g GenerationType) Valid() bool { return slices.Contains(GenerationTypes(), g) }

// validatePosition checks the position, depth, outlet, character filter
// and generation type fields.
func (e *Entry) validatePosition(fe *FieldErrors) {
	switch {
	case e.Position != "" && !e.Position.Valid():
		fe.Add(Reject("position", i18n.NotOneOf, Params{"value": clipForError(string(e.Position)), "allowed": kindList()}))
	case e.Position.Valid() && e.Position.Placement() != e.Placement:
		fe.Add(Reject("position", i18n.PositionPlacement, Params{"kind": string(e.Position),
			"placement": string(e.Position.Placement()), "value": clipForError(string(e.Placement))}))
	}
	if e.Depth < 0 || e.Depth > MaxDepth {
		fe.Add(outOfRange("position.depth", e.Depth, 0, MaxDepth))
	}
	fe.Add(checkName("position.outlet", e.Outlet, MaxOutletLen))
	for _, l := range []struct {
		field string
		list  []string
	}{{"characterFilter.names", e.CharacterFilter.Names}, {"characterFilter.tags", e.CharacterFilter.Tags}} {
		if len(l.list) > MaxFilterItems {
			fe.Add(Reject(l.field, i18n.TooManyNames, Params{"count": len(l.list), "max": MaxFilterItems}))
			continue
		}
		for i, s := range l.list {
			if strings.TrimSpace(s) == "" {
				fe.Add(Reject(indexField(l.field, i), i18n.Blank, nil))
			} else {
				fe.Add(checkName(indexField(l.field, i), s, MaxFilterItemLen))
			}
		}
	}
	for i, g := range e.GenerationTypes {
		if !g.Valid() {
			fe.Add(Reject(indexField("generationTypes", i), i18n.NotOneOf, Params{"value": clipForError(string(g)),
				"allowed": "normal, continue, impersonate, swipe, regenerate, quiet"}))
		}
	}
}

func kindList() string {
	s := make([]string, len(positionKinds))
	for i, k := range positionKinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// checkName checks a free-text name: valid UTF-8, no NUL, at most max
// UTF-16 code units.
func checkName(field, s string, max int) error {
	return validateText(field, s, max, false)
}

// NormalizePosition fills e.Position before a write: an entry without a
// position takes the one its source fields kept in
// Extensions (SillyTavern world info "st/position", a card's
// "card/extensions/position"; the lift migration 000060 applies to stored
// rows, so a snapshot or backup taken before it acts the same), else the
// kind of its placement, and the placement is derived from the position
// found. Depth, outlet, match flags, character filter and generation types
// are lifted from the same extensions. An entry with a position is left as
// it is: validation refuses a placement that disagrees with it.
func (e *Entry) NormalizePosition() {
	if e.Position == "" && e.Placement.Valid() { // an invalid placement is refused by validation
		e.liftSourceFields()
		e.Placement = e.Position.Placement()
	}
}

// liftSourceFields fills the position fields of an entry written before
// they existed from the source fields kept in its extensions, and drops
// the world info copies it lifted (the first-class field wins on export).
func (e *Entry) liftSourceFields() {
	e.Position = e.PositionKindOrDerived()
	if e.Depth == 0 {
		e.Depth = DefaultDepth
	}
	if len(e.Extensions) == 0 {
		return
	}
	ext := maps.Clone(e.Extensions) // the caller's map may be shared
	e.Extensions = ext
	num := func(keys ...string) (int, bool) {
		for _, k := range keys {
			var n int
			if v, ok := ext[k]; ok && json.Unmarshal(v, &n) == nil {
				return n, true
			}
		}
		return 0, false
	}
	if n, ok := num("st/position", "card/extensions/position"); ok {
		if k, ok := PositionFromST(n); ok {
			e.Position = k
			delete(ext, "st/position")
		}
	}
	if n, ok := num("st/depth", "card/extensions/depth"); ok && n >= 0 {
		e.Depth = min(n, MaxDepth)
		delete(ext, "st/depth")
	}
	str := func(keys ...string) (string, bool) {
		for _, k := range keys {
			var s string
			if v, ok := ext[k]; ok && json.Unmarshal(v, &s) == nil {
				return s, true
			}
		}
		return "", false
	}
	if s, ok := str("st/outletName", "card/extensions/outlet_name"); ok && checkName("", s, MaxOutletLen) == nil {
		e.Outlet = s
		delete(ext, "st/outletName")
	}
	e.liftFlagsAndFilters(ext)
}

// liftFlagsAndFilters is liftSourceFields for the match flags, triggers and
// the character filter.
func (e *Entry) liftFlagsAndFilters(ext map[string]json.RawMessage) {
	flag := func(dst *bool, st, card string) {
		for _, k := range []string{"st/" + st, "card/extensions/" + card} {
			var b bool
			if v, ok := ext[k]; ok && json.Unmarshal(v, &b) == nil {
				*dst = b
				delete(ext, "st/"+st)
				return
			}
		}
	}
	m := &e.Match
	flag(&m.CharacterDescription, "matchCharacterDescription", "match_character_description")
	flag(&m.CharacterPersonality, "matchCharacterPersonality", "match_character_personality")
	flag(&m.Scenario, "matchScenario", "match_scenario")
	flag(&m.CreatorNotes, "matchCreatorNotes", "match_creator_notes")
	flag(&m.CharacterDepthPrompt, "matchCharacterDepthPrompt", "match_character_depth_prompt")
	flag(&m.PersonaDescription, "matchPersonaDescription", "match_persona_description")
	for _, k := range []string{"st/triggers", "card/extensions/triggers"} {
		var ts []GenerationType
		if v, ok := ext[k]; ok && json.Unmarshal(v, &ts) == nil && !slices.ContainsFunc(ts, func(g GenerationType) bool { return !g.Valid() }) {
			e.GenerationTypes = ts
			delete(ext, "st/triggers")
			break
		}
	}
	var cf struct {
		IsExclude bool     `json:"isExclude"`
		Names     []string `json:"names"`
		Tags      []string `json:"tags"`
	}
	if v, ok := ext["st/characterFilter"]; ok && json.Unmarshal(v, &cf) == nil {
		f := CharacterFilter{Names: cf.Names, Tags: cf.Tags, Exclude: cf.IsExclude}
		probe := Entry{CharacterFilter: f}
		var fe FieldErrors
		if probe.validatePosition(&fe); fe.Err() == nil {
			e.CharacterFilter = f
			delete(ext, "st/characterFilter")
		}
	}
}

// KeyPriorityFromOrder is the extension key (value true) of an entry whose
// priority follows its insertion order: an entry imported from SillyTavern
// world info or a card book without a priority of its own, where a higher
// order claims the budget first (docs/formats.md "Budget order"). Exports
// leave out a priority equal to the order of such an entry, and an edit of
// the order moves a priority that still equals the old order.
const KeyPriorityFromOrder = "loregate/priorityFromOrder"

// PriorityFollowsOrder reports whether e's priority follows its order
// (KeyPriorityFromOrder set and the two still equal).
func (e *Entry) PriorityFollowsOrder() bool {
	_, ok := e.Extensions[KeyPriorityFromOrder]
	return ok && e.Priority == e.Order
}

// SetPriorityFromOrder makes e's priority its order and marks it so
// (KeyPriorityFromOrder); e.Extensions must be non-nil.
func (e *Entry) SetPriorityFromOrder() {
	e.Priority = e.Order
	e.Extensions[KeyPriorityFromOrder] = json.RawMessage("true")
}

// MatchPatch is a partial edit of MatchSources: nil flags keep their value.
type MatchPatch struct {
	CharacterDescription, CharacterPersonality, Scenario, CreatorNotes, CharacterDepthPrompt, PersonaDescription *bool
}

// Apply returns m with the set flags of p.
func (p MatchPatch) Apply(m MatchSources) MatchSources {
	for _, f := range []struct {
		dst *bool
		v   *bool
	}{{&m.CharacterDescription, p.CharacterDescription}, {&m.CharacterPersonality, p.CharacterPersonality},
		{&m.Scenario, p.Scenario}, {&m.CreatorNotes, p.CreatorNotes},
		{&m.CharacterDepthPrompt, p.CharacterDepthPrompt}, {&m.PersonaDescription, p.PersonaDescription}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	return m
}

// CharacterFilterPatch is a partial edit of CharacterFilter: nil parts keep
// their value.
type CharacterFilterPatch struct {
	Names, Tags *[]string
	Exclude     *bool
}

// Apply returns f with the set parts of p (empty lists become nil).
func (p CharacterFilterPatch) Apply(f CharacterFilter) CharacterFilter {
	if p.Names != nil {
		f.Names = cloneStrings(*p.Names)
	}
	if p.Tags != nil {
		f.Tags = cloneStrings(*p.Tags)
	}
	if p.Exclude != nil {
		f.Exclude = *p.Exclude
	}
	if len(f.Names) == 0 {
		f.Names = nil
	}
	if len(f.Tags) == 0 {
		f.Tags = nil
	}
	return f
}
