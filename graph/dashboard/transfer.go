package dashboard

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"loregate/lore"
)

const reportFields = `report { format entries skipped { index title reason } unsupportedKeys ignoredSettings { name count }
	collapsedPlacements inert dropped split { index title characters parts } warnings }`

// conversionReport mirrors ConversionReport.
type conversionReport struct {
	Format  string
	Entries int
	Skipped []struct {
		Index         int
		Title, Reason string
	}
	UnsupportedKeys []string
	IgnoredSettings []struct {
		Name  string
		Count int
	}
	CollapsedPlacements, Inert, Dropped int
	Split                               []struct {
		Index             int
		Title             string
		Characters, Parts int
	}
	Warnings []string
}

// export answers an export: JSON formats as a download of the JSON text,
// card files through the artifact route.
func (d *Dashboard) export(_ *Dashboard, rq *req) {
	b, ok := d.bookFromURL(rq)
	if !ok {
		return
	}
	format := rq.r.URL.Query().Get("format")
	if !slices.Contains(exportFormats, format) {
		d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusBadRequest, rq.t.S("Unknown export format."))
		return
	}
	in := map[string]any{"serverDiscordId": rq.sid, "lineageId": b.LineageID, "format": format}
	if b.Collection != nil {
		in["collectionId"] = b.Collection.ID
	}
	var out struct {
		ExportLorebook struct {
			FileName *string
			JSON     *string
			Download *struct{ ID, URL string }
			Error    *mutationError
		}
	}
	q := `query($in: ExportLorebookInput!) { exportLorebook(input: $in) { fileName json download { id url } error { code message field } } }`
	if err := d.api.do(rq.r.Context(), rq.s.Token, q, map[string]any{"in": in}, &out); err != nil {
		d.apiFailed(rq, err)
		return
	}
	x := out.ExportLorebook
	if x.Error != nil {
		d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusUnprocessableEntity, x.Error.Message)
		return
	}
	if x.Download != nil {
		http.Redirect(rq.w, rq.r, "/dashboard/s/"+rq.sid+"/artifacts/"+x.Download.ID, http.StatusSeeOther)
		return
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
}

// artifact streams a job's or export's file through the API's authorised
// download route.
func (d *Dashboard) artifact(_ *Dashboard, rq *req) {
	id := rq.r.PathValue("id")
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		http.NotFound(rq.w, rq.r)
		return
	}
	if err := d.api.download(rq.r.Context(), rq.s.Token, "/artifacts/"+id, rq.w); err != nil {
		d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusNotFound, rq.t.S("This download does not exist or has expired."))
	}
}

// importView is the import page's data.
type importView struct {
	Collections []book
	Personas    []book
	Target      string
	Mode        string
	Long        string
	Name        string
	Plan        *importPlan
	Result      *importResult
	Error       string
	MaxBytes    int
}

type importPlan struct {
	Report                      conversionReport
	Added, Duplicates, Replaced int
	Mode                        string
	LineageID                   int64
	CollectionName              *string
	NewCollection               bool
	ScopeBefore, ScopeAfter     int
}

type importResult struct {
	Report                      *conversionReport
	Added, Duplicates, Replaced int
	Collection                  *struct{ ID, Name string }
	Job                         *struct{ ID string }
	ImportID                    *string
	Error                       *mutationError
}

func (d *Dashboard) importData(rq *req) importView {
	v := importView{Collections: rq.srv.CollectionBooks(), Personas: rq.srv.PersonaBooks(), Target: "new", Mode: "APPEND", Long: "SPLIT",
		MaxBytes: 16 << 20}
	if t := rq.r.URL.Query().Get("target"); t != "" {
		v.Target = t
	}
	return v
}

func (d *Dashboard) importPage(_ *Dashboard, rq *req) {
	rq.page(d, "import", rq.t.S("Import"), d.importData(rq))
}

// importInput reads the import form: the target (new, c<id>, p<lineage>),
// mode, long-entry policy, name and the file.
func (d *Dashboard) importInput(rq *req, v *importView) (map[string]any, string, []byte, bool) {
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
			return nil, "", nil, false
		}
		if b.Collection != nil {
			in["collection"] = b.Collection.ID
		} else {
			in["lineageId"] = b.LineageID
		}
	default:
		v.Error = rq.t.S("Choose where to import.")
		return nil, "", nil, false
	}
	if f == nil || len(f.File["file"]) == 0 {
		v.Error = rq.t.S("Choose a file to import.")
		return nil, "", nil, false
	}
	fh := f.File["file"][0]
	file, err := fh.Open()
	if err != nil {
		v.Error = rq.t.S("The file could not be read.")
		return nil, "", nil, false
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxUploadForm))
	if err != nil {
		v.Error = rq.t.S("The file could not be read.")
		return nil, "", nil, false
	}
	return in, fh.Filename, data, true
}

// importPreview runs previewImport: what the import would do, nothing
// written. The page's script shows the #preview part of the answer in
// place; without script the whole page is shown.
func (d *Dashboard) importPreview(_ *Dashboard, rq *req) {
	v := d.importData(rq)
	in, name, data, ok := d.importInput(rq, &v)
	if ok {
		var out struct {
			PreviewImport struct {
				Plan  *importPlan
				Error *mutationError
			}
		}
		q := `mutation($input: ImportLorebookInput!) { previewImport(input: $input) { plan { ` + reportFields + ` added duplicates replaced mode lineageId collectionName newCollection scopeBefore scopeAfter } error { code message field limit } } }`
		if err := d.api.upload(rq.r.Context(), rq.s.Token, q, in, name, data, &out); err != nil {
			v.Error = apiMessage(rq.t, err)
		} else if out.PreviewImport.Error != nil {
			v.Error = out.PreviewImport.Error.Message
		} else {
			v.Plan = out.PreviewImport.Plan
		}
	}
	rq.page(d, "import", rq.t.S("Import"), v)
}

// importCommit runs importLorebook; a large upload becomes a job whose
// progress page follows.
func (d *Dashboard) importCommit(_ *Dashboard, rq *req) {
	v := d.importData(rq)
	in, name, data, ok := d.importInput(rq, &v)
	if ok {
		var out struct{ ImportLorebook importResult }
		q := `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { ` + reportFields + ` added duplicates replaced collection { id name } job { id } importId error { code message field limit } } }`
		if err := d.api.upload(rq.r.Context(), rq.s.Token, q, in, name, data, &out); err != nil {
			v.Error = apiMessage(rq.t, err)
		} else if r := out.ImportLorebook; r.Error != nil {
			v.Error = r.Error.Message
		} else if r.Job != nil {
			http.Redirect(rq.w, rq.r, "/dashboard/s/"+rq.sid+"/jobs/"+r.Job.ID, http.StatusSeeOther)
			return
		} else {
			v.Result = &r
		}
	}
	rq.page(d, "import", rq.t.S("Import"), v)
}

// apiMessage is the text of a failed upload.
func apiMessage(t tr, err error) string {
	if ae, ok := err.(*apiError); ok && len(ae.Errors) > 0 {
		return lore.ClipRunes(ae.Errors[0].Message, 300)
	}
	return t.S("The lore service could not answer. Try again in a moment.")
}

// jobView is the job page's data.
type jobView struct {
	ID, Kind, State string
	Progress        float64
	Error           *string
	CreatedAt       string
	FinalizedAt     *string
	ImportResult    *importResult
	Artifact        *struct{ ID, FileName string }
	Done            bool
}

// Percent is the progress in percent.
func (j jobView) Percent() int { return int(j.Progress * 100) }

func (d *Dashboard) jobPage(_ *Dashboard, rq *req) {
	id := rq.r.PathValue("job")
	var out struct{ Job *jobView }
	q := `query($id: ID!) { job(id: $id) { id kind serverDiscordId state progress error createdAt finalizedAt
		importResult { ` + reportFields + ` added duplicates replaced collection { id name } importId } artifact { id fileName } } }`
	if err := d.api.do(rq.r.Context(), rq.s.Token, q, map[string]any{"id": id}, &out); err != nil {
		d.apiFailed(rq, err)
		return
	}
	if out.Job == nil {
		d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusNotFound, rq.t.S("This job does not exist on this server."))
		return
	}
	j := out.Job
	switch j.State {
	case "COMPLETED", "CANCELLED", "DISCARDED":
		j.Done = true
	}
	if rq.r.URL.Query().Get("format") == "json" {
		rq.w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rq.w).Encode(map[string]any{"state": j.State, "progress": j.Progress, "done": j.Done})
		return
	}
	rq.page(d, "job", rq.t.S("Import job"), j)
}

// historyRecord mirrors ImportRecord.
type historyRecord struct {
	ID, Kind, Actor, CreatedAt, SourceName, Mode string
	LineageID                                    int64
	CollectionName                               *string
	Created, Removed                             int
	SnapshotKept                                 bool
	UndoneBy, UndoneAt, UndoOf                   *string
}

func (d *Dashboard) historyPage(_ *Dashboard, rq *req) {
	if !rq.srv.CanManage {
		d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusForbidden, rq.t.S("Only members with the Manage Server permission can see the import history."))
		return
	}
	var out struct {
		ImportHistory struct {
			Edges    []struct{ Node historyRecord }
			PageInfo struct {
				HasNextPage bool
				EndCursor   *string
			}
		}
	}
	vars := map[string]any{"s": rq.sid, "a": nil}
	if a := rq.r.URL.Query().Get("after"); a != "" {
		vars["a"] = a
	}
	q := `query($s: String!, $a: String) { importHistory(serverDiscordId: $s, first: 20, after: $a) { edges { node {
		id kind actor createdAt sourceName mode lineageId collectionName created removed snapshotKept undoneBy undoneAt undoOf } }
		pageInfo { hasNextPage endCursor } } }`
	if err := d.api.do(rq.r.Context(), rq.s.Token, q, vars, &out); err != nil {
		d.apiFailed(rq, err)
		return
	}
	recs := make([]historyRecord, 0, len(out.ImportHistory.Edges))
	for _, e := range out.ImportHistory.Edges {
		recs = append(recs, e.Node)
	}
	next := ""
	if out.ImportHistory.PageInfo.HasNextPage && out.ImportHistory.PageInfo.EndCursor != nil {
		next = "?after=" + *out.ImportHistory.PageInfo.EndCursor
	}
	rq.page(d, "history", rq.t.S("Import history"), map[string]any{"Records": recs, "Next": next})
}

func (d *Dashboard) undo(_ *Dashboard, rq *req) {
	var out struct {
		UndoImport struct {
			Restored, Removed int
			ImportID          *string
			Error             *mutationError
		}
	}
	in := map[string]any{"serverDiscordId": rq.sid, "importId": rq.r.PathValue("id")}
	q := `mutation($in: UndoImportInput!) { undoImport(input: $in) { restored removed importId error { code message field } } }`
	if err := d.api.do(rq.r.Context(), rq.s.Token, q, map[string]any{"in": in}, &out); err != nil {
		d.apiFailed(rq, err)
		return
	}
	if e := out.UndoImport.Error; e != nil {
		d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusUnprocessableEntity, rq.t.S("Not undone, nothing was changed: %s", e.Message))
		return
	}
	http.Redirect(rq.w, rq.r, fmt.Sprintf("/dashboard/s/%s/history?done=undone&restored=%d&removed=%d", rq.sid, out.UndoImport.Restored, out.UndoImport.Removed), http.StatusSeeOther)
}
