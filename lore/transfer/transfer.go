// Package transfer owns an import from bytes to rows (docs/contract.md
// "Imports", docs/imports.md): detect and convert the file (lore/format),
// plan it, write it under the server-row lock and record it in the import
// history, in one transaction. The GraphQL resolvers, the River workers
// (and through the API the Discord panel) and the CLI all call it; it
// depends only on lore's interfaces, never on a database package.
//
// It also records collection deletes and scope wipes, undoes recorded
// operations, and migrates legacy keyword memories (migrate.go).
package transfer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/i18n"
)

// Request is one file import: where it goes and the file.
type Request struct {
	// Target is the book (lore.ImportTarget: persona lineage, existing
	// collection, or a new collection) and the mode.
	Target lore.ImportTarget
	// FileName is the upload's name ("" when unknown); Data its bytes.
	FileName string
	Data     []byte
	// LongEntries is the policy for entries over the content limit
	// (format.LongSplit by default).
	LongEntries format.LongEntries
	// Actor is who asked (recorded in the history).
	Actor string
}

// Result is what an import did: the store's counts, the converter's report
// and the history record. It is the one result type of every import path
// and the report a background import job stores (JSON).
type Result struct {
	// ImportID is the history record of the write (0 for a preview).
	ImportID int64 `json:"import_id,omitempty"`
	// Added entries were written; Duplicates skipped as already present
	// (Append); Replaced stored entries removed (Replace).
	Added      int `json:"added"`
	Duplicates int `json:"duplicates"`
	Replaced   int `json:"replaced"`
	// CollectionID and CollectionName: the Serverwide collection written
	// (NewCollection when the import creates it).
	CollectionID   int64  `json:"collection_id,omitempty"`
	CollectionName string `json:"collection_name,omitempty"`
	NewCollection  bool   `json:"new_collection,omitempty"`
	// ScopeBefore and ScopeAfter count the target scope's entries (all
	// Serverwide collections together, or the lineage) before and after.
	ScopeBefore int `json:"scope_before"`
	ScopeAfter  int `json:"scope_after"`
	// Conversion is the converter's report (format, skipped, split...).
	Conversion format.Report `json:"conversion"`
	// Collection is the Serverwide collection after the write (not
	// stored in reports).
	Collection *lore.Collection `json:"-"`
}

// Options returns the conversion options of req under lim.
func (req Request) Options(lim lore.Limits) format.Options {
	return format.Options{Limits: lim, LongEntries: req.LongEntries}
}

// CheckSize refuses a file over its carrier's limit without parsing it
// (lore.ErrInvalid, field "file"): callers that queue a file for a job
// call it first, so the refusal is immediate.
func CheckSize(data []byte, opts format.Options) error {
	if err := format.CheckSize(data, opts); err != nil {
		return lore.Reject("file", i18n.FileOverLimit, lore.Params{"detail": err.Error()})
	}
	return nil
}

// Convert detects and converts req's file. A card without a book and a
// malformed file are lore.ErrInvalid (field "file") with the conversion
// report so far; nothing is written.
func Convert(req Request, lim lore.Limits) (format.Result, error) {
	res, err := format.Import(req.FileName, req.Data, req.Options(lim))
	if errors.Is(err, format.ErrNoLorebook) {
		return res, lore.Reject("file", i18n.NoLorebookInCard, nil)
	}
	if errors.Is(err, format.ErrNotLorebookFile) {
		return res, lore.Reject("file", i18n.NotALorebook, lore.Params{"formats": format.Readable})
	}
	if err != nil {
		return res, lore.Reject("file", i18n.FileUnreadable, lore.Params{"detail": err.Error()})
	}
	return res, nil
}

// Import converts req's file and writes it (Write). The conversion report
// is returned with every error that comes after the conversion.
func Import(ctx context.Context, st lore.HistoryStore, req Request) (Result, error) {
	conv, err := Convert(req, st.Limits())
	if err != nil {
		return Result{Conversion: conv.Report}, err
	}
	return Write(ctx, st, req, conv)
}

// Preview converts req's file and returns what Write would do now (counts,
// collection, report) without keeping anything: the write runs in a
// transaction that is rolled back, so the plan is exactly the write's, and
// nothing is stored. ImportID is 0.
func Preview(ctx context.Context, st lore.HistoryStore, req Request) (Result, error) {
	conv, err := Convert(req, st.Limits())
	if err != nil {
		return Result{Conversion: conv.Report}, err
	}
	return PreviewConverted(ctx, st, req, conv)
}

// errPreview rolls a preview's transaction back.
var errPreview = errors.New("preview: roll back")

// PreviewConverted is Preview for a file already converted.
func PreviewConverted(ctx context.Context, st lore.HistoryStore, req Request, conv format.Result) (Result, error) {
	var out Result
	err := st.Atomic(ctx, req.Target.Server, func(ctx context.Context, tx lore.HistoryStore) error {
		var err error
		if out, err = write(ctx, tx, req, conv, false); err != nil {
			return err
		}
		return errPreview
	})
	if errors.Is(err, errPreview) {
		err = nil
	}
	out.ImportID = 0
	return out, err
}

// Write writes a converted book into req.Target and records it, in one
// transaction under the server lock (docs/contract.md "Imports"). A book
// with no entries is ErrInvalid when it would create a collection or
// replace a book. A new collection is created with its entries
// (ErrDuplicateName when the name is taken); an existing book gets an
// Append or a Replace (ErrStaleTarget when the collection was renamed or
// removed since the caller resolved it). The history record holds the ids
// of the created entries and a snapshot of the replaced ones, so the
// import can be undone (Undo).
func Write(ctx context.Context, st lore.HistoryStore, req Request, conv format.Result) (Result, error) {
	var out Result
	// The entry revisions the import writes name its actor, also when a
	// background job (no request principal) runs it.
	ctx = lore.WithActor(ctx, req.Actor)
	err := st.Atomic(ctx, req.Target.Server, func(ctx context.Context, tx lore.HistoryStore) error {
		var err error
		out, err = write(ctx, tx, req, conv, true)
		return err
	})
	if err != nil {
		return Result{Conversion: conv.Report}, err
	}
	return out, nil
}

// write runs inside Atomic.
func write(ctx context.Context, st lore.HistoryStore, req Request, conv format.Result, record bool) (Result, error) {
	t := req.Target
	out := Result{Conversion: conv.Report}
	entries := make([]lore.Entry, len(conv.Book.Entries))
	copy(entries, conv.Book.Entries)
	// A file with nothing importable never creates an empty book nor
	// empties an existing one (a card without a book keeps the selected
	// book unchanged). Appending nothing is a harmless no-op.
	if len(entries) == 0 && (t.Mode == lore.Replace || (t.Lineage.IsServerwide() && t.CollectionID == 0)) {
		return out, lore.Reject("file", i18n.NoImportableEntries, lore.Params{"skipped": len(conv.Report.Skipped)})
	}
	for i := range entries {
		entries[i].Server, entries[i].Lineage = t.Server, t.Lineage
	}
	settings, err := ImportSettings(ctx, st, t.Server, t.Mode == lore.Replace || (t.Lineage.IsServerwide() && t.CollectionID == 0), &conv)
	if err != nil {
		return out, err
	}
	if err := WarnAlwaysOn(ctx, st, t.Server, importedName(req, conv), entries, &conv.Report); err != nil {
		return out, err
	}
	out.Conversion = conv.Report // with the settings and budget warnings
	t.Settings = settings
	var oldSettings *lore.BookSettings
	if settings != nil && t.Mode == lore.Replace {
		if oldSettings, err = bookSettings(ctx, st, t); err != nil && !errors.Is(err, lore.ErrNotFound) {
			return out, err
		}
	}
	counts, err := st.CountByScope(ctx, t.Server)
	if err != nil {
		return out, err
	}
	out.ScopeBefore = counts[t.Lineage]
	var before []lore.Entry
	var res lore.ImportResult
	book := t.Collection
	switch {
	case t.Lineage.IsServerwide() && t.CollectionID == 0:
		name := t.NewName
		if name == "" {
			name = BookName(conv.Book.Name, req.FileName)
		}
		book = name
		for i := range entries {
			entries[i].Collection = name
		}
		c := lore.Collection{Server: t.Server, Name: name, Enabled: true}
		if settings != nil {
			c.Settings = *settings
		}
		c, res, err = st.CreateCollectionWithEntries(ctx, c, entries)
		if err == nil {
			res.Collection = &c
		}
		out.NewCollection = true
	default:
		if before, err = st.ListScope(ctx, t.Server, t.Lineage, book); err != nil && !errors.Is(err, lore.ErrNotFound) {
			return out, err
		}
		for i := range entries {
			entries[i].Collection = book
		}
		res, err = st.ImportEntries(ctx, t, t.Mode, entries)
	}
	if err != nil {
		return out, err
	}
	out.Added, out.Duplicates, out.Replaced = res.Added, res.Duplicates, res.Replaced
	out.ScopeAfter = out.ScopeBefore + res.Added - res.Replaced
	if c := res.Collection; c != nil {
		out.Collection, out.CollectionID, out.CollectionName = c, c.ID, c.Name
	}
	if !record {
		return out, nil
	}
	source, card, err := keepSource(ctx, st, t, out, conv.Book)
	if err != nil {
		return out, err
	}
	after, err := st.ListScope(ctx, t.Server, t.Lineage, book)
	if err != nil {
		return out, err
	}
	created, removed := diff(before, after)
	madeCategories, err := categorize(ctx, st, t, out.CollectionID, conv.Book, created)
	if err != nil {
		return out, err
	}
	var newSettings *lore.BookSettings
	if oldSettings != nil {
		tAfter := t
		tAfter.CollectionID = out.CollectionID
		if newSettings, err = bookSettings(ctx, st, tAfter); err != nil {
			return out, err
		}
	}
	report, err := json.Marshal(out)
	if err != nil {
		return out, fmt.Errorf("encode import report: %w", err)
	}
	rec := lore.HistoryRecord{Server: t.Server, Kind: lore.HistoryFile, Actor: req.Actor, SourceName: req.FileName,
		SourceSHA256: Hash(req.Data), Mode: modeName(t.Mode), Report: report,
		Target:     lore.HistoryTarget{Lineage: t.Lineage, CollectionID: out.CollectionID, Collection: out.CollectionName},
		CreatedIDs: ids(created), RemovedIDs: ids(removed), Snapshot: &lore.HistorySnapshot{Entries: removed, BookSettings: oldSettings, BookSettingsAfter: newSettings, Source: source,
			BookCard: card, CreatedCategories: madeCategories}}
	if out.NewCollection {
		rec.CreatedCollection = out.CollectionName
	}
	rec, err = st.RecordHistory(ctx, rec)
	if err != nil {
		return out, err
	}
	out.ImportID = rec.ID
	return out, nil
}

// keepSource keeps what an import's file held beside its entries: the card
// the book came in (for card exports) and the book-level fields no column
// holds (docs/formats.md "Rules worth knowing"): a new book or a replaced
// one takes the file's, an append keeps the book's own. It returns the
// snapshots of the book's kept fields and card an undo puts back
// (putSource, putCard).
func keepSource(ctx context.Context, st lore.HistoryStore, t lore.ImportTarget, out Result, book format.Book) (*lore.SourceSnapshot, *lore.BookCardSnapshot, error) {
	var cardSnap *lore.BookCardSnapshot
	if card := book.Card; card != nil {
		c := lore.BookCard{Server: t.Server, Lineage: t.Lineage, CollectionID: out.CollectionID,
			Container: string(card.Container), Card: card.JSON, File: card.File}
		var err error
		if cardSnap, err = putCard(ctx, st, c, !out.NewCollection); err != nil {
			return nil, nil, fmt.Errorf("keep the card: %w", err)
		}
	}
	src := lore.BookSource{Server: t.Server, Lineage: t.Lineage, CollectionID: out.CollectionID,
		Name: book.Name, NameFromFile: book.NameFromFile, Description: book.Description, Fields: book.Extensions}
	snap, err := putSource(ctx, st, src, out.NewCollection || t.Mode == lore.Replace, !out.NewCollection)
	if err != nil {
		return nil, nil, fmt.Errorf("keep the book fields: %w", err)
	}
	return snap, cardSnap, nil
}

// putCard stores c as its book's kept card (book_cards) and, for a book
// that existed before the operation, returns the card it had and the
// digest of the one it has now (lore.BookCardSnapshot), so that an undo
// puts the old one back exactly; nil when the card did not change, or for
// a new book (its undo removes the book, and the card with it).
func putCard(ctx context.Context, st lore.HistoryStore, c lore.BookCard, existed bool) (*lore.BookCardSnapshot, error) {
	if !existed {
		return nil, st.PutBookCard(ctx, c)
	}
	before, err := keptCard(ctx, st, c)
	if err != nil {
		return nil, err
	}
	if err := st.PutBookCard(ctx, c); err != nil {
		return nil, err
	}
	after, err := keptCard(ctx, st, c)
	if err != nil || lore.CardDigest(before) == lore.CardDigest(after) {
		return nil, err
	}
	return &lore.BookCardSnapshot{Before: lore.KeepCard(before), After: lore.CardDigest(after)}, nil
}

// keptCard reads the kept card of c's book (nil: none).
func keptCard(ctx context.Context, st lore.HistoryStore, c lore.BookCard) (*lore.BookCard, error) {
	cur, err := st.GetBookCard(ctx, c.Server, c.Lineage, c.CollectionID)
	if errors.Is(err, lore.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &cur, nil
}

// putSource stores src as its book's kept source fields (PutBookSource)
// and, for a book that existed before the operation, returns what they
// were and what they are now (lore.SourceSnapshot), so that an undo puts
// them back exactly; nil when they did not change, or for a new book (its
// undo removes the book, and the fields with it).
func putSource(ctx context.Context, st lore.HistoryStore, src lore.BookSource, replace, existed bool) (*lore.SourceSnapshot, error) {
	if !existed {
		return nil, st.PutBookSource(ctx, src, replace)
	}
	before, err := keptSource(ctx, st, src)
	if err != nil {
		return nil, err
	}
	if err := st.PutBookSource(ctx, src, replace); err != nil {
		return nil, err
	}
	after, err := keptSource(ctx, st, src)
	if err != nil || before.Equal(after) {
		return nil, err
	}
	return &lore.SourceSnapshot{Before: before, After: after}, nil
}

// keptSource reads the kept source fields of src's book (nil: none).
func keptSource(ctx context.Context, st lore.HistoryStore, src lore.BookSource) (*lore.KeptSource, error) {
	cur, err := st.GetBookSource(ctx, src.Server, src.Lineage, src.CollectionID)
	if errors.Is(err, lore.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return lore.KeepSource(&cur), nil
}

// importedName names the book of an import in its report: the target
// collection, else the new collection's name, else the book's.
func importedName(req Request, conv format.Result) string {
	switch {
	case req.Target.Collection != "":
		return req.Target.Collection
	case req.Target.NewName != "":
		return req.Target.NewName
	}
	return BookName(conv.Book.Name, req.FileName)
}

// ImportSettings returns the book settings an import into server stores
// (nil: keep the target's): the file's, without a budget counted in
// another unit than the server's. With store false (an Append into an
// existing book) it stores none. Both cases are reported as warnings in
// conv's report. A new collection takes them; a Replace (and a persona
// card's book) replaces the book's.
func ImportSettings(ctx context.Context, st lore.Store, server string, store bool, conv *format.Result) (*lore.BookSettings, error) {
	set, unit := conv.Book.Settings.Clone(), conv.Book.BudgetUnit
	if set.IsZero() {
		return nil, nil
	}
	if !store {
		conv.Report.Notef(i18n.ReportSettingsNotApplied, map[string]any{"settings": format.DescribeSettings(set, unit)})
		return nil, nil
	}
	if set.BudgetLimit != nil {
		sv, err := st.GetServer(ctx, server)
		if err != nil {
			return nil, err
		}
		if u := sv.Settings.Unit(); unit != u {
			conv.Report.Notef(i18n.ReportBudgetUnitMismatch, map[string]any{"budget": *set.BudgetLimit, "unit": string(unit), "serverUnit": string(u)})
			set.BudgetLimit = nil
		}
	}
	return &set, nil
}

// bookSettings reads the settings of t's book (a collection or a persona
// lineage).
func bookSettings(ctx context.Context, st lore.Store, t lore.ImportTarget) (*lore.BookSettings, error) {
	if t.Lineage.IsServerwide() {
		c, err := st.GetCollection(ctx, t.Server, t.CollectionID)
		if err != nil {
			return nil, err
		}
		return &c.Settings, nil
	}
	b, err := st.PersonaBookSettings(ctx, t.Server, t.Lineage)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// diff returns the entries of after whose ids are not in before (created)
// and those of before missing from after (removed).
func diff(before, after []lore.Entry) (created, removed []lore.Entry) {
	had := make(map[int64]bool, len(before))
	for _, e := range before {
		had[e.ID] = true
	}
	has := make(map[int64]bool, len(after))
	for _, e := range after {
		has[e.ID] = true
		if !had[e.ID] {
			created = append(created, e)
		}
	}
	for _, e := range before {
		if !has[e.ID] {
			removed = append(removed, e)
		}
	}
	return created, removed
}

func ids(es []lore.Entry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func modeName(m lore.ImportMode) string {
	if m == lore.Replace {
		return "replace"
	}
	return "append"
}

// Hash is the hex SHA-256 of data ("" for no data), as the history records
// a source.
func Hash(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// BookName picks a new collection's name: the book's name, else the file
// name without extension, else "Imported lorebook", cut to
// lore.MaxCollectionNameLen UTF-16 code units, control characters replaced
// by spaces. Linear in the input (names in files are unbounded).
func BookName(name, file string) string {
	clean := func(s string) string {
		// One pass each: cut first (names in files are unbounded), then
		// replace control characters, which collection names refuse.
		s = lore.TruncateUTF16(strings.TrimSpace(s), lore.MaxCollectionNameLen)
		s = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, s)
		return strings.TrimSpace(s)
	}
	name = clean(name)
	if name == "" {
		name = clean(strings.TrimSuffix(path.Base(file), path.Ext(file)))
	}
	if name == "" || name == "." || name == "/" {
		name = "Imported lorebook"
	}
	return name
}

// The River job kinds of transfers (package jobs registers their workers;
// the API reads their reports by kind).
const (
	// JobImport is a large lorebook import (report: Result).
	JobImport = "lorebook_import"
	// JobBackupExport is a workspace backup export.
	JobBackupExport = "workspace_backup_export"
	// JobBackupImport is a workspace backup import (report: BackupReport).
	JobBackupImport = "workspace_backup_import"
	// JobMigration is a legacy memory migration (report: MigrationReport).
	JobMigration = "legacy_memory_migration"
)
