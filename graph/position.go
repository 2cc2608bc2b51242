package graph

import (
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// This file converts the position, context-source, filter and generation
// type fields of entries (docs/api.md "Positions").

// positionToModel returns the API shape of a resolved position.
func positionToModel(p lore.Position) model.EntryPosition {
	m := model.EntryPosition{Kind: model.PositionKind(p.Kind), Depth: p.Depth, Outlet: p.Outlet}
	if p.Role != nil {
		r := model.Role(strings.ToUpper(string(*p.Role)))
		m.Role = &r
	}
	return m
}

// setPositionFields fills the entry model's position, match, filter and
// generation type fields.
func setPositionFields(m *model.Entry, e lore.Entry) {
	m.Position = positionToModel(e.EntryPosition())
	m.MatchCharacterDescription = e.Match.CharacterDescription
	m.MatchCharacterPersonality = e.Match.CharacterPersonality
	m.MatchScenario = e.Match.Scenario
	m.MatchCreatorNotes = e.Match.CreatorNotes
	m.MatchCharacterDepthPrompt = e.Match.CharacterDepthPrompt
	m.MatchPersonaDescription = e.Match.PersonaDescription
	m.CharacterFilter = model.CharacterFilter{Names: nonNil(e.CharacterFilter.Names), Tags: nonNil(e.CharacterFilter.Tags),
		Exclude: e.CharacterFilter.Exclude}
	m.GenerationTypes = make([]model.GenerationType, len(e.GenerationTypes))
	for i, g := range e.GenerationTypes {
		m.GenerationTypes[i] = model.GenerationType(strings.ToUpper(string(g)))
	}
}

// positionInput is what EntryInput and EntryPatchInput share.
type positionInput struct {
	placement graphql.Omittable[*model.Placement]
	role      graphql.Omittable[*model.Role]
	position  graphql.Omittable[*model.EntryPositionInput]
	match     [6]graphql.Omittable[*bool]
	filter    graphql.Omittable[*model.CharacterFilterInput]
	gens      graphql.Omittable[[]model.GenerationType]
}

func inputPositionFields(in *model.EntryInput) positionInput {
	return positionInput{in.Placement, in.Role, in.Position,
		[6]graphql.Omittable[*bool]{in.MatchCharacterDescription, in.MatchCharacterPersonality, in.MatchScenario,
			in.MatchCreatorNotes, in.MatchCharacterDepthPrompt, in.MatchPersonaDescription},
		in.CharacterFilter, in.GenerationTypes}
}

func patchPositionFields(in *model.EntryPatchInput) positionInput {
	return positionInput{in.Placement, in.Role, in.Position,
		[6]graphql.Omittable[*bool]{in.MatchCharacterDescription, in.MatchCharacterPersonality, in.MatchScenario,
			in.MatchCreatorNotes, in.MatchCharacterDepthPrompt, in.MatchPersonaDescription},
		in.CharacterFilter, in.GenerationTypes}
}

// patch maps the fields to p (placement and role included), checking that
// they agree: a placement that disagrees with position.kind, depth or role
// with a kind other than AT_DEPTH, an outlet with a kind other than
// OUTLET, OUTLET without an outlet, or position.role unlike role are
// invalid input on "position".
func (in positionInput) patch(p *lore.EntryPatch) error {
	if v, ok := in.placement.ValueOK(); ok && v != nil {
		pl := lore.Placement(strings.ToLower(string(*v)))
		p.Placement = &pl
	}
	if v, ok := in.role.ValueOK(); ok && v != nil {
		r := lore.Role(strings.ToLower(string(*v)))
		p.Role = &r
	}
	if pos, ok := in.position.ValueOK(); ok && pos != nil {
		if err := positionPatch(p, pos); err != nil {
			return err
		}
	}
	dst := []**bool{&p.Match.CharacterDescription, &p.Match.CharacterPersonality, &p.Match.Scenario,
		&p.Match.CreatorNotes, &p.Match.CharacterDepthPrompt, &p.Match.PersonaDescription}
	for i, o := range in.match {
		*dst[i] = boolPtr(o)
	}
	if f, ok := in.filter.ValueOK(); ok && f != nil {
		if v, ok := f.Names.ValueOK(); ok {
			names := nonNil(v)
			p.CharacterFilter.Names = &names
		}
		if v, ok := f.Tags.ValueOK(); ok {
			tags := nonNil(v)
			p.CharacterFilter.Tags = &tags
		}
		p.CharacterFilter.Exclude = boolPtr(f.Exclude)
	}
	if v, ok := in.gens.ValueOK(); ok {
		gens := make([]lore.GenerationType, 0, len(v))
		for _, g := range v {
			if lg := lore.GenerationType(strings.ToLower(string(g))); !containsGen(gens, lg) {
				gens = append(gens, lg)
			}
		}
		p.GenerationTypes = &gens
	}
	return nil
}

func containsGen(list []lore.GenerationType, g lore.GenerationType) bool {
	for _, x := range list {
		if x == g {
			return true
		}
	}
	return false
}

// positionPatch maps one EntryPositionInput (see positionInput.patch).
func positionPatch(p *lore.EntryPatch, pos *model.EntryPositionInput) error {
	kind := lore.PositionKind(pos.Kind)
	if !kind.Valid() {
		return lore.Reject("position", i18n.NotPositionKind, lore.Params{"value": lore.ClipBytes(string(pos.Kind), 40)})
	}
	if p.Placement != nil && *p.Placement != kind.Placement() {
		return lore.Reject("position", i18n.PositionPlacement, lore.Params{"kind": string(kind), "placement": string(kind.Placement()), "value": string(*p.Placement)})
	}
	p.Position = &kind
	if v, ok := pos.Depth.ValueOK(); ok && v != nil {
		if kind != lore.PositionAtDepth {
			return lore.Reject("position", i18n.DepthOnlyAtDepth, lore.Params{"kind": string(kind)})
		}
		d := *v
		p.Depth = &d
	}
	if v, ok := pos.Role.ValueOK(); ok && v != nil {
		if kind != lore.PositionAtDepth {
			return lore.Reject("position", i18n.RoleOnlyAtDepth, lore.Params{"kind": string(kind)})
		}
		r := lore.Role(strings.ToLower(string(*v)))
		if p.Role != nil && *p.Role != r {
			return lore.Reject("position", i18n.RoleDiffers, lore.Params{"role": string(r), "entryRole": string(*p.Role)})
		}
		p.Role = &r
	}
	v, ok := pos.Outlet.ValueOK()
	switch {
	case ok && v != nil && kind != lore.PositionOutlet:
		return lore.Reject("position", i18n.OutletOnlyOutlet, lore.Params{"kind": string(kind)})
	case kind == lore.PositionOutlet && (v == nil || strings.TrimSpace(*v) == ""):
		return lore.Reject("position", i18n.OutletNameRequired, nil)
	case ok && v != nil:
		o := strings.TrimSpace(*v)
		p.Outlet = &o
	}
	return nil
}

// applyPatchToNew applies p's position fields to a new entry e (the
// placement of a new entry always sets its kind).
func applyPatchToNew(e *lore.Entry, p lore.EntryPatch) {
	if p.Placement != nil {
		e.Placement = *p.Placement
		e.Position = lore.PositionAfterChar
		if e.Placement == lore.Before {
			e.Position = lore.PositionBeforeChar
		}
	}
	if p.Position != nil {
		e.Position, e.Placement = *p.Position, p.Position.Placement()
	}
	if p.Role != nil {
		e.Role = *p.Role
	}
	if p.Depth != nil {
		e.Depth = *p.Depth
	}
	if p.Outlet != nil {
		e.Outlet = *p.Outlet
	}
	e.Match = p.Match.Apply(e.Match)
	e.CharacterFilter = p.CharacterFilter.Apply(e.CharacterFilter)
	if p.GenerationTypes != nil && len(*p.GenerationTypes) > 0 {
		e.GenerationTypes = *p.GenerationTypes
	}
}
