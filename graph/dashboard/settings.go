package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"loregate/lore"
)

const (
	qServerSettings = `mutation($in: UpdateServerSettingsInput!) { updateServerSettings(input: $in) { server { discordId } error { code message field } } }`
	qCollSettings   = `mutation($in: UpdateCollectionSettingsInput!) { updateCollectionSettings(input: $in) { collection { id } error { code message field } } }`
	qBookSettings   = `mutation($in: UpdatePersonaBookSettingsInput!) { updatePersonaBookSettings(input: $in) { personaBook { lineageId } error { code message field } } }`
)

// serverSettings changes the server's settings (budget unit and limit,
// tokenizer, regex keys, channel scoping, memory tagging).
func (d *Dashboard) serverSettings(_ *Dashboard, rq *req) {
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
		}
		in["budgetLimit"] = n
	} else {
		in["budgetLimit"] = 0
	}
	if len(errs) == 0 {
		var out struct {
			UpdateServerSettings struct{ Error *mutationError }
		}
		if err := d.api.do(rq.r.Context(), rq.s.Token, qServerSettings, map[string]any{"in": in}, &out); err != nil {
			d.apiFailed(rq, err)
			return
		}
		if e := out.UpdateServerSettings.Error; e != nil {
			errs[settingsErrorField(e)] = settingsErrorText(rq.t, e)
		}
	}
	if len(errs) > 0 {
		d.renderStatus(rq, "server", rq.srv.Name, http.StatusUnprocessableEntity, map[string]any{"Errors": errs})
		return
	}
	http.Redirect(rq.w, rq.r, "/dashboard/s/"+rq.sid+"/?done=settings", http.StatusSeeOther)
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
func (d *Dashboard) bookSettings(_ *Dashboard, rq *req) {
	b, ok := d.bookFromURL(rq)
	if !ok {
		return
	}
	f := rq.r.PostForm
	errs := map[string]string{}
	settings := map[string]any{
		"scanDepth":         optInt(rq.t, errs, "scanDepth", f.Get("scanDepth")),
		"budgetLimit":       optInt(rq.t, errs, "budgetLimit", f.Get("budgetLimit")),
		"maxRecursionSteps": optInt(rq.t, errs, "maxRecursionSteps", f.Get("maxRecursionSteps")),
		"recursive":         triState(f.Get("recursive")),
		"caseSensitive":     triState(f.Get("caseSensitive")),
		"wholeWords":        triState(f.Get("wholeWords")),
	}
	if len(errs) == 0 {
		var e *mutationError
		if b.Collection != nil {
			var out struct {
				UpdateCollectionSettings struct{ Error *mutationError }
			}
			in := map[string]any{"serverDiscordId": rq.sid, "collectionId": b.Collection.ID, "settings": settings}
			if v := f.Get("updatedAt"); v != "" {
				in["expectedUpdatedAt"] = v
			}
			if err := d.api.do(rq.r.Context(), rq.s.Token, qCollSettings, map[string]any{"in": in}, &out); err != nil {
				d.apiFailed(rq, err)
				return
			}
			e = out.UpdateCollectionSettings.Error
		} else {
			var out struct {
				UpdatePersonaBookSettings struct{ Error *mutationError }
			}
			in := map[string]any{"serverDiscordId": rq.sid, "lineageId": b.LineageID, "settings": settings}
			if v := f.Get("updatedAt"); v != "" {
				in["expectedUpdatedAt"] = v
			}
			if err := d.api.do(rq.r.Context(), rq.s.Token, qBookSettings, map[string]any{"in": in}, &out); err != nil {
				d.apiFailed(rq, err)
				return
			}
			e = out.UpdatePersonaBookSettings.Error
		}
		if e != nil {
			errs[settingsErrorField(e)] = settingsErrorText(rq.t, e)
		}
	}
	if len(errs) > 0 {
		d.renderBook(rq, b, errs, http.StatusUnprocessableEntity)
		return
	}
	http.Redirect(rq.w, rq.r, bookURL(rq.sid, b)+"?done=settings", http.StatusSeeOther)
}

// settingsErrorField is the form field a settings error belongs to: a
// conflict (STALE_TARGET) belongs to the whole form.
func settingsErrorField(e *mutationError) string {
	if e.Code == "STALE_TARGET" {
		return ""
	}
	return fieldOf(e.Field)
}

// settingsErrorText is the message of a settings error.
func settingsErrorText(t tr, e *mutationError) string {
	if e.Code == "STALE_TARGET" {
		return t.S("Someone else changed these settings after you opened the page, so nothing was saved. Reload the page to see their version.")
	}
	return e.Message
}
