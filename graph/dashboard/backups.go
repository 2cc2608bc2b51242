package dashboard

import (
	"io"
	"net/http"
	"strings"

	"loregate/graph/client"
	"loregate/graph/model"
)

// backupView is the backups page's data: a previewed upload (what its
// import would replace, convert and keep) until it is imported.
type backupView struct {
	Preview *model.BackupPreview
	Books   map[int64]string
	Error   string
	// OtherServer: the import leaves the source server's Discord ids;
	// KeepsRanker: this server keeps its semantic ranker, which never
	// sends lore out (docs/contract.md#backups).
	OtherServer, KeepsRanker bool
	// OtherRole, OtherChannel: which of the source server's ids the import
	// skips (only those the backup carries); neither with OtherServer is
	// an older preview without names, said as both.
	OtherRole, OtherChannel bool
	// NoPersona names the persona books the backup replaces that no
	// persona of this server reads ("" for none): an import restores
	// books, not the persona registry (docs/contract.md#backups).
	NoPersona string
}

// markOtherID notes which source server's id setting names.
func (v *backupView) markOtherID(setting string) {
	switch setting {
	case "loreEditorRoleId":
		v.OtherRole = true
	case "proposalChannelId":
		v.OtherChannel = true
	}
}

func backupData(rq *req) backupView {
	return backupView{Books: rq.srv.PersonaBookNames()}
}

// backupsPage is the workspace backups page (managers): export the whole
// workspace (a job whose page offers the download), upload a backup for a
// preview, then import it (a job; the import history can undo it).
func (d *Dashboard) backupsPage(rq *req) error {
	if !rq.srv.Manages { // a lore editor writes lore, not backups
		return fail(http.StatusForbidden, rq.t.S("Only members with the Manage Server permission can make or restore backups."))
	}
	d.page(rq, "backups", rq.t.S("Backups"), backupData(rq))
	return nil
}

// backupAction runs one step of the backups page: export, preview (an
// upload) or import (a preview's id).
func (d *Dashboard) backupAction(rq *req) error {
	if !rq.srv.Manages { // a lore editor writes lore, not backups
		return fail(http.StatusForbidden, rq.t.S("Only members with the Manage Server permission can make or restore backups."))
	}
	v := backupData(rq)
	action := rq.r.PostFormValue("action")
	if rq.r.MultipartForm != nil && len(rq.r.MultipartForm.Value["action"]) > 0 {
		action = rq.r.MultipartForm.Value["action"][0]
	}
	var jp model.JobPayload
	var err error
	switch action {
	case "export":
		err = d.api.Mutate(rq.ctx(), rq.p, client.OpExportWorkspaceBackup, map[string]any{"serverDiscordId": rq.sid}, &jp)
	case "import":
		in := map[string]any{"serverDiscordId": rq.sid, "previewId": rq.r.PostFormValue("previewId")}
		err = d.api.Mutate(rq.ctx(), rq.p, client.OpImportWorkspaceBackup, in, &jp)
	case "preview":
		return d.backupPreview(rq, v)
	default:
		return fail(http.StatusBadRequest, rq.t.S("Unknown action."))
	}
	if err != nil {
		v.Error = apiMessage(rq.t, err)
		d.render(rq, "backups", rq.t.S("Backups"), http.StatusUnprocessableEntity, v)
		return nil
	}
	http.Redirect(rq.w, rq.r, "/dashboard/s/"+rq.sid+"/jobs/"+jp.Job.ID, http.StatusSeeOther)
	return nil
}

// backupPreview uploads a backup and shows what importing it would do;
// nothing is written to lore.
func (d *Dashboard) backupPreview(rq *req, v backupView) error {
	f := rq.r.MultipartForm
	if f == nil || len(f.File["file"]) == 0 {
		v.Error = rq.t.S("Choose a file to import.")
		d.render(rq, "backups", rq.t.S("Backups"), http.StatusUnprocessableEntity, v)
		return nil
	}
	fh := f.File["file"][0]
	file, err := fh.Open()
	if err != nil {
		v.Error = rq.t.S("The file could not be read.")
		d.render(rq, "backups", rq.t.S("Backups"), http.StatusUnprocessableEntity, v)
		return nil
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxUploadForm))
	if err != nil {
		v.Error = rq.t.S("The file could not be read.")
		d.render(rq, "backups", rq.t.S("Backups"), http.StatusUnprocessableEntity, v)
		return nil
	}
	var out model.BackupPreviewPayload
	err = d.api.Upload(rq.ctx(), rq.p, client.OpPreviewWorkspaceBackup, map[string]any{"serverDiscordId": rq.sid}, client.File{Name: fh.Filename, Data: data}, &out)
	if err != nil {
		v.Error = apiMessage(rq.t, err)
		d.render(rq, "backups", rq.t.S("Backups"), http.StatusUnprocessableEntity, v)
		return nil
	}
	v.Preview = out.Preview
	if out.Preview != nil {
		ss := out.Preview.ServerSettings
		for _, k := range ss.SkippedReasons {
			if k.Reason == model.BackupSkipReasonKeepsLoreLocal {
				v.KeepsRanker = true
			} else {
				v.OtherServer = true
				v.markOtherID(k.Setting)
			}
		}
		if len(ss.Skipped) > 0 && len(ss.SkippedReasons) == 0 {
			v.OtherServer = true
			for _, s := range ss.Skipped {
				v.markOtherID(s)
			}
		}
		v.NoPersona = booksWithoutPersona(rq, out.Preview.Scopes)
	}
	d.page(rq, "backups", rq.t.S("Backups"), v)
	return nil
}

// booksWithoutPersona names the persona books a backup preview replaces
// that no persona of the server reads (removed ones count as readers),
// joined with ", "; "" when every one has a persona.
func booksWithoutPersona(rq *req, scopes []*model.ScopePreview) string {
	read := map[int64]bool{}
	for _, p := range rq.srv.Personas {
		read[p.LineageID] = true
	}
	var names []string
	for _, sc := range scopes {
		if sc.LineageID != nil && sc.Included && !read[*sc.LineageID] {
			names = append(names, rq.t.S("the book of lineage %d", *sc.LineageID))
		}
	}
	return strings.Join(names, ", ")
}
