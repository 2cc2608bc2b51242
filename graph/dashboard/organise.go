package dashboard

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"loregate/graph/client"
	"loregate/graph/model"
)

// Books people organise (docs/workbench.md#categories): a book's
// description and tags, its categories, an entry's category and note.

// bookCategories reads the book's categories for the editor's picker; nil
// when they cannot be read (the picker then offers the entry's current
// category, unnamed, so a save keeps it).
func (d *Dashboard) bookCategories(rq *req, b book) []model.Category {
	op, vars := client.OpPersonaCategories, map[string]any{"s": rq.sid, "l": b.LineageID}
	if b.Collection != nil {
		op, vars = client.OpCollectionCategories, map[string]any{"s": rq.sid, "n": b.Collection.Name}
	}
	var out client.ServerData
	if err := d.api.Do(rq.ctx(), rq.p, op, vars, &out); err != nil || out.Server == nil || out.Server.Book == nil {
		return nil
	}
	return out.Server.Book.Categories
}

// bookRef is the book of an organise mutation's input: a collection id or
// a persona lineage.
func bookRef(in map[string]any, b book) map[string]any {
	if b.Collection != nil {
		in["collectionId"] = b.Collection.ID
	} else {
		in["lineageId"] = b.LineageID
	}
	return in
}

// organise applies the book page's organise forms: the description and
// tags (action info), a new category (add-category), and a category's
// enable, disable or delete buttons.
func (d *Dashboard) organise(rq *req) error {
	b, err := bookFromURL(rq)
	if err != nil {
		return err
	}
	f := rq.r.PostForm
	cat := map[string]any{"serverDiscordId": rq.sid, "categoryId": f.Get("categoryId")}
	var op client.Op
	var in map[string]any
	switch f.Get("action") {
	case "info":
		tags := []string{}
		for _, t := range strings.FieldsFunc(f.Get("tags"), func(r rune) bool { return r == ',' || r == '\n' }) {
			if t = strings.TrimSpace(t); t != "" {
				tags = append(tags, t)
			}
		}
		op, in = client.OpUpdateBookInfo, bookRef(map[string]any{"serverDiscordId": rq.sid,
			"description": strings.ReplaceAll(f.Get("description"), "\r\n", "\n"), "tags": tags}, b)
	case "add-category":
		op, in = client.OpCreateCategory, bookRef(map[string]any{"serverDiscordId": rq.sid, "name": strings.TrimSpace(f.Get("name"))}, b)
	case "enable-category", "disable-category":
		cat["enabled"] = f.Get("action") == "enable-category"
		op, in = client.OpUpdateCategory, cat
	case "delete-category":
		op, in = client.OpDeleteCategory, cat
	default:
		return fail(http.StatusBadRequest, rq.t.S("Unknown action."))
	}
	err = d.api.Mutate(rq.ctx(), rq.p, op, in, nil)
	if ce := (*client.Error)(nil); errors.As(err, &ce) && ce.Payload {
		return fail(http.StatusUnprocessableEntity, rq.t.S("Nothing was changed: %s", apiMessage(rq.t, err)))
	}
	if err != nil {
		return err
	}
	http.Redirect(rq.w, rq.r, bookURL(rq.sid, b)+"?done=saved", http.StatusSeeOther)
	return nil
}

// categoryGroup is one group of the entry list grouped by category.
type categoryGroup struct {
	// Name is the category's ("" for entries without one).
	Name    string
	Enabled bool
	Entries []model.Entry
}

// groupByCategory groups a page's entries by their category, in the
// book's category order, entries without a category last; each group
// keeps the page's order.
func groupByCategory(entries []model.Entry, cats []model.Category) []categoryGroup {
	at := map[string]int{}
	groups := make([]categoryGroup, 0, len(cats)+1)
	for _, c := range cats {
		at[c.ID] = len(groups)
		groups = append(groups, categoryGroup{Name: c.Name, Enabled: c.Enabled})
	}
	none := len(groups)
	groups = append(groups, categoryGroup{Enabled: true})
	for _, e := range entries {
		i, ok := none, false
		if e.CategoryID != nil {
			i, ok = at[*e.CategoryID]
			if !ok {
				i = none
			}
		}
		groups[i].Entries = append(groups[i].Entries, e)
	}
	return slices.DeleteFunc(groups, func(g categoryGroup) bool { return len(g.Entries) == 0 })
}

// tagFilter is the server page's tag filter (?tag=, at most 100
// characters; a longer tag lists none and says so): the books carrying
// the tag, read through Server.collections(tag:) and
// Server.personas(tag:), case-insensitive (docs/workbench.md#categories).
// The zero value lists every book.
type tagFilter struct {
	// Tag is the tag asked for ("" lists every book).
	Tag string
	// Failed is set when the tagged books could not be read, TooLong
	// when the tag has more than 100 characters: the page then lists
	// none and says so.
	Failed, TooLong bool
	collections     map[string]bool
	lineages        map[int64]bool
}

// Shows reports whether the server page lists book b.
func (f tagFilter) Shows(b book) bool {
	switch {
	case f.Tag == "":
		return true
	case b.Collection != nil:
		return f.collections[b.Collection.ID]
	}
	return f.lineages[b.LineageID]
}

// tagFilter reads the books carrying the tag the server page asks for.
func (d *Dashboard) tagFilter(rq *req) tagFilter {
	tag := strings.TrimSpace(rq.r.URL.Query().Get("tag"))
	if tag == "" {
		return tagFilter{}
	}
	f := tagFilter{Tag: tag, collections: map[string]bool{}, lineages: map[int64]bool{}}
	if utf8.RuneCountInString(tag) > 100 {
		f.TooLong = true
		return f
	}
	var out client.ServerData
	if err := d.api.Do(rq.ctx(), rq.p, client.OpServerBooksTagged, map[string]any{"s": rq.sid, "tag": tag}, &out); err != nil || out.Server == nil {
		f.Failed = true
		return f
	}
	for _, e := range out.Server.Collections.Edges {
		f.collections[e.Node.ID] = true
	}
	for _, p := range out.Server.Personas {
		f.lineages[p.LineageID] = true
	}
	return f
}
