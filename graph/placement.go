package graph

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/turn"
)

// This file converts the request's context sources and generation type
// into the turn's request layer, and the engine's injections, outlets and
// per-book budget into the API's Activation (docs/api.md "Positions").

// contextRequest sets req's speakers (the messages' names), context
// sources and generation type from the API input and returns the bytes of
// context text, which count toward the request's text budget.
func contextRequest(req *turn.Request, msgs []*model.MessageInput, c *model.ActivationContextInput, g *model.GenerationType) int {
	for i, m := range msgs {
		if name := get(m.Name, ""); name != "" {
			if req.Speakers == nil {
				req.Speakers = make([]string, len(msgs))
			}
			req.Speakers[i] = name
		}
	}
	if g != nil {
		req.GenerationType = lore.GenerationType(strings.ToLower(string(*g)))
	}
	if c == nil {
		return 0
	}
	size := 0
	text := func(o graphql.Omittable[*string]) string {
		s := get(o, "")
		size += len(s)
		return s
	}
	if ch, _ := c.Character.ValueOK(); ch != nil {
		tags, _ := ch.Tags.ValueOK()
		for _, t := range tags {
			size += len(t)
		}
		req.Character = &activation.Character{Name: text(ch.Name), Tags: tags, Description: text(ch.Description),
			Personality: text(ch.Personality), Scenario: text(ch.Scenario), CreatorNotes: text(ch.CreatorNotes),
			DepthPrompt: text(ch.DepthPrompt)}
	}
	if p, _ := c.Persona.ValueOK(); p != nil {
		req.Persona = &activation.Persona{Name: text(p.Name), Description: text(p.Description)}
	}
	return size
}

// injectionsToModel returns the API's injections and outlets of res.
func injectionsToModel(res *activation.Result) ([]*model.Injection, []*model.Outlet) {
	ins := make([]*model.Injection, len(res.Injections))
	for i, in := range res.Injections {
		p := positionToModel(lore.Position{Kind: in.Kind, Depth: in.Depth, Role: in.Role, Outlet: in.Outlet})
		ids := make([]string, len(in.EntryIDs))
		for k, id := range in.EntryIDs {
			ids[k] = strconv.FormatInt(id, 10)
		}
		ins[i] = &model.Injection{Kind: p.Kind, Depth: p.Depth, Role: p.Role, Outlet: p.Outlet, Text: in.Text, EntryIds: ids}
	}
	outs := make([]*model.Outlet, len(res.Outlets))
	for i, o := range res.Outlets {
		outs[i] = &model.Outlet{Name: o.Name, Text: o.Text}
	}
	return ins, outs
}

// byBookToModel returns Budget.byBook of res.
func byBookToModel(res *activation.Result) []*model.BookBudget {
	out := make([]*model.BookBudget, len(res.Budget.ByBook))
	for i, b := range res.Budget.ByBook {
		m := &model.BookBudget{Name: b.Collection, Used: b.Used, Entries: b.Entries}
		if b.Limit >= 0 {
			m.Limit = &b.Limit
		}
		if b.Collection != "" {
			if b.CollectionID != 0 {
				id := strconv.FormatInt(b.CollectionID, 10)
				m.CollectionID = &id
			}
		} else {
			l := int64(b.Lineage)
			m.LineageID = &l
		}
		out[i] = m
	}
	return out
}

// namePersonaBooks sets the name of the persona book rows of byBook to the
// display name of their lineage's persona (the one not removed with the
// lowest id first, as for the card character; a removed one when all
// are), for a caller that selected budget.byBook.name. A registry that
// cannot be read leaves the names empty (a runtime read fails to nothing).
func (r *Resolver) namePersonaBooks(ctx context.Context, server string, books []*model.BookBudget) {
	if !slices.ContainsFunc(books, func(b *model.BookBudget) bool { return b.LineageID != nil }) {
		return
	}
	ps, err := r.Store.ListPersonas(ctx, server)
	if err != nil {
		return
	}
	for _, b := range books {
		if b.LineageID == nil {
			continue
		}
		best := -1
		for k, p := range ps {
			if int64(p.Lineage) == *b.LineageID && (best < 0 || ps[best].Removed && !p.Removed) {
				best = k
			}
		}
		if best >= 0 {
			b.Name = ps[best].Name
		}
	}
}
