package dashboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// export answers an export: JSON formats as a download of the JSON text,
// card files through the artifact route.
func (d *Dashboard) export(rq *req) error {
	b, err := bookFromURL(rq)
	if err != nil {
		return err
	}
	format := rq.r.URL.Query().Get("format")
	if !slices.Contains(exportFormats, format) {
		return fail(http.StatusBadRequest, rq.t.S("Unknown export format."))
	}
	in := map[string]any{"serverDiscordId": rq.sid, "lineageId": b.LineageID, "format": format}
	if b.Collection != nil {
		in["collectionId"] = b.Collection.ID
	}
	var x model.ExportPayload
	if err := d.api.Mutate(rq.ctx(), rq.p, client.OpExportLorebook, in, &x); err != nil {
		return err
	}
	if x.Download != nil {
		http.Redirect(rq.w, rq.r, "/dashboard/s/"+rq.sid+"/artifacts/"+x.Download.ID, http.StatusSeeOther)
		return nil
	}
	name := "lorebook.json"
	if x.FileName != nil && *x.FileName != "" {
		name = *x.FileName
	}
	rq.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	rq.w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	if x.JSON != nil {
		_, _ = io.WriteString(rq.w, *x.JSON)
	}
	return nil
}

// artifact streams a job's or export's file, by the rule of the API's
// download route (managers of its server, until it expires).
func (d *Dashboard) artifact(rq *req) error {
	id := rq.r.PathValue("id")
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		http.NotFound(rq.w, rq.r)
		return nil
	}
	a, err := d.api.Artifact(rq.ctx(), rq.p, id)
	if err != nil {
		if !errors.Is(err, lore.ErrNotFound) {
			d.log.WarnContext(rq.ctx(), "dashboard download failed", "artifact", id, "err", err)
		}
		return fail(http.StatusNotFound, rq.t.S("This download does not exist or has expired."))
	}
	h := rq.w.Header()
	h.Set("Content-Type", a.ContentType)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": a.FileName}))
	h.Set("Content-Length", strconv.FormatInt(a.Size, 10))
	_, _ = rq.w.Write(a.Data)
	return nil
}

// importView is the import page's data.
type importView struct {
	Collections []book
	Personas    []book
	Target      string
	Mode        string
	Long        string
	Name        string
	Plan        *model.ImportPlan
	Result      *model.ImportPayload
	Error       string
	MaxBytes    int
}

func importData(rq *req) importView {
	v := importView{Collections: rq.srv.CollectionBooks(), Personas: rq.srv.PersonaBooks(), Target: "new", Mode: "APPEND", Long: "SPLIT",
		MaxBytes: 16 << 20}
	if t := rq.r.URL.Query().Get("target"); t != "" {
		v.Target = t
	}
	return v
}

func (d *Dashboard) importPage(rq *req) error {
	d.page(rq, "import", rq.t.S("Import"), importData(rq))
	return nil
}

// importInput reads the import form: the target (new, c<id>, p<lineage>),
// mode, long-entry policy, name and the file.
func importInput(rq *req, v *importView) (map[string]any, client.File, bool) {
	f := rq.r.MultipartForm
	get := func(k string) string {
		if f == nil || len(f.Value[k]) == 0 {
			return ""
		}
		return f.Value[k][0]
	}
	v.Target, v.Mode, v.Long, v.Name = get("target"), get("mode"), get("longEntries"), strings.TrimSpace(get("name"))
	in := map[string]any{"serverDiscordId": rq.sid, "lineageId": 0, "mode": v.Mode, "longEntries": v.Long}
	switch {
	case v.Target == "new":
		if v.Name != "" {
			in["name"] = v.Name
		}
	case strings.HasPrefix(v.Target, "c") || strings.HasPrefix(v.Target, "p"):
		b, ok := rq.srv.findBook(v.Target)
		if !ok {
			v.Error = rq.t.S("This book does not exist on this server.")
			return nil, client.File{}, false
		}
		if b.Collection != nil {
			in["collection"] = b.Collection.ID
		} else {
			in["lineageId"] = b.LineageID
		}
	default:
		v.Error = rq.t.S("Choose where to import.")
		return nil, client.File{}, false
	}
	if f == nil || len(f.File["file"]) == 0 {
		v.Error = rq.t.S("Choose a file to import.")
		return nil, client.File{}, false
	}
	fh := f.File["file"][0]
	file, err := fh.Open()
	if err != nil {
		v.Error = rq.t.S("The file could not be read.")
		return nil, client.File{}, false
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxUploadForm))
	if err != nil {
		v.Error = rq.t.S("The file could not be read.")
		return nil, client.File{}, false
	}
	return in, client.File{Name: fh.Filename, Data: data}, true
}

// importPreview runs previewImport: what the import would do, nothing
// written. The page's script shows the #preview part of the answer in
// place; without script the whole page is shown.
func (d *Dashboard) importPreview(rq *req) error {
	v := importData(rq)
	if in, file, ok := importInput(rq, &v); ok {
		var out model.ImportPreviewPayload
		if err := d.api.Upload(rq.ctx(), rq.p, client.OpPreviewImport, in, file, &out); err != nil {
			v.Error = apiMessage(rq.t, err)
		} else {
			v.Plan = out.Plan
		}
	}
	d.page(rq, "import", rq.t.S("Import"), v)
	return nil
}

// importCommit runs importLorebook; a large upload becomes a job whose
// progress page follows.
func (d *Dashboard) importCommit(rq *req) error {
	v := importData(rq)
	if in, file, ok := importInput(rq, &v); ok {
		var out model.ImportPayload
		switch err := d.api.Upload(rq.ctx(), rq.p, client.OpImportLorebook, in, file, &out); {
		case err != nil:
			v.Error = apiMessage(rq.t, err)
		case out.Job != nil:
			http.Redirect(rq.w, rq.r, "/dashboard/s/"+rq.sid+"/jobs/"+out.Job.ID, http.StatusSeeOther)
			return nil
		default:
			v.Result = &out
		}
	}
	d.page(rq, "import", rq.t.S("Import"), v)
	return nil
}

// apiMessage is the text of a failed upload or dry run in the member's
// language: each failure's reason key with its params, naming its field
// (a payload's or a GraphQL error's; the API's message when it gave no
// key), else the generic one.
func apiMessage(t tr, err error) string {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return t.S("The lore service could not answer. Try again in a moment.")
	}
	if !ce.Payload && ce.Reason == "" {
		return lore.ClipRunes(ce.Message, 300)
	}
	var parts []string
	for _, p := range problems(t, ce, nil) {
		// A field without a label of its own (revision, proposal) is named
		// by the reason's text already: no "revision: revision 4 ...".
		if p.Label != "" && p.Label != p.Field && p.Field != "file" {
			parts = append(parts, p.Label+": "+p.Text)
		} else {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "; ")
}

// jobView is the job page's data.
type jobView struct {
	*model.Job
	// Done is set once the job ended (completed, cancelled or discarded).
	Done bool
}

// Percent is the progress in percent.
func (j jobView) Percent() int { return int(j.Progress * 100) }

// BackupImportID is the import history record of a completed workspace
// backup import (its report's import_id), which the page offers to undo;
// "" for every other job.
func (j jobView) BackupImportID() string {
	if j.Kind != "workspace_backup_import" || j.State != model.JobStateCompleted {
		return ""
	}
	if id, ok := j.Report["import_id"].(float64); ok && id > 0 {
		return strconv.FormatInt(int64(id), 10)
	}
	return ""
}

// BackupOtherChannels is what a completed workspace backup import's
// report says of restored channel lists naming the channels of the server
// the backup came from (other_server_channels); zero for every other job.
func (j jobView) BackupOtherChannels() model.BackupOtherChannels {
	var oc model.BackupOtherChannels
	if j.Kind != "workspace_backup_import" || j.State != model.JobStateCompleted {
		return oc
	}
	if m, ok := j.Report["other_server_channels"].(map[string]any); ok {
		c, _ := m["collections"].(float64)
		e, _ := m["entries"].(float64)
		oc.Collections, oc.Entries = int(c), int(e)
	}
	return oc
}

func (d *Dashboard) jobPage(rq *req) error {
	var out struct{ Job *model.Job }
	if err := d.api.Do(rq.ctx(), rq.p, client.OpJob, map[string]any{"id": rq.r.PathValue("job")}, &out); err != nil {
		return err
	}
	if out.Job == nil {
		return fail(http.StatusNotFound, rq.t.S("This job does not exist on this server."))
	}
	j := jobView{Job: out.Job}
	switch j.State {
	case model.JobStateCompleted, model.JobStateCancelled, model.JobStateDiscarded:
		j.Done = true
	}
	if rq.r.URL.Query().Get("format") == "json" {
		rq.w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rq.w).Encode(map[string]any{"state": j.State, "label": jobStateLabel(rq.t, j.State), "progress": j.Progress, "done": j.Done})
		return nil
	}
	d.page(rq, "job", jobKindLabel(rq.t, j.Kind), j)
	return nil
}

// historyPageSize is the records one history page lists.
const historyPageSize = 20

func (d *Dashboard) historyPage(rq *req) error {
	if !rq.srv.CanManage {
		return fail(http.StatusForbidden, rq.t.S("Only members with the Manage Server permission can see the import history."))
	}
	vars := map[string]any{"s": rq.sid, "first": historyPageSize, "after": nil}
	if a := rq.r.URL.Query().Get("after"); a != "" {
		vars["after"] = a
	}
	var out struct{ ImportHistory model.ImportHistoryConnection }
	if err := d.api.Do(rq.ctx(), rq.p, client.OpImportHistory, vars, &out); err != nil {
		return err
	}
	recs := make([]model.ImportRecord, 0, len(out.ImportHistory.Edges))
	for _, e := range out.ImportHistory.Edges {
		recs = append(recs, e.Node)
	}
	next := ""
	if pi := out.ImportHistory.PageInfo; pi.HasNextPage && pi.EndCursor != nil {
		next = "?after=" + *pi.EndCursor
	}
	d.page(rq, "history", rq.t.S("Import history"), map[string]any{"Records": recs, "Next": next})
	return nil
}

func (d *Dashboard) undo(rq *req) error {
	var out model.UndoImportPayload
	in := map[string]any{"serverDiscordId": rq.sid, "importId": rq.r.PathValue("id")}
	err := d.api.Mutate(rq.ctx(), rq.p, client.OpUndoImport, in, &out)
	if ce := (*client.Error)(nil); errors.As(err, &ce) && ce.Payload {
		return fail(http.StatusUnprocessableEntity, rq.t.S("Not undone, nothing was changed: %s", apiMessage(rq.t, err)))
	}
	if err != nil {
		return err
	}
	http.Redirect(rq.w, rq.r, fmt.Sprintf("/dashboard/s/%s/history?done=undone&restored=%d&removed=%d", rq.sid, out.Restored, out.Removed), http.StatusSeeOther)
	return nil
}
