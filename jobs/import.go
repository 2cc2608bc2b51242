package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/postgres"
)

// ImportArgs is a lorebook import whose upload is stored as blob BlobID
// (seed 000 "imports/"; issue 7). The target was authorised and resolved
// when the job was enqueued; the worker re-checks it under the store's lock.
type ImportArgs struct {
	// BlobID is the job_blobs row holding the upload.
	BlobID int64 `json:"blob_id"`
	// ServerID is the guild snowflake; LineageID 0 = Serverwide.
	ServerID  string `json:"server_id"`
	LineageID int64  `json:"lineage_id"`
	// CollectionID and CollectionName name an existing Serverwide target
	// as the caller saw it (0 and "": create a new collection named
	// NewName, else the book's name, else the file name).
	CollectionID   int64  `json:"collection_id,omitempty"`
	CollectionName string `json:"collection_name,omitempty"`
	NewName        string `json:"new_name,omitempty"`
	// Replace replaces the target book instead of appending.
	Replace bool `json:"replace,omitempty"`
	// LongEntries is the long-entry policy ("split", the default, or
	// "skip"; format.LongEntries).
	LongEntries string `json:"long_entries,omitempty"`
}

// Kind is "lorebook_import".
func (ImportArgs) Kind() string { return "lorebook_import" }

// InsertOpts: at most 5 attempts (a transient failure retries; an invalid
// file is cancelled at once).
func (ImportArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 5} }

// Target returns the store target of the import.
func (a ImportArgs) Target() ImportTarget {
	return ImportTarget{Server: a.ServerID, Lineage: lore.Lineage(a.LineageID), CollectionID: a.CollectionID,
		Collection: a.CollectionName, NewName: a.NewName, Replace: a.Replace}
}

// ImportReport is the job report of an import (job_reports.report): the
// store's counts and the converter's report.
type ImportReport struct {
	Added      int `json:"added"`
	Duplicates int `json:"duplicates"`
	Replaced   int `json:"replaced"`
	// CollectionID and CollectionName: the Serverwide collection written.
	CollectionID   int64         `json:"collection_id,omitempty"`
	CollectionName string        `json:"collection_name,omitempty"`
	Conversion     format.Report `json:"conversion"`
}

// ImportWorker works ImportArgs: read the blob, convert it (lore/format),
// then in one transaction write the entries (create the collection, append
// or replace), record the report, delete the blob and complete the job.
type ImportWorker struct {
	river.WorkerDefaults[ImportArgs]
	Deps
	// BeforeCommitFunc, when set, runs inside the import transaction after
	// every write and before the commit. Tests use it to kill the process
	// at the worst moment; production leaves it nil.
	BeforeCommitFunc func(ctx context.Context, jobID int64)
}

// Timeout bounds one attempt: Deps.ImportTimeout.
func (w *ImportWorker) Timeout(*river.Job[ImportArgs]) time.Duration { return w.ImportTimeout }

// Work imports the blob. A missing blob, an unreadable file, a card
// without a book, a full scope or a stale target cancel the job with the
// reason; database failures are retried.
func (w *ImportWorker) Work(ctx context.Context, job *river.Job[ImportArgs]) error {
	a := job.Args
	blob, err := w.Store.GetBlob(ctx, a.BlobID)
	if errors.Is(err, lore.ErrNotFound) {
		return river.JobCancel(fmt.Errorf("upload %d is gone (expired or already imported)", a.BlobID))
	}
	if err != nil {
		return err
	}
	if blob.Server != a.ServerID || blob.Kind != postgres.BlobLorebook {
		return river.JobCancel(fmt.Errorf("upload %d is not a lorebook upload of this server", a.BlobID))
	}
	res, err := format.Import(blob.FileName, blob.Data, format.Options{
		Limits: w.Store.Limits(), LongEntries: format.LongEntries(a.LongEntries),
	})
	if errors.Is(err, format.ErrNoLorebook) {
		return river.JobCancel(errors.New("no lorebook in this card: nothing was changed"))
	}
	if err != nil {
		return river.JobCancel(fmt.Errorf("invalid file: %w", err))
	}
	err = w.Store.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		result, err := WriteImport(ctx, st, a.Target(), blob.FileName, &res)
		if err != nil {
			return err
		}
		rep := ImportReport{Added: result.Added, Duplicates: result.Duplicates, Replaced: result.Replaced, Conversion: res.Report}
		if result.Collection != nil {
			rep.CollectionID, rep.CollectionName = result.Collection.ID, result.Collection.Name
		}
		raw, err := json.Marshal(rep)
		if err != nil {
			return fmt.Errorf("encode report: %w", err)
		}
		if err := st.PutJobReport(ctx, postgres.JobReport{JobID: job.ID, Server: a.ServerID, Kind: a.Kind(), Report: raw}); err != nil {
			return err
		}
		if err := st.DeleteBlob(ctx, blob.ID); err != nil {
			return err
		}
		if w.BeforeCommitFunc != nil {
			w.BeforeCommitFunc(ctx, job.ID)
		}
		return completeTx(ctx, tx, job)
	})
	if err != nil {
		w.Logger.WarnContext(ctx, "lorebook import failed", "job_id", job.ID, "server", a.ServerID, "attempt", job.Attempt, "err", err)
		return outcome(err)
	}
	w.Logger.InfoContext(ctx, "lorebook import done", "job_id", job.ID, "server", a.ServerID, "format", res.Format,
		"entries", len(res.Book.Entries), "skipped", len(res.Report.Skipped))
	return nil
}

// ImportTarget is where an import writes: a persona lineage, an existing
// Serverwide collection (CollectionID and Collection as the caller saw
// them), or a new Serverwide collection (CollectionID 0; named NewName,
// else the book's name, else the file name).
type ImportTarget struct {
	Server       string
	Lineage      lore.Lineage
	CollectionID int64
	Collection   string
	NewName      string
	Replace      bool
}

// WriteImport writes a converted book into target through st (seed 000
// "imports/"). A book with no entries is ErrInvalid when it would create a
// collection or replace a book. A new collection is created with its entries in one
// transaction (ErrDuplicateName when the name is taken); an existing book
// gets an Append or Replace under the server lock (ErrStaleTarget when the
// collection was renamed or removed). A book that came in a character card
// keeps the card (postgres.Store.PutBookCard; in the same transaction when
// st is bound to one) for card exports. Used inline by the GraphQL import
// for small files and by ImportWorker for large ones.
//
// The book's settings (res.Book.Settings) become the new collection's, or
// replace the target book's on Replace; an Append keeps the book's own and
// says so in res.Report's warnings. A budget in another unit than the
// server's is not applied (warning). The store validates the settings.
func WriteImport(ctx context.Context, st lore.Store, target ImportTarget, fileName string, res *format.Result) (lore.ImportResult, error) {
	result, err := writeEntries(ctx, st, target, fileName, res)
	if err != nil || res.Book.Card == nil {
		return result, err
	}
	// Keep the card the book came in, for card exports.
	k, ok := st.(cardKeeper)
	if !ok {
		return result, nil
	}
	c := postgres.BookCard{Server: target.Server, Lineage: target.Lineage, CollectionID: target.CollectionID,
		Container: string(res.Book.Card.Container), Card: res.Book.Card.JSON, File: res.Book.Card.File}
	if result.Collection != nil {
		c.CollectionID = result.Collection.ID
	}
	if err := k.PutBookCard(ctx, c); err != nil {
		return result, fmt.Errorf("keep the card: %w", err)
	}
	return result, nil
}

// cardKeeper is a store that keeps the card a book came in
// (postgres.Store).
type cardKeeper interface {
	PutBookCard(ctx context.Context, c postgres.BookCard) error
}

// writeEntries writes the converted entries (WriteImport without the card).
func writeEntries(ctx context.Context, st lore.Store, target ImportTarget, fileName string, res *format.Result) (lore.ImportResult, error) {
	entries := res.Book.Entries
	// A file with nothing importable never creates an empty book nor
	// empties an existing one (seed 000: "A failed ... import leaves no
	// empty book behind"; seed 002: a card without a book keeps the
	// selected lorebook unchanged). Appending nothing is a harmless no-op.
	if len(entries) == 0 && (target.Replace || (target.Lineage.IsServerwide() && target.CollectionID == 0)) {
		return lore.ImportResult{}, lore.Invalid("file", "has no importable entries (%d skipped): nothing was changed", len(res.Report.Skipped))
	}
	for i := range entries {
		entries[i].Server, entries[i].Lineage = target.Server, target.Lineage
	}
	settings, err := ImportSettings(ctx, st, target.Server, target.Replace || (target.Lineage.IsServerwide() && target.CollectionID == 0), res)
	if err != nil {
		return lore.ImportResult{}, err
	}
	mode := lore.Append
	if target.Replace {
		mode = lore.Replace
	}
	switch {
	case target.Lineage.IsServerwide() && target.CollectionID == 0:
		name := target.NewName
		if name == "" {
			name = BookName(res.Book.Name, fileName)
		}
		for i := range entries {
			entries[i].Collection = name
		}
		c := lore.Collection{Server: target.Server, Name: name, Enabled: true}
		if settings != nil {
			c.Settings = *settings
		}
		c, result, err := st.CreateCollectionWithEntries(ctx, c, entries)
		if err == nil {
			result.Collection = &c
		}
		return result, err
	case target.Lineage.IsServerwide():
		for i := range entries {
			entries[i].Collection = target.Collection
		}
		return st.ImportEntries(ctx, lore.ImportTarget{Server: target.Server, CollectionID: target.CollectionID, Collection: target.Collection,
			Settings: settings}, mode, entries)
	default:
		return st.ImportEntries(ctx, lore.ImportTarget{Server: target.Server, Lineage: target.Lineage, Settings: settings}, mode, entries)
	}
}

// ImportSettings returns the book settings an import into server stores
// (nil: keep the target's): the file's, without a budget counted in
// another unit than the server's. With store false (an Append into an
// existing book) it stores none. Both cases are reported as warnings in
// res.Report.
func ImportSettings(ctx context.Context, st lore.Store, server string, store bool, res *format.Result) (*lore.BookSettings, error) {
	set, unit := res.Book.Settings.Clone(), res.Book.BudgetUnit
	if set.IsZero() {
		return nil, nil
	}
	if !store {
		res.Report.Warnf("the file's book settings (%s) were not applied: appending keeps the book's own settings",
			format.DescribeSettings(set, unit))
		return nil, nil
	}
	if set.BudgetLimit != nil {
		sv, err := st.GetServer(ctx, server)
		if err != nil {
			return nil, err
		}
		if u := sv.Settings.Unit(); unit != u {
			res.Report.Warnf("the file's budget of %d %s was not applied: this server counts %s", *set.BudgetLimit, unit, u)
			set.BudgetLimit = nil
		}
	}
	return &set, nil
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
