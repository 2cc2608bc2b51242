package graph

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"loregate/graph/model"
	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/postgres"
)

// importLorebook runs the importLorebook mutation (seed 000 "imports/" and
// "Import and export"): authorise, resolve the target as it is now, read and
// convert the file, then write under the store's lock, which re-checks the
// target collection by id and name (a book renamed or removed meanwhile is
// STALE_TARGET, never recreated).
func (r *Resolver) importLorebook(ctx context.Context, in *model.ImportLorebookInput) (*model.ImportPayload, error) {
	fail := func(err error, report *model.ConversionReport) (*model.ImportPayload, error) {
		me, err := classify(err)
		return &model.ImportPayload{Error: me, Report: report}, err
	}
	server, lineage := in.ServerDiscordID, lore.Lineage(in.LineageID)
	if err := r.authorizeWrite(ctx, server, lineage); err != nil {
		return fail(err, nil)
	}
	mode := lore.Append
	if get(in.Mode, model.ImportModeAppend) == model.ImportModeReplace {
		mode = lore.Replace
	}
	// Resolve the target collection before the (slow) read and conversion.
	var target *lore.Collection
	if cid, ok := in.Collection.ValueOK(); ok && cid != nil {
		if !lineage.IsServerwide() {
			return fail(lore.Invalid("collection", "persona books have no collection"), nil)
		}
		id, err := parseID("collection", *cid)
		if err != nil {
			return fail(err, nil)
		}
		c, err := r.Store.GetCollection(ctx, server, id)
		if err != nil {
			return fail(err, nil)
		}
		target = &c
	}
	data, err := io.ReadAll(io.LimitReader(in.File.File, MaxUploadBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read upload: %w", err)
	}
	if len(data) > MaxUploadBytes {
		return fail(lore.Invalid("file", "is larger than %d bytes", MaxUploadBytes), nil)
	}
	// A file over its carrier's limit (JSON: the deployment's limit, 2 MB
	// by default) is refused now rather than by a job later.
	opts := r.importOptions(in.LongEntries)
	if err := format.CheckSize(data, opts); err != nil {
		return fail(&lore.InvalidError{Field: "file", Reason: err.Error()}, nil)
	}
	if r.Jobs != nil && len(data) > r.Jobs.inlineLimit() {
		// Large upload: store it and let a job convert and write it; the
		// blob and the job commit together (one transaction).
		args := jobs.ImportArgs{ServerID: server, LineageID: int64(lineage), NewName: get(in.Name, ""), Replace: mode == lore.Replace,
			LongEntries: string(opts.LongEntries)}
		if target != nil {
			args.CollectionID, args.CollectionName = target.ID, target.Name
		}
		job, err := r.enqueueImport(ctx, args, in.File.Filename, data)
		if err != nil {
			return fail(err, nil)
		}
		return &model.ImportPayload{Job: job}, nil
	}
	res, err := format.Import(in.File.Filename, data, opts)
	report := reportToModel(&res.Report)
	if errors.Is(err, format.ErrNoLorebook) {
		return fail(lore.Invalid("file", "no lorebook in this card: nothing was changed"), report)
	}
	if err != nil {
		return fail(&lore.InvalidError{Field: "file", Reason: err.Error()}, report)
	}
	r.Logger.InfoContext(ctx, "lorebook import converted", "request_id", RequestID(ctx),
		"format", res.Format, "entries", len(res.Book.Entries), "skipped", len(res.Report.Skipped),
		"unsupported_keys", len(res.Report.UnsupportedKeys), "ignored_settings", len(res.Report.IgnoredSettings),
		"collapsed_placements", res.Report.CollapsedPlacements)

	t := jobs.ImportTarget{Server: server, Lineage: lineage, NewName: get(in.Name, ""), Replace: mode == lore.Replace}
	if target != nil {
		t.CollectionID, t.Collection = target.ID, target.Name
	}
	var result lore.ImportResult
	if ps, ok := r.Store.(*postgres.Store); ok && res.Book.Card != nil {
		// The entries and the card they came in commit together.
		err = ps.WithTx(ctx, func(ctx context.Context, _ pgx.Tx, st *postgres.Store) error {
			var err error
			result, err = jobs.WriteImport(ctx, st, t, in.File.Filename, &res)
			return err
		})
	} else {
		result, err = jobs.WriteImport(ctx, r.Store, t, in.File.Filename, &res)
	}
	report = reportToModel(&res.Report) // WriteImport adds settings warnings
	if err != nil {
		return fail(err, report)
	}
	out := &model.ImportPayload{Report: report}
	out.Added, out.Duplicates, out.Replaced = result.Added, result.Duplicates, result.Replaced
	if result.Collection != nil {
		m := collectionToModel(*result.Collection)
		out.Collection = &m
	}
	return out, nil
}

func reportToModel(r *format.Report) *model.ConversionReport {
	m := &model.ConversionReport{
		Format:              string(r.Format),
		Entries:             r.Entries,
		Skipped:             make([]*model.SkippedEntry, len(r.Skipped)),
		UnsupportedKeys:     make([]string, len(r.UnsupportedKeys)),
		IgnoredSettings:     make([]*model.SettingCount, 0, len(r.IgnoredSettings)),
		CollapsedPlacements: r.CollapsedPlacements,
		Inert:               len(r.Inert),
		Dropped:             r.Dropped,
		Split:               make([]*model.SplitEntry, len(r.Split)),
		Warnings:            append([]string{}, r.Warnings...),
	}
	for i, s := range r.Split {
		m.Split[i] = &model.SplitEntry{Index: s.Index, Title: s.Title, Characters: s.Characters, Parts: s.Parts}
	}
	if r.Container != "" && string(r.Container) != "json" {
		m.Format = string(r.Container) + "/" + m.Format
	}
	for i, s := range r.Skipped {
		m.Skipped[i] = &model.SkippedEntry{Index: s.Index, Title: s.Title, Reason: s.Reason}
	}
	for i, k := range r.UnsupportedKeys {
		m.UnsupportedKeys[i] = fmt.Sprintf("entry %d (%s): %s: %s", k.Index, k.Title, k.Key, k.Reason)
	}
	for name, n := range r.IgnoredSettings {
		m.IgnoredSettings = append(m.IgnoredSettings, &model.SettingCount{Name: name, Count: n})
	}
	sort.Slice(m.IgnoredSettings, func(i, j int) bool { return m.IgnoredSettings[i].Name < m.IgnoredSettings[j].Name })
	return m
}

// exportLorebook serialises one collection or persona book (seed 000:
// "Standalone exports serialize only the selected collection or persona
// book as SillyTavern world info"). Exporting is a manager action (seed
// 002).
func (r *Resolver) exportLorebook(ctx context.Context, in *model.ExportLorebookInput) (*model.ExportPayload, error) {
	fail := func(err error) (*model.ExportPayload, error) {
		me, err := classify(err)
		return &model.ExportPayload{Error: me}, err
	}
	server, lineage := in.ServerDiscordID, lore.Lineage(in.LineageID)
	if err := r.authorizeWrite(ctx, server, lineage); err != nil {
		return fail(err)
	}
	var name, collection string
	var settings lore.BookSettings
	var collectionID int64
	if lineage.IsServerwide() {
		cid, ok := in.CollectionID.ValueOK()
		if !ok || cid == nil {
			return fail(lore.Invalid("collectionId", "is required for Serverwide exports"))
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
	if err != nil {
		return fail(err)
	}
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
	}
	switch f {
	case model.ExportFormatCcv3Lorebook:
		data, err = format.ExportLorebookV3(book)
		ext = ".lorebook_v3.json"
	case model.ExportFormatCardJSON:
		data, err = format.ExportCardJSON(book)
		ext = ".card.json"
	case model.ExportFormatCardPng:
		data, err = format.ExportCardPNG(book)
		ext, contentType = ".png", "image/png"
	case model.ExportFormatCardCharx:
		data, err = format.ExportCardCHARX(book)
		ext, contentType = ".charx", "application/zip"
	default:
		data, err = format.ExportST(book)
	}
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	file := fileName(name) + ext
	if contentType != "" {
		a, err := r.Jobs.Store.PutArtifact(ctx, postgres.Artifact{Server: server, Kind: "card_export", FileName: file,
			ContentType: contentType, Data: data, ExpiresAt: r.Jobs.blobExpiry()})
		if err != nil {
			return fail(err)
		}
		return &model.ExportPayload{FileName: &file, Entries: len(entries), Download: &model.Artifact{
			ID: strconv.FormatInt(a.ID, 10), FileName: a.FileName, SizeBytes: int(a.Size), Sha256: a.SHA256,
			ExpiresAt: a.ExpiresAt, URL: ArtifactPath(a.ID)}}, nil
	}
	js := string(data)
	return &model.ExportPayload{FileName: &file, JSON: &js, Entries: len(entries)}, nil
}

// bookCard returns the card a book was imported from, nil when it came
// without one (card exports then write a minimal card).
func (r *Resolver) bookCard(ctx context.Context, server string, lineage lore.Lineage, collectionID int64) (*format.SourceCard, error) {
	type cardReader interface {
		GetBookCard(ctx context.Context, server string, lineage lore.Lineage, collectionID int64) (postgres.BookCard, error)
	}
	cr, ok := r.Store.(cardReader)
	if !ok {
		if r.Jobs == nil {
			return nil, nil
		}
		cr = r.Jobs.Store
	}
	c, err := cr.GetBookCard(ctx, server, lineage, collectionID)
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
