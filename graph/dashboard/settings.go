package dashboard

import (
	"maps"
	"net/http"
	"strconv"
	"strings"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// serverSettings changes the server's settings (budget unit and limit,
// tokenizer, regex keys, channel scoping, memory tagging, include names,
// min activations and its depth max, max entries).
func (d *Dashboard) serverSettings(rq *req) error {
	f := rq.r.PostForm
	in := map[string]any{"serverDiscordId": rq.sid,
		"channelScoping": f.Get("channelScoping") == "on", "memoryTagging": f.Get("memoryTagging") == "on",
		"regexKeys": f.Get("regexKeys") == "on", "budgetUnit": f.Get("budgetUnit"), "tokenizer": f.Get("tokenizer")}
	if v := f.Get("updatedAt"); v != "" {
		in["expectedUpdatedAt"] = v
	}
	errs := map[string]string{}
	if s := strings.TrimSpace(f.Get("budgetLimit")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			errs["budgetLimit"] = rq.t.S("%q is not a whole number", lore.ClipRunes(s, 20))
			localProblems(rq, errs, settingsAnchor("server"))
		}
		in["budgetLimit"] = n
	} else {
		in["budgetLimit"] = 0
	}
	// The selection controls (docs/authoring.md "Selection controls"):
	// blank is 0 (off).
	in["includeNames"] = f.Get("includeNames") == "on"
	sel := map[string]string{}
	for _, k := range []string{"minActivations", "minActivationsDepthMax", "maxEntries"} {
		in[k] = 0
		if n, ok := optInt(rq.t, sel, k, f.Get(k)).(int); ok {
			in[k] = n
		}
	}
	if len(sel) > 0 {
		localProblems(rq, sel, settingsAnchor("server"))
		maps.Copy(errs, sel)
	}
	if len(errs) == 0 {
		if err := settingsError(rq, d.api.Mutate(rq.ctx(), rq.p, client.OpUpdateServerSettings, in, nil), errs, "server"); err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		d.renderServer(rq, http.StatusUnprocessableEntity, errs)
		return nil
	}
	http.Redirect(rq.w, rq.r, "/dashboard/s/"+rq.sid+"/?done=settings", http.StatusSeeOther)
	return nil
}

// optInt reads an optional whole number: blank is null (inherit).
func optInt(t tr, errs map[string]string, name, s string) any {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		errs[name] = t.S("%q is not a whole number", lore.ClipRunes(s, 20))
		return nil
	}
	return n
}

// bookSettings changes a collection's or persona book's settings; blank
// fields inherit the server's.
func (d *Dashboard) bookSettings(rq *req) error {
	b, err := bookFromURL(rq)
	if err != nil {
		return err
	}
	f := rq.r.PostForm
	errs := map[string]string{}
	settings := map[string]any{
		"scanDepth":         optInt(rq.t, errs, "scanDepth", f.Get("scanDepth")),
		"budgetLimit":       optInt(rq.t, errs, "budgetLimit", f.Get("budgetLimit")),
		"maxRecursionSteps": optInt(rq.t, errs, "maxRecursionSteps", f.Get("maxRecursionSteps")),
		"maxBudgetShare":    optInt(rq.t, errs, "maxBudgetShare", f.Get("maxBudgetShare")),
		"recursive":         triState(f.Get("recursive")),
		"caseSensitive":     triState(f.Get("caseSensitive")),
		"wholeWords":        triState(f.Get("wholeWords")),
	}
	if len(errs) > 0 {
		localProblems(rq, errs, settingsAnchor("book"))
	} else {
		op, in := client.OpUpdatePersonaBookSettings, map[string]any{"serverDiscordId": rq.sid, "lineageId": b.LineageID, "settings": settings}
		if b.Collection != nil {
			op, in = client.OpUpdateCollectionSettings, map[string]any{"serverDiscordId": rq.sid, "collectionId": b.Collection.ID, "settings": settings}
		}
		if v := f.Get("updatedAt"); v != "" {
			in["expectedUpdatedAt"] = v
		}
		if err := settingsError(rq, d.api.Mutate(rq.ctx(), rq.p, op, in, nil), errs, "book"); err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		return d.renderBook(rq, b, errs, http.StatusUnprocessableEntity)
	}
	http.Redirect(rq.w, rq.r, bookURL(rq.sid, b)+"?done=settings", http.StatusSeeOther)
	return nil
}

// settingsError puts a settings save's payload error into errs, by the
// form field it belongs to (a conflict, STALE_TARGET, belongs to the whole
// form and gets its own text), and returns any other failure.
func settingsError(rq *req, err error, errs map[string]string, form string) error {
	if client.Is(err, model.ErrorCodeStaleTarget) {
		errs[""] = rq.t.S("Someone else changed these settings after you opened the page, so nothing was saved. Reload the page to see their version.")
		return nil
	}
	got, ok := fieldErrors(rq, err, "", settingsAnchor(form))
	if !ok {
		return err
	}
	maps.Copy(errs, got)
	return nil
}

// settingsAnchor is the id of a settings field's control: the server
// form's ids are the field names, the book form's "b-" + name.
func settingsAnchor(form string) func(string) string {
	if form == "book" {
		return func(f string) string { return "b-" + f }
	}
	return func(f string) string { return f }
}
