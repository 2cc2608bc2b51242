package dashboard

import (
	"net/http"
	"strings"

	"loregate/graph/client"
	"loregate/graph/model"
)

// createCollection makes a new Serverwide collection and opens it.
func (d *Dashboard) createCollection(rq *req) error {
	in := map[string]any{"serverDiscordId": rq.sid, "name": strings.TrimSpace(rq.r.PostFormValue("name"))}
	var out model.CollectionPayload
	err := d.api.Mutate(rq.ctx(), rq.p, client.OpCreateCollection, in, &out)
	if errs, ok := fieldErrors(rq, err, "collection-", func(string) string { return "collection-name" }); ok {
		d.renderServer(rq, http.StatusUnprocessableEntity, errs)
		return nil
	}
	if err != nil {
		return err
	}
	http.Redirect(rq.w, rq.r, "/dashboard/s/"+rq.sid+"/b/c"+out.Collection.ID+"/", http.StatusSeeOther)
	return nil
}

// collectionState enables or disables a collection, sets its channels
// (Discord channel ids, one per line or comma-separated; none = every
// channel), or deletes it (the deletion is recorded in the import history
// and can be undone there). Channel changes carry the collection's
// updatedAt as read, so a change made meanwhile is a conflict. A payload
// error is the error page with the API's message.
func (d *Dashboard) collectionState(rq *req) error {
	b, err := bookFromURL(rq)
	if err != nil {
		return err
	}
	if b.Collection == nil {
		return fail(http.StatusNotFound, rq.t.S("This book does not exist on this server."))
	}
	in := map[string]any{"serverDiscordId": rq.sid, "collectionId": b.Collection.ID}
	next := bookURL(rq.sid, b) + "?done=saved"
	var op client.Op
	switch rq.r.PostFormValue("action") {
	case "enable", "disable":
		op, in["enabled"] = client.OpSetCollectionEnabled, rq.r.PostFormValue("action") == "enable"
	case "channels":
		op, in["channelIds"] = client.OpSetCollectionChannels, nonNil(formLines(rq.r.PostForm, "channelIds"))
		if v := rq.r.PostFormValue("updatedAt"); v != "" {
			in["expectedUpdatedAt"] = v
		}
	case "delete":
		op, next = client.OpDeleteCollection, "/dashboard/s/"+rq.sid+"/?done=deleted"
	default:
		return fail(http.StatusBadRequest, rq.t.S("Unknown action."))
	}
	if err := d.api.Mutate(rq.ctx(), rq.p, op, in, nil); err != nil {
		if errs, ok := fieldErrors(rq, err, "channels-", func(string) string { return "f-channels" }); ok && op != client.OpDeleteCollection {
			return d.renderBook(rq, b, errs, http.StatusUnprocessableEntity)
		}
		return err
	}
	http.Redirect(rq.w, rq.r, next, http.StatusSeeOther)
	return nil
}
