package dashboard

import (
	"net/url"
	"slices"
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

// playContext is the playground's optional request context: the
// generation type, the character and persona texts that character filters
// and match flags read (docs/authoring.md "Context sources", "Filters"),
// and the includeNames override.
type playContext struct {
	Gen                                                                 string
	Name, Tags, Description, Personality, Scenario, CreatorNotes, Depth string
	PersonaName, PersonaDescription                                     string
	IncludeNames                                                        bool
}

// generationTypes are the generation types the playground offers, in the
// API's spelling.
var generationTypes = []string{"NORMAL", "CONTINUE", "IMPERSONATE", "SWIPE", "REGENERATE", "QUIET"}

// readPlayContext reads the playground form's context fields.
func readPlayContext(f url.Values) playContext {
	c := playContext{Gen: f.Get("generationType"), Name: strings.TrimSpace(f.Get("ctxName")), Tags: f.Get("ctxTags"),
		Description: f.Get("ctxDescription"), Personality: f.Get("ctxPersonality"), Scenario: f.Get("ctxScenario"),
		CreatorNotes: f.Get("ctxCreatorNotes"), Depth: f.Get("ctxDepthPrompt"),
		PersonaName: strings.TrimSpace(f.Get("ctxPersonaName")), PersonaDescription: f.Get("ctxPersonaDescription"),
		IncludeNames: f.Get("includeNames") != ""}
	if !slices.Contains(generationTypes, c.Gen) {
		c.Gen = "NORMAL"
	}
	return c
}

// texts returns every text of c, for the playground's length bound.
func (c playContext) texts() []string {
	return []string{c.Name, c.Tags, c.Description, c.Personality, c.Scenario, c.CreatorNotes, c.Depth, c.PersonaName, c.PersonaDescription}
}

// apply adds c to the activation input act: the generation type, the
// context (a character or persona only when one of its fields is set, so
// that a persona's imported card still supplies the character otherwise)
// and the includeNames override.
func (c playContext) apply(act map[string]any) {
	act["generationType"] = c.Gen
	ctx := map[string]any{}
	ch := map[string]any{}
	for k, v := range map[string]string{"name": c.Name, "description": c.Description, "personality": c.Personality,
		"scenario": c.Scenario, "creatorNotes": c.CreatorNotes, "depthPrompt": c.Depth} {
		if strings.TrimSpace(v) != "" {
			ch[k] = v
		}
	}
	var tags []string
	for _, t := range strings.FieldsFunc(c.Tags, func(r rune) bool { return r == ',' || r == '\n' }) {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	if len(tags) > 0 {
		ch["tags"] = tags
	}
	if len(ch) > 0 {
		ctx["character"] = ch
	}
	p := map[string]any{}
	if c.PersonaName != "" {
		p["name"] = c.PersonaName
	}
	if strings.TrimSpace(c.PersonaDescription) != "" {
		p["description"] = c.PersonaDescription
	}
	if len(p) > 0 {
		ctx["persona"] = p
	}
	if len(ctx) > 0 {
		act["context"] = ctx
	}
	if c.IncludeNames {
		act["overrides"] = map[string]any{"includeNames": true}
	}
}
