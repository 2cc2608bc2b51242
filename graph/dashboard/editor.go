package dashboard

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"loregate/lore"
)

// editorView is the entry editor's data.
type editorView struct {
	Book  book
	Entry entry
	New   bool
	// Errors maps a form field (the API's input name) to its message;
	// "" holds a message for no field.
	Errors map[string]string
	// Conflict is set when someone else saved the entry meanwhile.
	Conflict bool
	Limits   limitsView
}

type limitsView struct{ ContentLength, TitleLength, ScanDepthMin, ScanDepthMax int }

// newEntry is the canonical defaults of a new entry (lore.NewEntry).
func newEntry() entry {
	return entry{SelectiveLogic: "AND_ANY", Enabled: true, Probability: 100, Priority: 100, GroupWeight: 100,
		Placement: "AFTER", Role: "SYSTEM", InsertionOrder: 100}
}

func (d *Dashboard) editorData(rq *req, b book, e entry, isNew bool) editorView {
	l := rq.srv.Limits
	return editorView{Book: b, Entry: e, New: isNew, Errors: map[string]string{},
		Limits: limitsView{ContentLength: l.ContentLength, TitleLength: l.TitleLength, ScanDepthMin: l.ScanDepthMin, ScanDepthMax: l.ScanDepthMax}}
}

// findEntry loads the book and the entry of the URL; ok false when the
// page was answered.
func (d *Dashboard) findEntry(rq *req) (book, entry, bool, bool) {
	b, ok := d.bookFromURL(rq)
	if !ok {
		return b, entry{}, false, false
	}
	id := rq.r.PathValue("entry")
	if id == "new" {
		return b, newEntry(), true, true
	}
	e, found, err := d.bookEntry(rq.r.Context(), rq.s.Token, rq.sid, b, id)
	if err != nil {
		d.apiFailed(rq, err)
		return b, entry{}, false, false
	}
	if found {
		return b, e, false, true
	}
	d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusNotFound, rq.t.S("This entry does not exist in this book (it may have been deleted)."))
	return b, entry{}, false, false
}

func (d *Dashboard) entryPage(_ *Dashboard, rq *req) {
	b, e, isNew, ok := d.findEntry(rq)
	if !ok {
		return
	}
	title := e.Title
	if isNew {
		title = rq.t.S("New entry")
	}
	rq.page(d, "entry", title, d.editorData(rq, b, e, isNew))
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
// Numbers that do not parse are reported per field.
func formEntry(t tr, f url.Values, persona bool) (entry, map[string]any, map[string]string) {
	errs := map[string]string{}
	e := entry{
		Title:            strings.TrimSpace(f.Get("title")),
		Content:          strings.ReplaceAll(f.Get("content"), "\r\n", "\n"),
		Keys:             lines(f.Get("keys")),
		SecondaryKeys:    lines(f.Get("secondaryKeys")),
		SelectiveLogic:   f.Get("selectiveLogic"),
		Constant:         f.Get("constant") == "on",
		Enabled:          f.Get("enabled") == "on",
		Placement:        f.Get("placement"),
		Role:             f.Get("role"),
		CaseSensitive:    triState(f.Get("caseSensitive")),
		WholeWords:       triState(f.Get("wholeWords")),
		IgnoreBudget:     f.Get("ignoreBudget") == "on",
		Group:            strings.TrimSpace(f.Get("group")),
		GroupOverride:    f.Get("groupOverride") == "on",
		UseGroupScoring:  triState(f.Get("useGroupScoring")),
		ExcludeRecursion: f.Get("excludeRecursion") == "on",
		PreventRecursion: f.Get("preventRecursion") == "on",
		UpdatedAt:        f.Get("updatedAt"),
	}
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
	in := map[string]any{
		"title": e.Title, "content": e.Content, "keys": nonNil(e.Keys), "secondaryKeys": nonNil(e.SecondaryKeys),
		"selectiveLogic": e.SelectiveLogic, "constant": e.Constant, "enabled": e.Enabled, "scanDepth": e.ScanDepth,
		"probability": e.Probability, "insertionOrder": e.InsertionOrder, "priority": e.Priority,
		"placement": e.Placement, "role": e.Role, "caseSensitive": e.CaseSensitive, "wholeWords": e.WholeWords,
		"ignoreBudget": e.IgnoreBudget, "group": e.Group, "groupOverride": e.GroupOverride, "groupWeight": e.GroupWeight,
		"useGroupScoring": e.UseGroupScoring, "excludeRecursion": e.ExcludeRecursion, "preventRecursion": e.PreventRecursion,
		"delayUntilRecursion": e.DelayUntilRecursion, "sticky": e.Sticky, "cooldown": e.Cooldown, "delay": e.Delay,
	}
	if persona {
		e.ChannelIDs = lines(f.Get("channelIds"))
		in["channelIds"] = nonNil(e.ChannelIDs)
	}
	return e, in, errs
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// mutationError is the API's typed mutation failure.
type mutationError struct {
	Code    string
	Message string
	Field   *string
	Limit   *int
}

// fieldOf maps an API error field ("keys[2]", "patch.content") to the form
// field it belongs to.
func fieldOf(f *string) string {
	if f == nil {
		return ""
	}
	s := *f
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, '['); i >= 0 {
		s = s[:i]
	}
	return s
}

const (
	qCreateEntry = `mutation($in: CreateEntryInput!) { createEntry(input: $in) { entry { id updatedAt } error { code message field limit } } }`
	qUpdateEntry = `mutation($in: UpdateEntryInput!) { updateEntry(input: $in) { entry { id updatedAt } error { code message field limit } } }`
	qDeleteEntry = `mutation($in: EntryRefInput!) { deleteEntry(input: $in) { ok error { code message field } } }`
)

// entrySave creates or updates the entry from the editor form. The API's
// typed errors are shown next to their field; an entry someone else saved
// since the form was loaded is not overwritten (conflict message).
func (d *Dashboard) entrySave(_ *Dashboard, rq *req) {
	b, stored, isNew, ok := d.findEntry(rq)
	if !ok {
		return
	}
	e, in, errs := formEntry(rq.t, rq.r.PostForm, b.Collection == nil)
	e.ID, e.CreatedAt, e.LastActivatedAt, e.LegacyChannelTags, e.Extensions = stored.ID, stored.CreatedAt, stored.LastActivatedAt, stored.LegacyChannelTags, stored.Extensions
	if b.Collection != nil {
		e.ChannelIDs = stored.ChannelIDs
	}
	v := d.editorData(rq, b, e, isNew)
	if !rq.srv.CanManage {
		v.Errors[""] = rq.t.S("Only members with the Manage Server permission can change lore.")
		d.renderStatus(rq, "entry", e.Title, http.StatusForbidden, v)
		return
	}
	if len(errs) > 0 {
		v.Errors = errs
		d.renderStatus(rq, "entry", e.Title, http.StatusUnprocessableEntity, v)
		return
	}
	var payload struct {
		Entry *struct{ ID, UpdatedAt string }
		Error *mutationError
	}
	if isNew {
		vars := map[string]any{"serverDiscordId": rq.sid, "lineageId": b.LineageID, "entry": in}
		if b.Collection != nil {
			vars["collectionId"] = b.Collection.ID
		}
		var out struct {
			CreateEntry *struct {
				Entry *struct{ ID, UpdatedAt string }
				Error *mutationError
			}
		}
		if err := d.api.do(rq.r.Context(), rq.s.Token, qCreateEntry, map[string]any{"in": vars}, &out); err != nil {
			d.apiFailed(rq, err)
			return
		}
		payload.Entry, payload.Error = out.CreateEntry.Entry, out.CreateEntry.Error
	} else {
		// The API refuses the write with STALE_TARGET when the entry
		// changed since the form was loaded (checked under the server
		// lock: of two editors who loaded the same version, one saves).
		vars := map[string]any{"serverDiscordId": rq.sid, "lineageId": b.LineageID, "entryId": stored.ID, "patch": in}
		if e.UpdatedAt != "" {
			vars["expectedUpdatedAt"] = e.UpdatedAt
		}
		var out struct {
			UpdateEntry *struct {
				Entry *struct{ ID, UpdatedAt string }
				Error *mutationError
			}
		}
		if err := d.api.do(rq.r.Context(), rq.s.Token, qUpdateEntry, map[string]any{"in": vars}, &out); err != nil {
			d.apiFailed(rq, err)
			return
		}
		payload.Entry, payload.Error = out.UpdateEntry.Entry, out.UpdateEntry.Error
	}
	if payload.Error != nil {
		if payload.Error.Code == "STALE_TARGET" {
			// Keep the member's text; the next save overwrites the version
			// read just now.
			v.Conflict = true
			v.Entry.UpdatedAt = stored.UpdatedAt
			d.renderStatus(rq, "entry", e.Title, http.StatusConflict, v)
			return
		}
		v.Errors[fieldOf(payload.Error.Field)] = payload.Error.Message
		d.renderStatus(rq, "entry", e.Title, http.StatusUnprocessableEntity, v)
		return
	}
	http.Redirect(rq.w, rq.r, bookURL(rq.sid, b)+"e/"+payload.Entry.ID+"?done=saved", http.StatusSeeOther)
}

func (d *Dashboard) entryDelete(_ *Dashboard, rq *req) {
	b, stored, isNew, ok := d.findEntry(rq)
	if !ok {
		return
	}
	if isNew {
		http.Redirect(rq.w, rq.r, bookURL(rq.sid, b), http.StatusSeeOther)
		return
	}
	var out struct {
		DeleteEntry struct {
			OK    bool
			Error *mutationError
		}
	}
	in := map[string]any{"serverDiscordId": rq.sid, "lineageId": b.LineageID, "entryId": stored.ID}
	if err := d.api.do(rq.r.Context(), rq.s.Token, qDeleteEntry, map[string]any{"in": in}, &out); err != nil {
		d.apiFailed(rq, err)
		return
	}
	if out.DeleteEntry.Error != nil {
		d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusUnprocessableEntity, out.DeleteEntry.Error.Message)
		return
	}
	http.Redirect(rq.w, rq.r, bookURL(rq.sid, b)+"?done=deleted", http.StatusSeeOther)
}

// renderStatus renders a member page with an HTTP status other than 200.
func (d *Dashboard) renderStatus(rq *req, name, title string, status int, data any) {
	d.render(rq.w, rq.r, rq.t, rq.lang, rq.s, rq.srv, name, title, status, data, "")
}
