package discord

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"loregate/graph/auth"
	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// Workspace backups from the panel (docs/discord.md "Backups"): export the
// whole workspace (the All Personas bundle, lore included) as an
// attachment; import by uploading a backup, seeing the per-scope
// replacement preview, and confirming. A failed import keeps the upload, so
// Confirm can be pressed again. One persona's book is exported with Export
// Lorebook in Persona scope.

// maxAttachmentBytes is Discord's default per-file limit for bot uploads.
const maxAttachmentBytes = 10 << 20

func renderBackups(w *builder, p *panel) {
	t := p.t
	w.text("## " + t.S("Backups"))
	if p.view == viewBackupPreview && p.preview != nil {
		renderPreview(w, p)
		return
	}
	w.text(t.S("**Export workspace** saves every Serverwide book (with its channels and state) and every persona's book, removed personas' included, and the server's settings, as one file (All Personas).") + "\n" +
		t.S("**Import backup** shows what each scope gets before anything changes: included books replace their whole scope, absent ones stay as they are.") + "\n" +
		t.S("To export one persona's book, open **Persona**, choose the persona and press **Export Lorebook**.") + "\n" +
		t.S("**Import history** lists recent imports, lorebook deletes and wipes; a manager can undo one from there.") + "\n" +
		t.S("**Deleted entries** lists the entries deleted on this server; a lore writer can restore one from there."))
	if !p.canSettings {
		w.text("-# " + t.S("Only members with the Manage Server permission can export or import backups."))
	}
	w.row(
		discordgo.Button{Label: t.S("Export workspace"), Style: discordgo.PrimaryButton, CustomID: route{action: actBackupExp}.encode(), Disabled: !p.canSettings},
		discordgo.Button{Label: t.S("Import backup"), Style: discordgo.SecondaryButton, CustomID: route{action: actBackupImp}.encode(), Disabled: !p.canSettings},
		historyButton(p),
		deletedButton(p),
	)
}

func renderPreview(w *builder, p *panel) {
	t := p.t
	pv := p.preview
	id, _ := strconv.ParseInt(pv.PreviewID, 10, 64)
	confirm := route{action: actBackupOK, entry: id}.encode()
	if p.previewFailed {
		w.text(t.S("The upload is kept: press **Try again** to import it again, or **Cancel**."))
		w.row(
			discordgo.Button{Label: t.S("Try again"), Style: discordgo.DangerButton, CustomID: confirm},
			discordgo.Button{Label: t.S("Cancel"), Style: discordgo.SecondaryButton, CustomID: route{action: actBackups, page: 1}.encode()}, // distinct from the scope row,
		)
		return
	}
	var s strings.Builder
	s.WriteString("### " + t.S("What this backup does") + "\n")
	for _, sc := range pv.Scopes {
		name := t.S("Serverwide")
		if sc.LineageID != nil {
			name = t.S("Lineage %s", strconv.FormatInt(*sc.LineageID, 10))
			for _, g := range p.groups {
				if g.lineage == *sc.LineageID {
					name = escape(g.label())
				}
			}
		}
		switch {
		case sc.Included:
			s.WriteString("- " + t.S("%s: replaces %s with %d", name, t.N("%d entries", sc.Current), sc.Incoming))
		case sc.Converted > 0:
			s.WriteString("- " + t.S("%s: keeps %s and adds %s", name, t.N("%d entries", sc.Current), t.N("%d converted memories", sc.Converted)))
		default:
			s.WriteString("- " + t.S("%s: not in the backup, kept as it is (%s)", name, t.N("%d entries", sc.Current)))
		}
		s.WriteByte('\n')
	}
	s.WriteString(noPersonaPreview(t, pv.Scopes, p.groups))
	if pv.Memories.Total > 0 {
		s.WriteString(t.S("Older keyword memories: %d of %d convert to entries.", pv.Memories.Converted, pv.Memories.Total) + "\n")
	}
	s.WriteString(settingsPreview(t, pv.ServerSettings))
	s.WriteString(otherChannelsPreview(t, pv.OtherServerChannels))
	w.text(s.String())
	w.row(
		discordgo.Button{Label: t.S("Confirm import"), Style: discordgo.DangerButton, CustomID: confirm},
		discordgo.Button{Label: t.S("Cancel"), Style: discordgo.SecondaryButton, CustomID: route{action: actBackups, page: 1}.encode()}, // distinct from the scope row,
	)
}

// backupExport runs the workspace export job and sends the file as an
// ephemeral follow-up, then repaints the backups view with a receipt.
func (b *Bot) backupExport(ctx context.Context, in *request) error {
	p, done, err := b.startWrite(ctx, in, route{}, loadOpts{view: viewBackups})
	if done {
		return err
	}
	var out model.JobPayload
	if done, err := b.mutateOrRepaint(ctx, in, p, client.OpExportWorkspaceBackup, map[string]any{"serverDiscordId": in.guild}, &out); done {
		return err
	}
	job, err := b.waitJob(ctx, in.p, client.OpJobArtifact, out.Job.ID)
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), receiptTime)
	defer rcancel()
	switch {
	case errors.Is(err, errJobPending):
		p.addReceipt("The export is still running. Press **Export workspace** again in a few minutes.")
		return b.paint(rctx, in, p)
	case err != nil:
		return err
	}
	a := job.Artifact
	if job.State != model.JobStateCompleted || a == nil || a.Content == nil {
		b.log.ErrorContext(ctx, "discord: workspace export failed", "guild", in.guild, "state", job.State)
		p.addReceipt("The export failed. Nothing was changed; try again in a moment.")
		return b.paint(rctx, in, p)
	}
	if a.SizeBytes > maxAttachmentBytes {
		p.addReceipt("The backup is %s, more than Discord lets a bot attach (%s). Download it through the loregate API instead.", sizeText(int64(a.SizeBytes)), sizeText(maxAttachmentBytes))
		return b.paint(rctx, in, p)
	}
	params := &discordgo.WebhookParams{
		Content: in.t.S("Workspace backup (All Personas): every Serverwide book and every persona's book. Import it with **Import backup**."),
		Flags:   discordgo.MessageFlagsEphemeral,
		Files:   []*discordgo.File{{Name: a.FileName, ContentType: "application/json", Reader: strings.NewReader(*a.Content)}},
	}
	if err := b.checkPayload(rctx, params, false); err != nil {
		return err
	}
	_, err = b.session.FollowupMessageCreate(in.i, true, params, discordgo.WithContext(rctx))
	if err != nil {
		b.logDiscord(rctx, "send backup", err)
		return fmt.Errorf("send backup: %w", err)
	}
	p.addReceipt("Exported the workspace as **%s** (%s).", escape(a.FileName), sizeText(int64(a.SizeBytes)))
	return b.paint(rctx, in, p)
}

// submitBackup previews an uploaded backup: the file is stored by the API
// and nothing changes until Confirm.
func (b *Bot) submitBackup(ctx context.Context, in *request) error {
	p, done, err := b.startWrite(ctx, in, route{}, loadOpts{view: viewBackups})
	if done {
		return err
	}
	name, data, done, err := b.uploadedOrRepaint(ctx, in, p)
	if done {
		return err
	}
	var out model.BackupPreviewPayload
	e, err := refused(b.api.Upload(ctx, in.p, client.OpPreviewWorkspaceBackup, map[string]any{"serverDiscordId": in.guild}, client.File{Name: name, Data: data}, &out))
	switch {
	case errors.Is(err, client.ErrForbidden):
		p.receipt = append(p.receipt, forbiddenText(in.t, err))
		return b.paint(ctx, in, p)
	case err != nil:
		return err
	case e != nil:
		p.receipt = append(p.receipt, failure(in.t, e))
		return b.paint(ctx, in, p)
	}
	p.preview, p.previewFailed = out.Preview, false
	p.view = viewBackupPreview
	p.addReceipt("Nothing has changed yet. Check the preview and press **Confirm import**.")
	return b.paint(ctx, in, p)
}

// backupConfirm commits a previewed backup and waits for the job. On
// failure the preview id stays valid and the view offers Try again.
func (b *Bot) backupConfirm(ctx context.Context, in *request) error {
	p, done, err := b.startWrite(ctx, in, route{}, loadOpts{view: viewBackups})
	if done {
		return err
	}
	id := strconv.FormatInt(in.rt.entry, 10)
	var out model.JobPayload
	// An expired or already imported preview is a receipt: upload again.
	if done, err := b.mutateOrRepaint(ctx, in, p, client.OpImportWorkspaceBackup, map[string]any{"serverDiscordId": in.guild, "previewId": id}, &out); done {
		return err
	}
	job, err := b.waitJob(ctx, in.p, client.OpJobReport, out.Job.ID)
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), receiptTime)
	defer rcancel()
	pending := errors.Is(err, errJobPending)
	if err != nil && !pending {
		return err
	}
	if p, err = b.load(rctx, in, route{}, loadOpts{}); err != nil {
		return err
	}
	p.view = viewBackups
	switch {
	case pending:
		p.addReceipt("The import is still running in the background. Open `/memories` in a few minutes to see the result.")
	case job.State == model.JobStateCompleted:
		p.receipt = append(p.receipt, importedReceipt(in.t, job.Report)...)
	default:
		reason := in.t.S("the store could not complete it")
		if job.State == model.JobStateCancelled && job.Error != nil {
			reason = lore.ClipRunes(*job.Error, 300)
		}
		p.addReceipt("The import failed and nothing was changed: %s", reason)
		if job.State == model.JobStateRetryable {
			p.addReceipt("It is tried again automatically in a while.")
		}
		p.view, p.preview, p.previewFailed = viewBackupPreview, &model.BackupPreview{PreviewID: id}, true
	}
	return b.paint(rctx, in, p)
}

// terminalJob reports whether a polled job's state ends the wait: final
// states, and RETRYABLE (an attempt failed; River tries again later, and
// the member is told at once rather than after the handler's time).
func terminalJob(state model.JobState) bool {
	switch state {
	case model.JobStateCompleted, model.JobStateCancelled, model.JobStateDiscarded, model.JobStateRetryable:
		return true
	}
	return false
}

// waitJob polls job id with op (variable $id) until its state ends the
// wait (terminalJob), within the handler's time less what a receipt needs
// (then errJobPending). A job that vanished is errJobFailed.
func (b *Bot) waitJob(ctx context.Context, p *auth.Principal, op client.Op, id string) (*model.Job, error) {
	ctx, cancel := context.WithTimeout(ctx, max(b.timeout-receiptTime, b.timeout/2))
	defer cancel()
	return pollJob(ctx, b.api, p, op, id, b.pollMin, terminalJob)
}

// pollJob polls job id with op (variable $id) until done says its state
// ends the wait: first after first (pollMin when 0), then doubling up to
// pollMax. When ctx ends first it is errJobPending (the job runs on and
// may still succeed); a job that vanished is errJobFailed.
func pollJob(ctx context.Context, api *client.Client, p *auth.Principal, op client.Op, id string, first time.Duration, done func(model.JobState) bool) (*model.Job, error) {
	wait := first
	if wait <= 0 {
		wait = pollMin
	}
	for {
		var out struct {
			Job *model.Job `json:"job"`
		}
		if err := api.Do(ctx, p, op, map[string]any{"id": id}, &out); err != nil {
			if ctx.Err() != nil {
				return nil, errJobPending
			}
			return nil, fmt.Errorf("job %s: %w", id, err)
		}
		if out.Job == nil {
			return nil, fmt.Errorf("job %s: %w", id, errJobFailed)
		}
		if done(out.Job.State) {
			return out.Job, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, errJobPending
		case <-t.C:
		}
		wait = min(wait*2, pollMax)
	}
}

// settingsPreview is the preview's lines about the server's settings:
// replaced by the backup's (without the other server's ids), or not in
// the backup; and whether this server keeps its semantic ranker
// (docs/contract.md#backups).
func settingsPreview(t tr, ss model.BackupSettingsPreview) string {
	var s []string
	otherServer, keepsRanker := skipReasons(ss)
	role, channel := otherServerIDs(ss)
	switch {
	case ss.Included && otherServer && role && !channel:
		s = append(s, t.S("Server settings: replaced by the backup's; its lore editor role belongs to another server and is not applied."))
	case ss.Included && otherServer && channel && !role:
		s = append(s, t.S("Server settings: replaced by the backup's; its suggestion channel belongs to another server and is not applied."))
	case ss.Included && otherServer:
		s = append(s, t.S("Server settings: replaced by the backup's; its lore editor role and suggestion channel belong to another server and are not applied."))
	case ss.Included:
		s = append(s, t.S("Server settings: replaced by the backup's (budget, switches, lore editor role)."))
	default:
		s = append(s, t.S("Server settings: not in the backup, kept as they are."))
	}
	if keepsRanker {
		s = append(s, t.S("Retrieval by meaning: this server's ranker is kept. It never sends lore out, and the backup's would send it to the embeddings provider."))
	}
	return strings.Join(s, "\n") + "\n"
}

// otherChannelsPreview is the preview's line about restored channel lists
// that name the channels of the server a backup came from, onto another
// server (kept as they are: that lore is used in no channel here until a
// manager chooses its channels; docs/contract.md#backups); "" for none.
func otherChannelsPreview(t tr, oc model.BackupOtherChannels) string {
	if oc.Collections+oc.Entries == 0 {
		return ""
	}
	return t.S("Channels: %s and %s keep the channel lists of the server the backup came from. While channel scoping is on, that lore is used in no channel here until you choose its channels.", t.N("%d collections", oc.Collections), t.N("%d persona entries", oc.Entries)) + "\n"
}

// importedReceipt is the receipt of a completed backup import: what it
// did, and, onto another server, how many restored collections and
// persona entries keep the source server's channel lists (the report's
// other_server_channels, which the preview and the dashboard's job page
// show too; docs/contract.md#backups).
func importedReceipt(t tr, report map[string]any) []string {
	out := []string{t.S("Backup imported: the included books replaced their scopes; the others were kept.")}
	if line := otherChannelsPreview(t, reportOtherChannels(report)); line != "" {
		out = append(out, strings.TrimSuffix(line, "\n"))
	}
	return out
}

// reportOtherChannels reads a completed backup import's report: how many
// restored collections and persona entries keep channel lists that name
// the source server's channels (other_server_channels, as the dashboard's
// job page shows it); zero when the report has none.
func reportOtherChannels(report map[string]any) model.BackupOtherChannels {
	var oc model.BackupOtherChannels
	if m, ok := report["other_server_channels"].(map[string]any); ok {
		c, _ := m["collections"].(float64)
		e, _ := m["entries"].(float64)
		oc.Collections, oc.Entries = int(c), int(e)
	}
	return oc
}

// skipReasons reads why a backup import leaves settings as they are: the
// source server's ids onto another server, and this server's semantic
// ranker that keeps lore local (docs/contract.md#backups). Skipped
// settings without reasons are the other server's ids.
func skipReasons(ss model.BackupSettingsPreview) (otherServer, keepsRanker bool) {
	for _, k := range ss.SkippedReasons {
		switch k.Reason {
		case model.BackupSkipReasonKeepsLoreLocal:
			keepsRanker = true
		default:
			otherServer = true
		}
	}
	return otherServer || (len(ss.Skipped) > 0 && len(ss.SkippedReasons) == 0), keepsRanker
}

// otherServerIDs reads which of the source server's ids an import skips
// onto another server: the lore editor role, the suggestion channel. The
// plan names only the ids the backup carries (an empty one has nothing to
// apply); skipped settings without reasons are the other server's ids.
func otherServerIDs(ss model.BackupSettingsPreview) (role, channel bool) {
	names := ss.Skipped
	if len(ss.SkippedReasons) > 0 {
		names = nil
		for _, k := range ss.SkippedReasons {
			if k.Reason != model.BackupSkipReasonKeepsLoreLocal {
				names = append(names, k.Setting)
			}
		}
	}
	for _, n := range names {
		switch n {
		case "loreEditorRoleId":
			role = true
		case "proposalChannelId":
			channel = true
		}
	}
	return role, channel
}

// noPersonaPreview is the preview's line about the persona books a backup
// replaces that no active persona of this server reads: an import
// restores books, not the persona registry, so the panel would not show
// them (docs/contract.md#backups); "" for none.
func noPersonaPreview(t tr, scopes []*model.ScopePreview, groups []lineageGroup) string {
	var names []string
	for _, sc := range scopes {
		if sc.LineageID == nil || !sc.Included || slices.ContainsFunc(groups, func(g lineageGroup) bool { return g.lineage == *sc.LineageID }) {
			continue
		}
		names = append(names, t.S("lineage %d", *sc.LineageID))
	}
	if len(names) == 0 {
		return ""
	}
	return t.S("No persona of this server reads %s: an import restores books, not personas. Register one on that lineage in the loregate dashboard or API to use its book here.", strings.Join(names, ", ")) + "\n"
}
