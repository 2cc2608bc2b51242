package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/postgres"
	"loregate/lore/transfer"
)

// ImportArgs is a lorebook import whose upload is stored as blob BlobID
// (docs/contract.md#imports; issue 7). The target was authorised and resolved
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
	// Actor is who asked (recorded in the import history).
	Actor string `json:"actor,omitempty"`
}

// Kind is "lorebook_import".
func (ImportArgs) Kind() string { return transfer.JobImport }

// InsertOpts: at most 5 attempts (a transient failure retries; an invalid
// file is cancelled at once).
func (ImportArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 5} }

// Target returns the import's target (the one target type, lore.ImportTarget).
func (a ImportArgs) Target() lore.ImportTarget {
	mode := lore.Append
	if a.Replace {
		mode = lore.Replace
	}
	return lore.ImportTarget{Server: a.ServerID, Lineage: lore.Lineage(a.LineageID), CollectionID: a.CollectionID,
		Collection: a.CollectionName, NewName: a.NewName, Mode: mode}
}

// ImportReport is the job report of an import (job_reports.report):
// transfer.Result, the result of every import path.
type ImportReport = transfer.Result

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
	blob, err := loadBlob(ctx, w.Deps, blobRef{ID: a.BlobID, Server: a.ServerID, Kind: postgres.BlobLorebook,
		Name: "upload", Expect: "a lorebook upload"})
	if err != nil {
		return err
	}
	req := transfer.Request{Target: a.Target(), FileName: blob.FileName, Data: blob.Data,
		LongEntries: format.LongEntries(a.LongEntries), Actor: a.Actor}
	conv, err := transfer.Convert(req, w.Store.Limits())
	if err != nil {
		return outcome(err)
	}
	var rep ImportReport
	err = commitBlobJob(ctx, w.Deps, job, blob, "lorebook import", func(ctx context.Context, st *postgres.Store) (any, error) {
		var err error
		rep, err = transfer.Write(ctx, st, req, conv)
		return rep, err
	}, w.BeforeCommitFunc)
	if err != nil {
		return err
	}
	w.Logger.InfoContext(ctx, "lorebook import done", "job_id", job.ID, "server", a.ServerID, "format", conv.Format,
		"entries", len(conv.Book.Entries), "skipped", len(conv.Report.Skipped), "import_id", rep.ImportID)
	return nil
}
