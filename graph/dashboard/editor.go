package dashboard

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// editorView is the entry editor's data.
type editorView struct {
	Book  book
	Entry model.Entry
	New   bool
	// Errors maps a form field (the API's input name) to its message;
	// "" holds a message for no field.
	Errors map[string]string
	// Conflict is set when someone else saved the entry meanwhile.
	Conflict bool
	Limits   limitsView
	// Channels name a persona entry's channels (its picker).
	Channels *channelList
	// Heading is the stored title when a refused form shows another.
	Heading string
	// Categories are the book's (the category picker); nil when they
	// could not be read.
	Categories []model.Category
}

type limitsView struct{ ContentLength, TitleLength, ScanDepthMin, ScanDepthMax int }

// newEntry is the canonical defaults of a new entry (lore.NewEntry).
func newEntry() model.Entry {
	return model.Entry{SelectiveLogic: model.SelectiveLogicAndAny, Enabled: true, Probability: 100, Priority: 100, GroupWeight: 100,
		Placement: model.PlacementAfter, Role: model.RoleSystem, InsertionOrder: 100,
		Position: model.EntryPosition{Kind: model.PositionKindAfterChar}}
}

func (d *Dashboard) editorData(rq *req, b book, e model.Entry, isNew bool) editorView {
	l := rq.srv.Limits
	var chs *channelList
	if b.Collection == nil && rq.srv.CanManage {
		chs = d.loadChannels(rq)
	}
	return editorView{Channels: chs, Book: b, Entry: e, New: isNew, Errors: map[string]string{}, Categories: d.bookCategories(rq, b),
		Limits: limitsView{ContentLength: l.ContentLength, TitleLength: l.TitleLength, ScanDepthMin: l.ScanDepthMin, ScanDepthMax: l.ScanDepthMax}}
}

// findEntry loads the book and the entry of the URL ("new": a new
// entry's defaults, isNew true).
func (d *Dashboard) findEntry(rq *req) (b book, e model.Entry, isNew bool, err error) {
	if b, err = bookFromURL(rq); err != nil {
		return b, e, false, err
	}
	id := rq.r.PathValue("entry")
	if id == "new" {
		return b, newEntry(), true, nil
	}
	got, err := d.bookEntry(rq, b, id)
	if err != nil {
		return b, e, false, err
	}
	if got == nil {
		return b, e, false, fail(http.StatusNotFound, rq.t.S("This entry does not exist in this book (it may have been deleted)."))
	}
	return b, *got, false, nil
}

func (d *Dashboard) entryPage(rq *req) error {
	b, e, isNew, err := d.findEntry(rq)
	if err != nil {
		return err
	}
	title := e.Title
	if isNew {
		title = rq.t.S("New entry")
	}
	d.page(rq, "entry", title, d.editorData(rq, b, e, isNew))
	return nil
}

// lines splits a textarea into trimmed, non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// formLines reads a form field that a picker sends once per checked
// channel, or a textarea sends as lines (commas also separate).
func formLines(f url.Values, name string) []string {
	return lines(strings.ReplaceAll(strings.Join(f[name], "\n"), ",", "\n"))
}

// triState reads a select of "", "true", "false": nil inherits.
func triState(v string) *bool {
	switch v {
	case "true":
		t := true
		return &t
	case "false":
		f := false
		return &f
	}
	return nil
}

// formEntry reads the editor form into an entry and the API input fields.
// Numbers that do not parse are reported per field. The form's updatedAt
// (the version the form was loaded at) is read into e.UpdatedAt; the API
// gets it as sent (entrySave).
func formEntry(t tr, f url.Values, persona bool) (model.Entry, map[string]any, map[string]string) {
	errs := map[string]string{}
	e := model.Entry{
		Title:            strings.TrimSpace(f.Get("title")),
		Content:          strings.ReplaceAll(f.Get("content"), "\r\n", "\n"),
		Keys:             lines(f.Get("keys")),
		SecondaryKeys:    lines(f.Get("secondaryKeys")),
		SelectiveLogic:   model.SelectiveLogic(f.Get("selectiveLogic")),
		Constant:         f.Get("constant") == "on",
		Vectorized:       f.Get("vectorized") == "on",
		Enabled:          f.Get("enabled") == "on",
		Role:             model.Role(f.Get("role")),
		CaseSensitive:    triState(f.Get("caseSensitive")),
		WholeWords:       triState(f.Get("wholeWords")),
		IgnoreBudget:     f.Get("ignoreBudget") == "on",
		Group:            strings.TrimSpace(f.Get("group")),
		Note:             strings.ReplaceAll(f.Get("note"), "\r\n", "\n"),
		GroupOverride:    f.Get("groupOverride") == "on",
		UseGroupScoring:  triState(f.Get("useGroupScoring")),
		ExcludeRecursion: f.Get("excludeRecursion") == "on",
		PreventRecursion: f.Get("preventRecursion") == "on",

		MatchCharacterDescription: f.Get("matchCharacterDescription") == "on",
		MatchCharacterPersonality: f.Get("matchCharacterPersonality") == "on",
		MatchScenario:             f.Get("matchScenario") == "on",
		MatchCreatorNotes:         f.Get("matchCreatorNotes") == "on",
		MatchCharacterDepthPrompt: f.Get("matchCharacterDepthPrompt") == "on",
		MatchPersonaDescription:   f.Get("matchPersonaDescription") == "on",
		CharacterFilter: model.CharacterFilter{Names: nonNil(lines(f.Get("filterNames"))),
			Tags: nonNil(lines(f.Get("filterTags"))), Exclude: f.Get("filterExclude") == "on"},
	}
	if c := f.Get("categoryId"); c != "" {
		e.CategoryID = &c
	}
	for _, g := range f["generationTypes"] {
		e.GenerationTypes = append(e.GenerationTypes, model.GenerationType(g))
	}
	e.UpdatedAt, _ = time.Parse(time.RFC3339Nano, f.Get("updatedAt"))
	num := func(name string, dst *int) {
		s := strings.TrimSpace(f.Get(name))
		n, err := strconv.Atoi(s)
		if err != nil {
			errs[name] = t.S("%q is not a whole number", lore.ClipRunes(s, 20))
			return
		}
		*dst = n
	}
	num("probability", &e.Probability)
	num("insertionOrder", &e.InsertionOrder)
	num("priority", &e.Priority)
	num("groupWeight", &e.GroupWeight)
	num("delayUntilRecursion", &e.DelayUntilRecursion)
	num("sticky", &e.Sticky)
	num("cooldown", &e.Cooldown)
	num("delay", &e.Delay)
	if s := strings.TrimSpace(f.Get("scanDepth")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			errs["scanDepth"] = t.S("%q is not a whole number", lore.ClipRunes(s, 20))
		} else {
			e.ScanDepth = &n
		}
	}
	position := formPosition(t, f, &e, errs)
	in := map[string]any{
		"position":                  position,
		"matchCharacterDescription": e.MatchCharacterDescription, "matchCharacterPersonality": e.MatchCharacterPersonality,
		"matchScenario": e.MatchScenario, "matchCreatorNotes": e.MatchCreatorNotes,
		"matchCharacterDepthPrompt": e.MatchCharacterDepthPrompt, "matchPersonaDescription": e.MatchPersonaDescription,
		"characterFilter": map[string]any{"names": e.CharacterFilter.Names, "tags": e.CharacterFilter.Tags, "exclude": e.CharacterFilter.Exclude},
		"generationTypes": nonNilGen(e.GenerationTypes),
		"title":           e.Title, "content": e.Content, "keys": nonNil(e.Keys), "secondaryKeys": nonNil(e.SecondaryKeys),
		"selectiveLogic": e.SelectiveLogic, "constant": e.Constant, "vectorized": e.Vectorized, "enabled": e.Enabled, "scanDepth": e.ScanDepth,
		"probability": e.Probability, "insertionOrder": e.InsertionOrder, "priority": e.Priority,
		"role": e.Role, "caseSensitive": e.CaseSensitive, "wholeWords": e.WholeWords,
		"ignoreBudget": e.IgnoreBudget, "group": e.Group, "groupOverride": e.GroupOverride, "groupWeight": e.GroupWeight,
		"useGroupScoring": e.UseGroupScoring, "excludeRecursion": e.ExcludeRecursion, "preventRecursion": e.PreventRecursion,
		"delayUntilRecursion": e.DelayUntilRecursion, "sticky": e.Sticky, "cooldown": e.Cooldown, "delay": e.Delay,
		"note": e.Note, "categoryId": e.CategoryID,
	}
	if persona {
		e.ChannelIds = formLines(f, "channelIds")
		in["channelIds"] = nonNil(e.ChannelIds)
	}
	return e, in, errs
}

// formPosition reads the position fields (kind, depth, outlet; the role
// select is the entry's role) into e and the API's EntryPositionInput:
// depth and role only for AT_DEPTH, outlet only for OUTLET (the API keeps
// the stored values of the others). A depth that does not parse is
// reported on its field.
func formPosition(t tr, f url.Values, e *model.Entry, errs map[string]string) map[string]any {
	kind := model.PositionKind(f.Get("positionKind"))
	if kind == "" {
		kind = model.PositionKindAfterChar
	}
	e.Position = model.EntryPosition{Kind: kind}
	e.Placement = model.PlacementBefore
	if kind == model.PositionKindAfterChar {
		e.Placement = model.PlacementAfter
	}
	in := map[string]any{"kind": kind}
	switch kind {
	case model.PositionKindAtDepth:
		role := e.Role
		e.Position.Role, in["role"] = &role, role
		if s := strings.TrimSpace(f.Get("depth")); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				errs["depth"] = t.S("%q is not a whole number", lore.ClipRunes(s, 20))
			} else {
				e.Position.Depth, in["depth"] = &n, n
			}
		}
	case model.PositionKindOutlet:
		o := strings.TrimSpace(f.Get("outlet"))
		e.Position.Outlet, in["outlet"] = &o, o
	}
	return in
}

func nonNilGen(s []model.GenerationType) []model.GenerationType {
	if s == nil {
		return []model.GenerationType{}
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// fieldOf maps an API error field ("keys[2]", "patch.content") to the form
// field it belongs to.
func fieldOf(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, '['); i >= 0 {
		s = s[:i]
	}
	return s
}

// entrySave creates or updates the entry from the editor form. The API's
// typed errors are shown next to their field; an entry someone else saved
// since the form was loaded is not overwritten (conflict message).
func (d *Dashboard) entrySave(rq *req) error {
	b, stored, isNew, err := d.findEntry(rq)
	if err != nil {
		return err
	}
	e, in, errs := formEntry(rq.t, rq.r.PostForm, b.Collection == nil)
	e.ID, e.CreatedAt, e.LastActivatedAt, e.LegacyChannelTags, e.Extensions = stored.ID, stored.CreatedAt, stored.LastActivatedAt, stored.LegacyChannelTags, stored.Extensions
	if b.Collection != nil {
		e.ChannelIds = stored.ChannelIds
	}
	v := d.editorData(rq, b, e, isNew)
	v.Heading = stored.Title
	title := stored.Title
	if isNew {
		title = rq.t.S("New entry")
	}
	if !rq.srv.CanManage {
		v.Errors[""] = rq.t.S("Only members with the Manage Server permission or the server's lore editor role can change lore.")
		d.render(rq, "entry", title, http.StatusForbidden, v)
		return nil
	}
	if len(errs) > 0 {
		v.Errors = errs
		localProblems(rq, errs, editorAnchor)
		d.render(rq, "entry", title, http.StatusUnprocessableEntity, v)
		return nil
	}
	var saved model.EntryPayload
	if isNew {
		vars := map[string]any{"serverDiscordId": rq.sid, "lineageId": b.LineageID, "entry": in}
		if b.Collection != nil {
			vars["collectionId"] = b.Collection.ID
		}
		err = d.api.Mutate(rq.ctx(), rq.p, client.OpCreateEntry, vars, &saved)
	} else {
		// The API refuses the write with STALE_TARGET when the entry
		// changed since the form was loaded (checked under the server
		// lock: of two editors who loaded the same version, one saves).
		vars := map[string]any{"serverDiscordId": rq.sid, "lineageId": b.LineageID, "entryId": stored.ID, "patch": in}
		if at := rq.r.PostForm.Get("updatedAt"); at != "" {
			vars["expectedUpdatedAt"] = at
		}
		err = d.api.Mutate(rq.ctx(), rq.p, client.OpUpdateEntry, vars, &saved)
	}
	switch {
	case client.Is(err, model.ErrorCodeStaleTarget):
		// Keep the member's text; the next save overwrites the version
		// read just now.
		v.Conflict = true
		v.Entry.UpdatedAt = stored.UpdatedAt
		d.render(rq, "entry", title, http.StatusConflict, v)
		return nil
	case err != nil:
		if errs, ok := fieldErrors(rq, err, "", editorAnchor); ok {
			v.Errors = errs
			d.render(rq, "entry", title, http.StatusUnprocessableEntity, v)
			return nil
		}
		return err
	}
	http.Redirect(rq.w, rq.r, bookURL(rq.sid, b)+"e/"+saved.Entry.ID+"?done=saved", http.StatusSeeOther)
	return nil
}

func (d *Dashboard) entryDelete(rq *req) error {
	b, stored, isNew, err := d.findEntry(rq)
	if err != nil {
		return err
	}
	if isNew {
		http.Redirect(rq.w, rq.r, bookURL(rq.sid, b), http.StatusSeeOther)
		return nil
	}
	in := map[string]any{"serverDiscordId": rq.sid, "lineageId": b.LineageID, "entryId": stored.ID}
	if err := d.api.Mutate(rq.ctx(), rq.p, client.OpDeleteEntry, in, nil); err != nil {
		return err
	}
	http.Redirect(rq.w, rq.r, bookURL(rq.sid, b)+"?done=deleted", http.StatusSeeOther)
	return nil
}
