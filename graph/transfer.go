package graph

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/i18n"
	"loregate/lore/transfer"
)

// importRequest authorises an importLorebook input (also previewImport's),
// resolves the target as it is now and reads the upload, refusing a file
// over its carrier's limit at once. The store re-checks the target
// collection by id and name under its lock (a book renamed or removed
// meanwhile is STALE_TARGET, never recreated).
func (r *Resolver) importRequest(ctx context.Context, in *model.ImportLorebookInput) (transfer.Request, error) {
	server, lineage := in.ServerDiscordID, lore.Lineage(in.LineageID)
	if err := r.authorizeWrite(ctx, server, lineage); err != nil {
		return transfer.Request{}, err
	}
	req := transfer.Request{Target: lore.ImportTarget{Server: server, Lineage: lineage, NewName: get(in.Name, "")},
		FileName: in.File.Filename, Actor: actor(ctx), LongEntries: r.importOptions(in.LongEntries).LongEntries}
	if get(in.Mode, model.ImportModeAppend) == model.ImportModeReplace {
		req.Target.Mode = lore.Replace
	}
	// Resolve the target collection before the (slow) read and conversion.
	if cid, ok := in.Collection.ValueOK(); ok && cid != nil {
		if !lineage.IsServerwide() {
			return req, lore.Reject("collection", i18n.PersonaBookNoCollection, nil)
		}
		id, err := parseID("collection", *cid)
		if err != nil {
			return req, err
		}
		c, err := r.Store.GetCollection(ctx, server, id)
		if err != nil {
			return req, err
		}
		req.Target.CollectionID, req.Target.Collection = c.ID, c.Name
	}
	data, err := readUpload(in.File)
	if err != nil {
		return req, err
	}
	req.Data = data
	// A file over its carrier's limit (JSON: the deployment's limit, 2 MB
	// by default) is refused now rather than by a job later.
	return req, transfer.CheckSize(data, r.importOptions(in.LongEntries))
}

// readUpload reads an upload of at most MaxUploadBytes (ErrInvalid, field
// "file", past it). A failed read is not the caller's fault: it is
// returned as is (an internal error).
func readUpload(u graphql.Upload) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(u.File, MaxUploadBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read upload: %w", err)
	}
	if len(data) > MaxUploadBytes {
		return nil, lore.Reject("file", i18n.FileTooLarge, lore.Params{"max": MaxUploadBytes})
	}
	return data, nil
}

// importLorebook runs the importLorebook mutation (docs/contract.md
// "Imports"): a small file is converted, written and recorded inline
// (lore/transfer); a large one is queued for a job.
func (r *Resolver) importLorebook(ctx context.Context, in *model.ImportLorebookInput) (*model.ImportPayload, error) {
	fail := func(err error, report *model.ConversionReport) (*model.ImportPayload, error) {
		p, err := failure[model.ImportPayload](err)
		p.Report = report
		return p, err
	}
	wait, err := waitSeconds(in.WaitSeconds)
	if err != nil {
		return fail(err, nil)
	}
	req, err := r.importRequest(ctx, in)
	if err != nil {
		return fail(err, nil)
	}
	if r.Jobs != nil && len(req.Data) > r.Jobs.inlineLimit() {
		// Large upload: store it and let a job convert and write it; the
		// blob and the job commit together (one transaction).
		job, err := r.enqueueImport(ctx, req)
		if err != nil {
			return fail(err, nil)
		}
		return r.awaitImport(ctx, job, req.Target.Server, wait)
	}
	res, err := transfer.Import(ctx, r.Store, req)
	if err != nil {
		return fail(err, failedReport(&res.Conversion))
	}
	r.Logger.InfoContext(ctx, "lorebook imported", "request_id", RequestID(ctx), "import_id", res.ImportID,
		"format", res.Conversion.Format, "added", res.Added, "duplicates", res.Duplicates, "replaced", res.Replaced,
		"skipped", len(res.Conversion.Skipped), "unsupported_keys", len(res.Conversion.UnsupportedKeys),
		"ignored_settings", len(res.Conversion.IgnoredSettings), "collapsed_placements", res.Conversion.CollapsedPlacements)
	return importPayload(res), nil
}

// importPayload is the importLorebook payload of a result.
func importPayload(res transfer.Result) *model.ImportPayload {
	out := &model.ImportPayload{Report: reportToModel(&res.Conversion), Added: res.Added, Duplicates: res.Duplicates, Replaced: res.Replaced}
	if res.ImportID != 0 {
		id := strconv.FormatInt(res.ImportID, 10)
		out.ImportID = &id
	}
	if res.Collection != nil {
		m := collectionToModel(*res.Collection)
		out.Collection = &m
	}
	return out
}

// failedReport is the report of a failed import: what the conversion found
// when the file was converted (the write was refused), nil when no format
// was recognised (the payload's error says why; an empty report would
// claim a conversion that did not happen).
func failedReport(r *format.Report) *model.ConversionReport {
	if r.Format == "" {
		return nil
	}
	return reportToModel(r)
}

// reportToModel is format.Summarize in the model's types (the CLI prints
// the same summary as JSON).
func reportToModel(r *format.Report) *model.ConversionReport {
	sum := format.Summarize(r)
	m := &model.ConversionReport{
		Format:              sum.Format,
		Entries:             sum.Entries,
		Skipped:             make([]*model.SkippedEntry, len(sum.Skipped)),
		UnsupportedKeys:     sum.UnsupportedKeys,
		IgnoredSettings:     make([]*model.SettingCount, len(sum.IgnoredSettings)),
		CollapsedPlacements: sum.CollapsedPlacements,
		Inert:               sum.Inert,
		InertEntries:        make([]*model.InertEntry, len(sum.InertEntries)),
		Dropped:             sum.Dropped,
		Split:               make([]*model.SplitEntry, len(sum.Split)),
		Warnings:            sum.Warnings,
		Notices:             make([]*model.ReportNotice, len(sum.Notices)),
	}
	for i, n := range sum.Notices {
		params := n.Params
		if params == nil {
			params = map[string]any{} // params is a JSON object, never null
		}
		m.Notices[i] = &model.ReportNotice{Reason: n.Reason, Params: params,
			Message: i18n.Text(i18n.EN, n.Reason, n.Params)}
	}
	for i, s := range sum.Split {
		m.Split[i] = &model.SplitEntry{Index: s.Index, Title: s.Title, Characters: s.Characters, Parts: s.Parts}
	}
	for i, s := range sum.Skipped {
		m.Skipped[i] = &model.SkippedEntry{Index: s.Index, Title: s.Title, Reason: s.Reason}
	}
	for i, s := range sum.IgnoredSettings {
		m.IgnoredSettings[i] = &model.SettingCount{Name: s.Name, Count: s.Count}
	}
	for i, e := range sum.InertEntries {
		m.InertEntries[i] = &model.InertEntry{Index: e.Index, Title: e.Title, Reason: e.Reason}
	}
	return m
}

// exportLorebook serialises one collection or persona book (docs/contract.md#exports:
// "Standalone exports serialize only the selected collection or persona
// book as SillyTavern world info"). Exporting is a write-level action:
// Manage Server or the server's lore editor role
// (docs/contract.md#permissions; errForbiddenExport).
func (r *Resolver) exportLorebook(ctx context.Context, in *model.ExportLorebookInput) (*model.ExportPayload, error) {
	return r.exportBook(ctx, in, nil)
}

// exportBook is exportLorebook of the entries keep selects (nil: all).
func (r *Resolver) exportBook(ctx context.Context, in *model.ExportLorebookInput, keep func([]lore.Entry) ([]lore.Entry, error)) (*model.ExportPayload, error) {
	fail := failure[model.ExportPayload]
	server, lineage := in.ServerDiscordID, lore.Lineage(in.LineageID)
	if err := r.authorizeWrite(ctx, server, lineage); err != nil {
		if err == errForbidden {
			err = errForbiddenExport
		}
		return fail(err)
	}
	var name, collection string
	var settings lore.BookSettings
	var collectionID int64
	if lineage.IsServerwide() {
		cid, ok := in.CollectionID.ValueOK()
		if !ok || cid == nil {
			return fail(lore.Reject("collectionId", i18n.CollectionRequired, nil))
		}
		id, err := parseID("collection", *cid)
		if err != nil {
			return fail(err)
		}
		c, err := r.Store.GetCollection(ctx, server, id)
		if err != nil {
			return fail(err)
		}
		name, collection, settings, collectionID = c.Name, c.Name, c.Settings, c.ID
	} else {
		var err error
		if settings, err = r.Store.PersonaBookSettings(ctx, server, lineage); err != nil {
			return fail(err)
		}
		name = fmt.Sprintf("Persona lineage %d", int64(lineage))
		if ps, err := r.Store.ListPersonas(ctx, server); err == nil {
			for _, p := range ps {
				if p.Lineage == lineage && !p.Removed {
					name = p.Name
					break
				}
			}
		}
	}
	entries, err := r.Store.ListScope(ctx, server, lineage, collection)
	if err == nil && keep != nil {
		entries, err = keep(entries)
	}
	if err != nil {
		return fail(err)
	}
	// The author's list order, as offline convert writes it: entries are
	// stored in the order of their source file, so by id (the store lists
	// them by insertion order, which array formats would re-sort).
	entries = slices.Clone(entries)
	slices.SortStableFunc(entries, func(a, b lore.Entry) int { return cmp.Compare(a.ID, b.ID) })
	// The book's settings travel with it (docs/formats.md "Book settings");
	// its budget counts the server's unit.
	book := format.Book{Name: name, Entries: entries, Settings: settings}
	if settings.BudgetLimit != nil {
		sv, err := r.Store.GetServer(ctx, server)
		if err != nil {
			return fail(err)
		}
		book.BudgetUnit = sv.Settings.Unit()
	}
	if err := r.withStoredBookFields(ctx, &book, server, lineage, collectionID); err != nil {
		return fail(err)
	}
	// Categories as they are now travel as RisuAI folder rows or NovelAI
	// categories, those created in loregate too (docs/workbench.md#categories).
	cats, err := r.Store.ListCategories(ctx, server, lineage, collectionID)
	if err != nil {
		return fail(err)
	}
	var data []byte
	ext, contentType := ".json", ""
	f := get(in.Format, model.ExportFormatStWorldInfo)
	switch f {
	case model.ExportFormatCardJSON, model.ExportFormatCardPng, model.ExportFormatCardCharx:
		if (f == model.ExportFormatCardPng || f == model.ExportFormatCardCharx) && r.Jobs == nil {
			return fail(errJobsUnavailable) // downloads go through the artifact store
		}
		if book.Card, err = r.bookCard(ctx, server, lineage, collectionID); err != nil {
			return fail(err)
		}
		withSourceBookFields(&book, book.Card, !lineage.IsServerwide())
	}
	enc := exportEncoderOf(f)
	format.WriteCategories(&book, cats, enc.kind)
	data, err = enc.encode(book)
	if enc.ext != "" {
		ext = enc.ext
	}
	if enc.contentType != "" {
		contentType = enc.contentType
	}
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	file := fileName(name) + ext
	// The file's entries: the parts of a split entry are one entry there.
	count := len(lore.JoinSplit(entries))
	if contentType != "" {
		a, err := r.Jobs.Queue.StoreArtifact(ctx, lore.Artifact{Server: server, Kind: "card_export", FileName: file,
			ContentType: contentType, Data: data})
		if err != nil {
			return fail(err)
		}
		return &model.ExportPayload{FileName: &file, Entries: count, Download: &model.Artifact{
			ID: strconv.FormatInt(a.ID, 10), FileName: a.FileName, SizeBytes: int(a.Size), Sha256: a.SHA256,
			ExpiresAt: a.ExpiresAt, URL: ArtifactPath(a.ID)}}, nil
	}
	js := string(data)
	return &model.ExportPayload{FileName: &file, JSON: &js, Entries: count}, nil
}

// bookCard returns the card a book was imported from, nil when it came
// without one (card exports then write a minimal card).
func (r *Resolver) bookCard(ctx context.Context, server string, lineage lore.Lineage, collectionID int64) (*format.SourceCard, error) {
	c, err := r.Store.GetBookCard(ctx, server, lineage, collectionID)
	if errors.Is(err, lore.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &format.SourceCard{Container: format.Container(c.Container), JSON: c.Card, File: c.File}, nil
}

// fileName makes a safe file name stem from a book name.
func fileName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == '/' || r == '\\' || r == ':' || r < 0x20 || r == '"' || r == '*' || r == '?' || r == '<' || r == '>' || r == '|':
			b.WriteRune('_')
		default:
			b.WriteRune(r)
		}
	}
	s := strings.Trim(b.String(), ". ")
	if s == "" {
		s = "lorebook"
	}
	return s
}

// exportEncoder is one export format's encoder, file extension and
// content type ("" keeps ".json" and JSON).
type exportEncoder struct {
	encode           func(format.Book) ([]byte, error)
	ext, contentType string
	kind             format.Kind // the folder rows' shape (format.WriteCategories)
}

// exportEncoderOf is ExportFormat f's encoder; SillyTavern world info for
// any other value (docs/formats.md).
func exportEncoderOf(f model.ExportFormat) exportEncoder {
	byFormat := map[model.ExportFormat]exportEncoder{
		model.ExportFormatCcv3Lorebook:    {format.ExportLorebookV3, ".lorebook_v3.json", "", format.KindLorebookV3},
		model.ExportFormatCardJSON:        {format.ExportCardJSON, ".card.json", "", format.KindV3Card},
		model.ExportFormatCardPng:         {format.ExportCardPNG, ".png", "image/png", format.KindV3Card},
		model.ExportFormatCardCharx:       {format.ExportCardCHARX, ".charx", "application/zip", format.KindV3Card},
		model.ExportFormatWorldbook:       {format.ExportWorldbook, ".worldbook.json", "", format.KindWorldbook},
		model.ExportFormatNovelaiLorebook: {format.ExportNovelAI, ".lorebook", "", format.KindNovelAI},
		model.ExportFormatRisu:            {format.ExportRisu, ".risu.json", "", format.KindRisu},
	}
	if e, ok := byFormat[f]; ok {
		return e
	}
	return exportEncoder{format.ExportST, "", "", format.KindSTWorldInfo}
}
