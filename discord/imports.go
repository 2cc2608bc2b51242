package discord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"loregate/graph"
	"loregate/graph/auth"
)

// ImportRequest is one attachment import, downloaded and resolved to its
// target.
type ImportRequest struct {
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

// ImportResult is what an import did, as the importLorebook payload reports
// it.
type ImportResult struct {
	// Added is the number of entries written; Duplicates were skipped as
	// already present (append); Replaced were removed by a replace.
	Added      int `json:"added"`
	Duplicates int `json:"duplicates"`
	Replaced   int `json:"replaced"`
	// Collection is the Serverwide collection written to.
	Collection *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"collection"`
	// Report is the converter's report: skipped entries, unsupported keys,
	// ignored settings (with counts), collapsed placements.
	Report *struct {
		Format  string `json:"format"`
		Entries int    `json:"entries"`
		Skipped []struct {
			Title  string `json:"title"`
			Reason string `json:"reason"`
		} `json:"skipped"`
		UnsupportedKeys []string `json:"unsupportedKeys"`
		IgnoredSettings []struct {
			Name  string `json:"name"`
			Count int    `json:"count"`
		} `json:"ignoredSettings"`
		CollapsedPlacements int `json:"collapsedPlacements"`
		Dropped             int `json:"dropped"`
	} `json:"report"`
	// Error is the payload's typed error; nothing was written when set.
	Error *mutationError `json:"error"`
}

// Importer runs an import and waits for its result. The default imports
// inline through the importLorebook mutation; a job-backed Importer can
// enqueue it and follow the job.
type Importer interface {
	Import(ctx context.Context, req ImportRequest) (ImportResult, error)
}

const (
	importFields = `added duplicates replaced collection { id name }
	report { format entries skipped { title reason } unsupportedKeys ignoredSettings { name count } collapsedPlacements dropped }
	error { code message field limit }`
	mImport = `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { ` + importFields + ` job { id state } } }`
	qJob    = `query($id: ID!) { job(id: $id) { id state error importResult { ` + importFields + ` } } }`
)

// Job polling: the first poll comes after pollMin, then the interval
// doubles up to pollMax. The handler's timeout bounds the wait.
const (
	pollMin = 250 * time.Millisecond
	pollMax = 5 * time.Second
)

// errJobPending is returned when the handler's time ran out before the
// import job finished; the job keeps running.
var errJobPending = errors.New("import job still running")

// codeJobCancelled marks an ImportResult error from a cancelled job.
const codeJobCancelled = "JOB_CANCELLED"

// errJobFailed is returned when the import job was cancelled or discarded.
var errJobFailed = errors.New("import job failed")

// inlineImporter runs importLorebook in-process, uploading the file as a
// GraphQL multipart request. When the API hands a large upload to a
// background job, it follows that job through the job query until it
// finishes, and returns the job's import result.
type inlineImporter struct {
	api *executor
	// pollMin is the first polling interval (pollMin when 0).
	pollMin time.Duration
}

func (x inlineImporter) Import(ctx context.Context, req ImportRequest) (ImportResult, error) {
	input := map[string]any{"serverDiscordId": req.Server, "lineageId": req.Lineage, "mode": "APPEND"}
	if req.Replace {
		input["mode"] = "REPLACE"
	}
	if req.Collection != "" {
		input["collection"] = req.Collection
	}
	if req.Name != "" {
		input["name"] = req.Name
	}
	var out struct {
		ImportLorebook struct {
			ImportResult
			Job *struct {
				ID string `json:"id"`
			} `json:"job"`
		} `json:"importLorebook"`
	}
	if err := x.api.upload(ctx, req.Principal, mImport, input, req.FileName, req.Data, &out); err != nil {
		return ImportResult{}, fmt.Errorf("import lorebook: %w", err)
	}
	if job := out.ImportLorebook.Job; job != nil && out.ImportLorebook.Error == nil {
		return x.follow(ctx, req.Principal, job.ID)
	}
	return out.ImportLorebook.ImportResult, nil
}

// follow polls job id until it completes, fails or ctx ends.
func (x inlineImporter) follow(ctx context.Context, p *auth.Principal, id string) (ImportResult, error) {
	wait := x.pollMin
	if wait <= 0 {
		wait = pollMin
	}
	for {
		var out struct {
			Job *struct {
				State        string        `json:"state"`
				Error        *string       `json:"error"`
				ImportResult *ImportResult `json:"importResult"`
			} `json:"job"`
		}
		if err := x.api.do(ctx, p, qJob, map[string]any{"id": id}, &out); err != nil {
			if ctx.Err() != nil {
				// Out of time while the job runs on: it may still succeed.
				return ImportResult{}, errJobPending
			}
			return ImportResult{}, fmt.Errorf("import job %s: %w", id, err)
		}
		if out.Job == nil {
			return ImportResult{}, fmt.Errorf("import job %s: %w", id, errJobFailed)
		}
		switch out.Job.State {
		case "COMPLETED":
			if out.Job.ImportResult == nil {
				return ImportResult{}, fmt.Errorf("import job %s: completed without a result: %w", id, errJobFailed)
			}
			return *out.Job.ImportResult, nil
		case "CANCELLED":
			// A cancelled import stopped on a contract error (invalid file,
			// full scope, stale target, duplicate name): safe to show.
			reason := "the file could not be imported"
			if out.Job.Error != nil {
				reason = *out.Job.Error
			}
			return ImportResult{Error: &mutationError{Code: codeJobCancelled, Message: reason}}, nil
		case "DISCARDED":
			// Internal failures after every retry: logged by the worker.
			return ImportResult{}, fmt.Errorf("import job %s discarded: %w", id, errJobFailed)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ImportResult{}, fmt.Errorf("import job %s: %w", id, errJobPending)
		case <-t.C:
		}
		wait = min(wait*2, pollMax)
	}
}

// downloadBudget is the initial download budget chosen from the
// attachment's media type and extension (seed 000: JSON uses the lorebook
// upload ceiling; PNG and CHARX cards the larger card limit). The importer
// enforces the actual carrier's ceiling.
func downloadBudget(a *discordgo.MessageAttachment) int64 {
	ext := strings.ToLower(path.Ext(a.Filename))
	switch {
	case strings.HasPrefix(a.ContentType, "image/"), ext == ".png", ext == ".charx", ext == ".zip", ext == ".scenario", ext == ".story":
		return graph.MaxUploadBytes
	default:
		return graph.MaxJSONUploadBytes
	}
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
		receipt, err = "The import is still running in the background. Open `/memories` in a few minutes to see the result.", nil
	}
	if err != nil {
		b.log.ErrorContext(ctx, "discord: import failed", "interaction", in.i.ID, "guild", in.guild, "err", redact(err))
		receipt = "The import failed and nothing was changed. Try again in a moment."
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
		return "Only members with the Manage Server permission can import lorebooks. Nothing was changed.", nil
	}
	d := in.i.ApplicationCommandData()
	req := ImportRequest{Principal: in.p, Server: in.guild}
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
		return "Attach a lorebook file to import.", nil
	}
	budget := downloadBudget(att)
	if int64(att.Size) > budget {
		return fmt.Sprintf("Not imported: %s is %s; this kind of file may be at most %s.", escape(clip(att.Filename, 80)), sizeText(int64(att.Size)), sizeText(budget)), nil
	}
	// Re-resolve the target scope as it is now.
	rt := route{lineage: req.Lineage}
	p, err := b.load(ctx, in.p, in.guild, rt, loadOpts{persona: req.Lineage != 0})
	if err != nil {
		return "", err
	}
	if req.Lineage < 0 || p.stale {
		return "Not imported: that persona is not on this server.", nil
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
			return fmt.Sprintf("Not imported: there is no Serverwide lorebook named **%s**. Omit `book` to create a new one.", escape(clip(book, 100))), nil
		}
	}
	if req.Lineage == 0 && req.Collection == "" && req.Replace {
		return "Not imported: `replace` needs an existing `book` to replace.", nil
	}
	data, err := b.fetch(ctx, att.URL, budget)
	if errors.Is(err, errTooLarge) {
		return fmt.Sprintf("Not imported: the file is larger than %s.", sizeText(budget)), nil
	}
	if err != nil {
		return "", err
	}
	req.FileName, req.Data = att.Filename, data
	res, err := b.importer.Import(ctx, req)
	switch {
	case errors.Is(err, errForbidden):
		return "Only members with the Manage Server permission can import lorebooks. Nothing was changed.", nil
	case err != nil:
		return "", err
	}
	if res.Report != nil {
		// Counts only: file content never enters logs.
		b.log.InfoContext(ctx, "discord: import", "guild", in.guild, "format", res.Report.Format, "added", res.Added,
			"skipped", len(res.Report.Skipped), "unsupported_keys", len(res.Report.UnsupportedKeys),
			"ignored_settings", len(res.Report.IgnoredSettings), "collapsed_placements", res.Report.CollapsedPlacements)
	}
	return importReceipt(res, req, book, p), nil
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
func importReceipt(res ImportResult, req ImportRequest, book string, p *panel) string {
	var w strings.Builder
	if res.Error != nil {
		w.WriteString(failure(res.Error))
		if res.Error.Code == "INVALID_INPUT" && res.Error.Field != nil && *res.Error.Field == "file" {
			w.Reset()
			w.WriteString("Not imported: " + res.Error.Message)
		}
		return w.String()
	}
	target := "this persona's book"
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
	fmt.Fprintf(&w, "Imported into %s: %s added, %d skipped", target, plural(res.Added, "entry", "entries"), skipped)
	if res.Replaced > 0 {
		fmt.Fprintf(&w, ", %d replaced", res.Replaced)
	}
	w.WriteString(".\n")
	if r := res.Report; r != nil {
		if len(r.UnsupportedKeys) > 0 {
			fmt.Fprintf(&w, "Unsupported keywords (%d): %s\n", len(r.UnsupportedKeys), escape(clip(strings.Join(r.UnsupportedKeys, "; "), 500)))
		}
		if len(r.IgnoredSettings) > 0 {
			parts := make([]string, len(r.IgnoredSettings))
			for i, s := range r.IgnoredSettings {
				parts[i] = fmt.Sprintf("%s ×%d", s.Name, s.Count)
			}
			fmt.Fprintf(&w, "Ignored settings: %s\n", escape(clip(strings.Join(parts, ", "), 500)))
		}
		if r.CollapsedPlacements > 0 {
			fmt.Fprintf(&w, "Collapsed placements: %d (world info positions 2-7 now sit before the persona)\n", r.CollapsedPlacements)
		}
		if r.Dropped > 0 {
			fmt.Fprintf(&w, "Dropped past the 250-entry limit: %d\n", r.Dropped)
		}
	}
	w.WriteString("Open `/memories` to see the book.")
	return w.String()
}

// deliver edits the receipt into the deferred reply while the interaction
// token is valid, and sends it by DM otherwise.
func (b *Bot) deliver(ctx context.Context, in *request, receipt string) {
	receipt = clip(receipt, maxContentLen)
	if sentAt, terr := discordgo.SnowflakeTimestamp(in.i.ID); terr != nil || b.now().Sub(sentAt) < tokenWindow {
		if _, err := b.session.InteractionResponseEdit(in.i, &discordgo.WebhookEdit{Content: &receipt}, discordgo.WithContext(ctx)); err == nil {
			return
		} else {
			b.logDiscord(ctx, "edit import receipt", err)
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
