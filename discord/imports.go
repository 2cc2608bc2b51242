package discord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"loregate/graph"
	"loregate/graph/auth"
	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// importRequest is one attachment import, downloaded and resolved to its
// target.
type importRequest struct {
	// Principal is the member the import runs as.
	Principal *auth.Principal
	// Server is the guild snowflake.
	Server string
	// Lineage is the persona lineage; 0 = Serverwide.
	Lineage int64
	// Collection is the Serverwide collection id to import into; "" creates
	// a new collection named Name (or the name in the file, then the file
	// name).
	Collection string
	Name       string
	// Replace replaces the target book instead of appending.
	Replace bool
	// FileName and Data are the downloaded attachment (at most
	// graph.MaxUploadBytes).
	FileName string
	Data     []byte
}

// Job polling: the first poll comes after pollMin, then the interval
// doubles up to pollMax. The handler's timeout bounds the wait.
const (
	pollMin = 250 * time.Millisecond
	pollMax = 5 * time.Second
)

// errJobPending is returned when the handler's time ran out before the
// import job finished; the job keeps running.
var errJobPending = errors.New("import job still running")

// codeJobCancelled marks an import result's error from a cancelled job. It is
// the adapter's own marker, not a value of the schema's ErrorCode.
const codeJobCancelled model.ErrorCode = "JOB_CANCELLED"

// errJobFailed is returned when the import job was cancelled or discarded.
var errJobFailed = errors.New("import job failed")

// inlineImporter runs importLorebook in-process, uploading the file as a
// GraphQL multipart request. When the API hands a large upload to a
// background job, it follows that job through the job query until it
// finishes, and returns the job's import result.
type inlineImporter struct {
	api *client.Client
	// pollMin is the first polling interval (pollMin when 0).
	pollMin time.Duration
}

func (x inlineImporter) Import(ctx context.Context, req importRequest) (model.ImportPayload, error) {
	input := map[string]any{"serverDiscordId": req.Server, "lineageId": req.Lineage, "mode": model.ImportModeAppend}
	if req.Replace {
		input["mode"] = model.ImportModeReplace
	}
	if req.Collection != "" {
		input["collection"] = req.Collection
	}
	if req.Name != "" {
		input["name"] = req.Name
	}
	// A payload's typed error stays in the payload, for the receipt.
	var out model.ImportPayload
	if _, err := refused(x.api.Upload(ctx, req.Principal, client.OpImportLorebook, input, client.File{Name: req.FileName, Data: req.Data}, &out)); err != nil {
		return model.ImportPayload{}, fmt.Errorf("import lorebook: %w", err)
	}
	if job := out.Job; job != nil && out.Error == nil {
		return x.follow(ctx, req.Principal, job.ID)
	}
	return out, nil
}

// follow polls job id until it completes, fails or ctx ends.
func (x inlineImporter) follow(ctx context.Context, p *auth.Principal, id string) (model.ImportPayload, error) {
	job, err := pollJob(ctx, x.api, p, client.OpJob, id, x.pollMin, func(s model.JobState) bool {
		return s == model.JobStateCompleted || s == model.JobStateCancelled || s == model.JobStateDiscarded
	})
	if err != nil {
		if !errors.Is(err, errJobPending) {
			err = fmt.Errorf("import %w", err)
		}
		return model.ImportPayload{}, err
	}
	switch job.State {
	case model.JobStateCompleted:
		if job.ImportResult == nil {
			return model.ImportPayload{}, fmt.Errorf("import job %s: completed without a result: %w", id, errJobFailed)
		}
		return *job.ImportResult, nil
	case model.JobStateCancelled:
		// A cancelled import stopped on a contract error (invalid file,
		// full scope, stale target, duplicate name): safe to show.
		reason := "the file could not be imported"
		if job.Error != nil {
			reason = *job.Error
		}
		return model.ImportPayload{Error: &model.MutationError{Code: codeJobCancelled, Message: reason}}, nil
	}
	// Discarded: internal failures after every retry, logged by the worker.
	return model.ImportPayload{}, fmt.Errorf("import job %s discarded: %w", id, errJobFailed)
}

// downloadBudget is the initial download budget chosen from the
// attachment's media type and extension (docs/contract.md: JSON uses the
// deployment's lorebook upload limit, maxJSON; PNG and CHARX cards the
// larger card limit). The importer enforces the actual carrier's ceiling.
func downloadBudget(a *discordgo.MessageAttachment, maxJSON int64) int64 {
	ext := strings.ToLower(path.Ext(a.Filename))
	switch {
	case strings.HasPrefix(a.ContentType, "image/"), ext == ".png", ext == ".charx", ext == ".zip", ext == ".scenario", ext == ".story":
		return graph.MaxUploadBytes
	default:
		return jsonDownloadLimit(maxJSON)
	}
}

// jsonDownloadLimit is n, the configured JSON lorebook limit, held to
// lore.CeilingJSONBytes; n <= 0 (not configured) is
// graph.MaxJSONUploadBytes.
func jsonDownloadLimit(n int64) int64 {
	switch {
	case n <= 0:
		return graph.MaxJSONUploadBytes
	case n > lore.CeilingJSONBytes:
		return lore.CeilingJSONBytes
	}
	return n
}

// importCommand handles /memories-import: defer the reply (type 5,
// ephemeral), check permission, download the attachment at once (signed CDN
// URLs expire) within the budget, resolve the target scope, run the import
// and edit the receipt into the reply (or DM it once the token expired).
func (b *Bot) importCommand(ctx context.Context, in *request) error {
	if err := b.respond(ctx, in, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral},
	}); err != nil {
		return err
	}
	// Stop waiting for the import before the handler's deadline, so that
	// there is time left to send the receipt.
	ictx, cancel := context.WithTimeout(ctx, max(b.timeout-receiptTime, b.timeout/2))
	receipt, err := b.runImport(ictx, in)
	cancel()
	if errors.Is(err, errJobPending) {
		receipt, err = in.t.S("The import is still running in the background. Open `/memories` in a few minutes to see the result."), nil
	}
	if err != nil {
		b.log.ErrorContext(ctx, "discord: import failed", "interaction", in.i.ID, "guild", in.guild, "err", redact(err))
		receipt = in.t.S("The import failed and nothing was changed. Try again in a moment.")
	}
	// The receipt goes out even when the handler's context is spent.
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), receiptTime)
	defer rcancel()
	b.deliver(rctx, in, receipt)
	return nil
}

// receiptTime is what sending a receipt may take, reserved at the end of an
// import handler.
const receiptTime = 10 * time.Second

func (b *Bot) runImport(ctx context.Context, in *request) (string, error) {
	if !in.manage {
		return in.notAllowed(), nil
	}
	d := in.i.ApplicationCommandData()
	req := importRequest{Principal: in.p, Server: in.guild}
	var att *discordgo.MessageAttachment
	var book string
	for _, o := range d.Options {
		switch o.Name {
		case "file":
			if id, ok := o.Value.(string); ok && d.Resolved != nil {
				att = d.Resolved.Attachments[id]
			}
		case "book":
			book = strings.TrimSpace(o.StringValue())
		case "name":
			req.Name = strings.TrimSpace(o.StringValue())
		case "persona":
			req.Lineage = o.IntValue()
		case "replace":
			req.Replace = o.BoolValue()
		}
	}
	if att == nil || att.URL == "" {
		return in.t.S("Attach a lorebook file to import."), nil
	}
	// Re-resolve the target scope as it is now.
	rt := route{lineage: req.Lineage}
	p, err := b.load(ctx, in, rt, loadOpts{persona: req.Lineage != 0})
	if err != nil {
		return "", err
	}
	if req.Lineage < 0 || p.stale {
		return in.t.S("Not imported: that persona is not on this server."), nil
	}
	if req.Lineage == 0 && book != "" {
		for _, c := range p.books {
			if strings.EqualFold(c.Name, book) {
				req.Collection = c.ID
				book = c.Name
				break
			}
		}
		if req.Collection == "" {
			return in.t.S("Not imported: there is no Serverwide lorebook named **%s**. Omit `book` to create a new one.", escape(lore.ClipRunes(book, 100))), nil
		}
	}
	if req.Lineage == 0 && req.Collection == "" && req.Replace {
		return in.t.S("Not imported: `replace` needs an existing `book` to replace."), nil
	}
	name, data, msg, err := b.download1(ctx, in, att)
	if err != nil || msg != "" {
		return msg, err
	}
	req.FileName, req.Data = name, data
	res, err := b.runImporter(ctx, in, req)
	switch {
	case forbidden(err):
		return forbiddenText(in.t, err), nil
	case err != nil:
		return "", err
	}
	return importReceipt(in.t, *res, req, book, p) + "\n" + in.t.S("Open `/memories` to see the book."), nil
}

// runImporter runs req through the importer and logs the conversion's
// counts (never file content). The API's refusal of the member is its
// FORBIDDEN error (forbidden, forbiddenText).
func (b *Bot) runImporter(ctx context.Context, in *request, req importRequest) (*model.ImportPayload, error) {
	res, err := b.importer.Import(ctx, req)
	if err != nil {
		return nil, err
	}
	if res.Report != nil {
		b.log.InfoContext(ctx, "discord: import", "guild", in.guild, "format", res.Report.Format, "added", res.Added,
			"skipped", len(res.Report.Skipped), "unsupported_keys", len(res.Report.UnsupportedKeys),
			"ignored_settings", len(res.Report.IgnoredSettings), "collapsed_placements", res.Report.CollapsedPlacements)
	}
	return &res, nil
}

// download1 downloads one attachment within its budget (signed CDN URLs
// expire, so at once). A receipt is returned instead when the file is too
// large.
func (b *Bot) download1(ctx context.Context, in *request, att *discordgo.MessageAttachment) (name string, data []byte, receipt string, err error) {
	budget := downloadBudget(att, b.maxJSON)
	if int64(att.Size) > budget {
		return "", nil, in.t.S("Not imported: %s is %s; this kind of file may be at most %s.", escape(lore.ClipRunes(att.Filename, 80)), sizeText(int64(att.Size)), sizeText(budget)), nil
	}
	data, err = b.fetch(ctx, att.URL, budget)
	if errors.Is(err, errTooLarge) {
		return "", nil, in.t.S("Not imported: the file is larger than %s.", sizeText(budget)), nil
	}
	if err != nil {
		return "", nil, "", err
	}
	return att.Filename, data, "", nil
}

// startWrite acknowledges a button or modal submit (type 6) and loads the
// panel at rt; a stale route, or a member without Manage Server, gets the
// repaint with its receipt instead (done is then true and err is the
// repaint's).
func (b *Bot) startWrite(ctx context.Context, in *request, rt route, o loadOpts) (p *panel, done bool, err error) {
	if err := b.deferUpdate(ctx, in); err != nil {
		return nil, true, err
	}
	if p, err = b.load(ctx, in, rt, o); err != nil {
		return nil, true, err
	}
	if o.view != viewMain && !p.stale {
		p.view = o.view
	}
	switch {
	case p.stale:
		return p, true, b.paint(ctx, in, p)
	case !in.manage:
		p.receipt = append(p.receipt, in.notAllowed())
		return p, true, b.paint(ctx, in, p)
	}
	return p, false, nil
}

// mutateOrRepaint runs a mutation; a refusal or the payload's typed error
// repaints p with its receipt (done true).
func (b *Bot) mutateOrRepaint(ctx context.Context, in *request, p *panel, op client.Op, input map[string]any, out any) (done bool, err error) {
	e, err := b.mutate(ctx, in.p, op, input, out)
	switch {
	case errors.Is(err, client.ErrForbidden):
		p.receipt = append(p.receipt, forbiddenText(in.t, err))
		return true, b.paint(ctx, in, p)
	case err != nil:
		return true, err
	case e != nil:
		p.receipt = append(p.receipt, failure(in.t, e))
		return true, b.paint(ctx, in, p)
	}
	return false, nil
}

// uploadedOrRepaint is uploaded, repainting p with the receipt when there
// is no usable file (done true).
func (b *Bot) uploadedOrRepaint(ctx context.Context, in *request, p *panel) (name string, data []byte, done bool, err error) {
	name, data, msg, err := b.uploaded(ctx, in)
	switch {
	case err != nil:
		return "", nil, true, err
	case msg != "":
		p.receipt = append(p.receipt, msg)
		return "", nil, true, b.paint(ctx, in, p)
	}
	return name, data, false, nil
}

// uploaded returns the file a modal's File Upload carried (its attachment
// from the submit's resolved data), downloaded.
func (b *Bot) uploaded(ctx context.Context, in *request) (name string, data []byte, receipt string, err error) {
	ids := in.modal.Values[fieldFile]
	if len(ids) != 1 || in.modal.Attachments[ids[0]] == nil || in.modal.Attachments[ids[0]].URL == "" {
		return "", nil, in.t.S("Attach one file to import."), nil
	}
	return b.download1(ctx, in, in.modal.Attachments[ids[0]])
}

// submitImport imports the file of the panel's import modal: into a new
// Serverwide book (optional name), or into the selected book or persona
// book, appending unless Replace was chosen. It waits for the import (a
// River job for large files) within the handler's time, then repaints the
// panel with the imported book selected and the receipt (skipped,
// unsupported keys, ignored settings, collapsed placements, split and
// dropped entries).
func (b *Bot) submitImport(ctx context.Context, in *request) error {
	o := loadOpts{persona: in.rt.lineage != 0}
	p, done, err := b.startWrite(ctx, in, in.rt, o)
	if done {
		return err
	}
	switch {
	case p.persona && p.lineage == 0, !p.persona && in.rt.collection != 0 && p.book == nil:
		p.addReceipt("That item changed meanwhile, so nothing was changed.")
		return b.paint(ctx, in, p)
	}
	req := importRequest{Principal: in.p, Server: in.guild, Lineage: p.lineage, Replace: first(in.modal.Values[fieldMode]) == "true"}
	book := ""
	if !p.persona && in.rt.collection != 0 {
		req.Collection, book = p.book.ID, p.book.Name
	} else if !p.persona {
		req.Name, req.Replace = in.fields[fieldName], false
	}
	name, data, done, err := b.uploadedOrRepaint(ctx, in, p)
	if done {
		return err
	}
	req.FileName, req.Data = name, data
	ictx, cancel := context.WithTimeout(ctx, max(b.timeout-receiptTime, b.timeout/2))
	res, err := b.runImporter(ictx, in, req)
	cancel()
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), receiptTime)
	defer rcancel()
	next, receipt := in.rt, ""
	switch {
	case errors.Is(err, errJobPending):
		receipt = in.t.S("The import is still running in the background. Open `/memories` in a few minutes to see the result.")
	case forbidden(err):
		receipt = forbiddenText(in.t, err)
	case err != nil:
		return err
	default:
		receipt = importReceipt(in.t, *res, req, book, p)
		if res.Error == nil && res.Collection != nil {
			// The imported (or created) book is selected.
			next = route{}
			next.collection, _ = strconv.ParseInt(res.Collection.ID, 10, 64)
		}
	}
	next.entry = 0
	np, err := b.load(rctx, in, next, o)
	if err != nil {
		return err
	}
	np.receipt = append([]string{receipt}, np.receipt...)
	return b.paint(rctx, in, np)
}

// submitCard imports a character card as a new persona (an alter) or into
// the selected persona's book, through importPersonaCard (persona and lore
// in one transaction), and shows the persona's book with the receipt.
func (b *Bot) submitCard(ctx context.Context, in *request) error {
	o := loadOpts{persona: true}
	p, done, err := b.startWrite(ctx, in, in.rt, o)
	if done {
		return err
	}
	input := map[string]any{"serverDiscordId": in.guild}
	if n := in.fields[fieldName]; n != "" {
		input["name"] = n
	}
	target := ""
	if first(in.modal.Values[fieldMode]) == valueReplace && p.lineage != 0 {
		for _, g := range p.groups {
			if g.lineage == p.lineage {
				target = g.label()
				input["personaId"] = g.personaID
			}
		}
	}
	name, data, done, err := b.uploadedOrRepaint(ctx, in, p)
	if done {
		return err
	}
	var c model.PersonaCardPayload
	_, err = refused(b.api.Upload(ctx, in.p, client.OpImportPersonaCard, input, client.File{Name: name, Data: data}, &c))
	if errors.Is(err, client.ErrForbidden) {
		p.receipt = append(p.receipt, forbiddenText(in.t, err))
		return b.paint(ctx, in, p)
	}
	if err != nil {
		return err
	}
	if c.Error != nil || c.Persona == nil {
		p.receipt = append(p.receipt, importReceipt(in.t, model.ImportPayload{Error: c.Error}, importRequest{}, "", p))
		return b.paint(ctx, in, p)
	}
	var w strings.Builder
	switch {
	case c.Created:
		w.WriteString(in.t.S("Created the persona **%s** (id %s, lineage %s).", escape(c.Persona.Name), strconv.FormatInt(c.Persona.ID, 10), strconv.FormatInt(c.Persona.LineageID, 10)))
	default:
		w.WriteString(in.t.S("Replaced the book of **%s**.", escape(target)))
	}
	w.WriteByte('\n')
	if c.BookIncluded {
		w.WriteString(importReceipt(in.t, model.ImportPayload{Added: c.Added, Replaced: c.Replaced, Report: c.Report}, importRequest{Lineage: c.Persona.LineageID}, c.Persona.Name, p))
	} else {
		w.WriteString(in.t.S("The card has no Character Book, so no lore was changed."))
	}
	np, err := b.load(ctx, in, route{lineage: c.Persona.LineageID}, o)
	if err != nil {
		return err
	}
	np.receipt = append([]string{w.String()}, np.receipt...)
	return b.paint(ctx, in, np)
}

// errTooLarge marks a download over its budget.
var errTooLarge = errors.New("attachment too large")

// attachmentHosts are the only hosts attachments are downloaded from:
// Discord's CDN (a URL elsewhere in an interaction is never fetched).
var attachmentHosts = map[string]bool{"cdn.discordapp.com": true, "media.discordapp.net": true}

// checkAttachmentURL refuses anything but https on Discord's CDN hosts.
func checkAttachmentURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || !attachmentHosts[u.Hostname()] {
		return errors.New("download: the attachment is not on Discord's CDN")
	}
	return nil
}

// fetch downloads url, refusing more than limit bytes and any host but
// Discord's CDN (redirects included, for the default client).
func (b *Bot) fetch(ctx context.Context, rawURL string, limit int64) ([]byte, error) {
	if err := checkAttachmentURL(rawURL); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	resp, err := b.download.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download: status %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

// importReceipt says what an import did: added, skipped (duplicates plus
// entries the converter could not use), unsupported keywords, ignored
// settings and collapsed placements.
func importReceipt(t tr, res model.ImportPayload, req importRequest, book string, p *panel) string {
	var w strings.Builder
	if res.Error != nil {
		if res.Error.Code == model.ErrorCodeInvalidInput && res.Error.Field != nil && *res.Error.Field == "file" {
			return t.S("Not imported: %s", fieldReasons(t, client.PayloadError(client.OpImportLorebook, res.Error)))
		}
		return failure(t, client.PayloadError(client.OpImportLorebook, res.Error))
	}
	target := t.S("this persona's book")
	switch {
	case res.Collection != nil:
		target = "**" + escape(res.Collection.Name) + "**"
	case book != "":
		target = "**" + escape(book) + "**"
	case req.Lineage != 0:
		for _, g := range p.groups {
			if g.lineage == req.Lineage {
				target = "**" + escape(g.label()) + "**"
			}
		}
	}
	skipped := res.Duplicates
	if res.Report != nil {
		skipped += len(res.Report.Skipped)
	}
	w.WriteString(t.S("Imported into %s: %s added, %d skipped", target, t.N("%d entries", res.Added), skipped))
	if res.Replaced > 0 {
		w.WriteString(t.S(", %d replaced", res.Replaced))
	}
	w.WriteString(".\n")
	if r := res.Report; r != nil {
		if len(r.UnsupportedKeys) > 0 {
			w.WriteString(t.S("Unsupported keywords (%d): %s", len(r.UnsupportedKeys), escape(lore.ClipRunes(strings.Join(r.UnsupportedKeys, "; "), 500))) + "\n")
		}
		if len(r.IgnoredSettings) > 0 {
			parts := make([]string, len(r.IgnoredSettings))
			for i, s := range r.IgnoredSettings {
				parts[i] = fmt.Sprintf("%s ×%d", s.Name, s.Count)
			}
			w.WriteString(t.S("Ignored settings: %s", escape(lore.ClipRunes(strings.Join(parts, ", "), 500))) + "\n")
		}
		if r.CollapsedPlacements > 0 {
			w.WriteString(t.S("Collapsed placements: %d (positions with no kind in loregate, placed at the nearest one)", r.CollapsedPlacements) + "\n")
		}
		if len(r.Split) > 0 {
			parts := make([]string, len(r.Split))
			for i, sp := range r.Split {
				parts[i] = fmt.Sprintf("%s ×%d", orUntitled(t, sp.Title), sp.Parts)
			}
			w.WriteString(t.S("Split into linked parts (longer than the content limit): %s", escape(lore.ClipRunes(strings.Join(parts, ", "), 500))) + "\n")
		}
		if r.Dropped > 0 {
			limit := maxScopeEntries
			if p != nil && p.scopeLimit > 0 {
				limit = p.scopeLimit
			}
			w.WriteString(t.S("Dropped past the %d-entry limit: %d", limit, r.Dropped) + "\n")
		}
	}
	return strings.TrimSpace(w.String())
}

// deliver edits the receipt into the deferred reply while the interaction
// token is valid, and sends it by DM otherwise.
func (b *Bot) deliver(ctx context.Context, in *request, receipt string) {
	receipt = lore.ClipRunes(receipt, maxContentLen)
	if sentAt, terr := discordgo.SnowflakeTimestamp(in.i.ID); terr != nil || b.now().Sub(sentAt) < tokenWindow {
		if b.editText(ctx, in, receipt) == nil {
			return
		}
	}
	if in.p == nil || in.p.UserID == "" {
		return
	}
	ch, err := b.session.UserChannelCreate(in.p.UserID, discordgo.WithContext(ctx))
	if err != nil {
		b.logDiscord(ctx, "open DM for import receipt", err)
		return
	}
	if _, err := b.session.ChannelMessageSend(ch.ID, receipt, discordgo.WithContext(ctx)); err != nil {
		b.logDiscord(ctx, "send import receipt by DM", err)
	}
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
