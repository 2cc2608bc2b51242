package dashboard

import (
	"net/http"
	"strings"
)

const (
	qCreateCollection = `mutation($in: CreateCollectionInput!) { createCollection(input: $in) { collection { id } error { code message field } } }`
	qCollEnabled      = `mutation($in: SetCollectionEnabledInput!) { setCollectionEnabled(input: $in) { collection { id } error { code message field } } }`
	qCollChannels     = `mutation($in: SetCollectionChannelsInput!) { setCollectionChannels(input: $in) { collection { id } error { code message field } } }`
	qDeleteCollection = `mutation($in: CollectionRefInput!) { deleteCollection(input: $in) { ok error { code message field } } }`
)

// createCollection makes a new Serverwide collection and opens it.
func (d *Dashboard) createCollection(_ *Dashboard, rq *req) {
	in := map[string]any{"serverDiscordId": rq.sid, "name": strings.TrimSpace(rq.r.PostFormValue("name"))}
	var out struct {
		CreateCollection struct {
			Collection *struct{ ID string }
			Error      *mutationError
		}
	}
	if err := d.api.do(rq.r.Context(), rq.s.Token, qCreateCollection, map[string]any{"in": in}, &out); err != nil {
		d.apiFailed(rq, err)
		return
	}
	if e := out.CreateCollection.Error; e != nil {
		d.renderStatus(rq, "server", rq.srv.Name, http.StatusUnprocessableEntity,
			map[string]any{"Errors": map[string]string{"collection-" + fieldOf(e.Field): e.Message}})
		return
	}
	http.Redirect(rq.w, rq.r, "/dashboard/s/"+rq.sid+"/b/c"+out.CreateCollection.Collection.ID+"/", http.StatusSeeOther)
}

// collectionState enables or disables a collection, sets its channels
// (Discord channel ids, one per line or comma-separated; none = every
// channel), or deletes it (the deletion is recorded in the import history
// and can be undone there). Channel changes carry the collection's
// updatedAt as read, so a change made meanwhile is a conflict.
func (d *Dashboard) collectionState(_ *Dashboard, rq *req) {
	b, ok := d.bookFromURL(rq)
	if !ok {
		return
	}
	if b.Collection == nil {
		d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusNotFound, rq.t.S("This book does not exist on this server."))
		return
	}
	in := map[string]any{"serverDiscordId": rq.sid, "collectionId": b.Collection.ID}
	var e *mutationError
	next := bookURL(rq.sid, b) + "?done=saved"
	switch rq.r.PostFormValue("action") {
	case "enable", "disable":
		in["enabled"] = rq.r.PostFormValue("action") == "enable"
		var out struct {
			SetCollectionEnabled struct{ Error *mutationError }
		}
		if err := d.api.do(rq.r.Context(), rq.s.Token, qCollEnabled, map[string]any{"in": in}, &out); err != nil {
			d.apiFailed(rq, err)
			return
		}
		e = out.SetCollectionEnabled.Error
	case "channels":
		in["channelIds"] = nonNil(lines(strings.ReplaceAll(rq.r.PostFormValue("channelIds"), ",", "\n")))
		if v := rq.r.PostFormValue("updatedAt"); v != "" {
			in["expectedUpdatedAt"] = v
		}
		var out struct {
			SetCollectionChannels struct{ Error *mutationError }
		}
		if err := d.api.do(rq.r.Context(), rq.s.Token, qCollChannels, map[string]any{"in": in}, &out); err != nil {
			d.apiFailed(rq, err)
			return
		}
		e = out.SetCollectionChannels.Error
	case "delete":
		var out struct {
			DeleteCollection struct{ Error *mutationError }
		}
		if err := d.api.do(rq.r.Context(), rq.s.Token, qDeleteCollection, map[string]any{"in": in}, &out); err != nil {
			d.apiFailed(rq, err)
			return
		}
		e = out.DeleteCollection.Error
		next = "/dashboard/s/" + rq.sid + "/?done=deleted"
	default:
		d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusBadRequest, rq.t.S("Unknown action."))
		return
	}
	if e != nil {
		d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusUnprocessableEntity, e.Message)
		return
	}
	http.Redirect(rq.w, rq.r, next, http.StatusSeeOther)
}
