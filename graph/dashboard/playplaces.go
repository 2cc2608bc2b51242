package dashboard

import (
	"strconv"
	"strings"

	"loregate/graph/model"
)

// This file builds the playground's injections view and per-book budget
// bar (docs/dashboard.md "Playground"): where each admitted entry goes, as
// assemblePrompt places it, and which book took how much of the budget.

// place is one destination of the injections view: the two lorebook
// blocks (before and after the character), then each injection of the
// activation (a position kind with its depth and role, or its outlet), in
// the API's order.
type place struct {
	// Kind is the position kind (BEFORE_CHAR for the block before the
	// character, AFTER_CHAR for the one after it); Where says the depth
	// and role or the outlet name ("" for the other kinds).
	Kind, Where string
	// Role is the role of a block's message ("" for injections: an
	// AT_DEPTH one says its role in Where, the others take the role of
	// the caller's text they join).
	Role string
	// Note says why the place is not in the assembled prompt ("" when it is).
	Note string
	// Text is what the place adds; Entries its entries in insertion order.
	Text    string
	Entries []entryName
}

// playTexts are the caller's texts of a playground run that decide where
// AN, EM and outlet injections can go.
type playTexts struct{ System, AuthorsNote, Examples string }

// places lists where the admitted entries of a go, for the injections view.
func places(t tr, a *model.Activation, names map[string]entryName, texts playTexts) []place {
	name := func(id string) entryName {
		if n, ok := names[id]; ok {
			return n
		}
		return entryName{ID: id, Title: "#" + id}
	}
	var out []place
	for _, b := range a.Blocks {
		p := place{Kind: "BEFORE_CHAR", Role: b.Role, Text: b.Text}
		if b.Tag == "KNOWLEDGE_LOREBOOK_AFTER" {
			p.Kind = "AFTER_CHAR"
		}
		// The two routes of docs/contract.md#prompt.
		p.Where = t.S("Activated entries, above the four most recent messages")
		if b.Role == "system" {
			p.Where = t.S("Always On entries, before the chat")
		}
		for _, e := range b.Entries {
			p.Entries = append(p.Entries, name(e.ID))
		}
		out = append(out, p)
	}
	for _, in := range a.Injections {
		p := place{Kind: string(in.Kind), Text: in.Text}
		switch in.Kind {
		case model.PositionKindAtDepth:
			depth, role := 0, "system"
			if in.Depth != nil {
				depth = *in.Depth
			}
			if in.Role != nil {
				role = strings.ToLower(string(*in.Role))
			}
			p.Where = t.S("Depth %d from the end of the chat, as %s", depth, valueLabel(t, "roleName", role))
			if depth == 0 {
				p.Where = t.S("After the last message, as %s", valueLabel(t, "roleName", role))
			}
		case model.PositionKindAnTop, model.PositionKindAnBottom:
			if strings.TrimSpace(texts.AuthorsNote) == "" {
				p.Note = t.S("Not placed: no author's note was given.")
			}
		case model.PositionKindEmTop, model.PositionKindEmBottom:
			if strings.TrimSpace(texts.Examples) == "" {
				p.Note = t.S("Not placed: no example messages were given.")
			}
		case model.PositionKindOutlet:
			o := ""
			if in.Outlet != nil {
				o = *in.Outlet
			}
			p.Where = o
			macro := "{{outlet::" + o + "}}"
			if !strings.Contains(texts.System, macro) && !strings.Contains(texts.AuthorsNote, macro) && !strings.Contains(texts.Examples, macro) {
				p.Note = t.S("Not placed: no %s in the system prompt, author's note or example messages.", macro)
			}
		}
		for _, id := range in.EntryIds {
			p.Entries = append(p.Entries, name(id))
		}
		out = append(out, p)
	}
	return out
}

// bookShare is one row of the per-book budget bar.
type bookShare struct {
	// Name is the collection's name or the persona's (a persona without
	// one: its lineage id); URL its book page.
	Name, URL string
	// Used and Entries are what the book's admitted entries took; Limit
	// its own cap (maxBudgetShare of the shared budget), 0 none.
	Used, Entries, Limit int
}

// bookShares lists, for the budget bar, the books of a that admitted an
// entry, in the order they first did, with links to their book pages
// under base ("/dashboard/s/ID/").
func bookShares(a *model.Activation, srv *serverView, base string) []bookShare {
	refs := map[string]string{}
	for _, b := range srv.CollectionBooks() {
		refs[b.Collection.ID] = b.Ref
	}
	out := make([]bookShare, 0, len(a.Budget.ByBook))
	for _, b := range a.Budget.ByBook {
		s := bookShare{Name: b.Name, Used: b.Used, Entries: b.Entries}
		if b.Limit != nil {
			s.Limit = *b.Limit
		}
		switch {
		case b.CollectionID != nil:
			if ref := refs[*b.CollectionID]; ref != "" {
				s.URL = base + "b/" + ref + "/"
			}
		case b.LineageID != nil:
			l := strconv.FormatInt(*b.LineageID, 10)
			s.URL = base + "b/p" + l + "/"
			if s.Name == "" {
				s.Name = "#" + l
			}
		}
		out = append(out, s)
	}
	return out
}
