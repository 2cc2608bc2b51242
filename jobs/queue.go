package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/i18n"
	"loregate/lore/postgres"
	"loregate/lore/transfer"
)

// Inserter is what a Queue needs of River's client (*river.Client[pgx.Tx]
// implements it): insert inside the caller's transaction, and read a job.
type Inserter interface {
	InsertTx(ctx context.Context, tx pgx.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error)
}

// Queue enqueues the transfer jobs and reads their data for the API (which
// sees it through an interface, so it never depends on the database
// package). Every job with an input is enqueued by Queue.enqueue: the input
// and the job commit in one transaction.
type Queue struct {
	// Store holds blobs, reports and artifacts (required).
	Store *postgres.Store
	// Client inserts and reads jobs (required).
	Client Inserter
	// BlobTTL is how long an upload or a backup preview waits (0:
	// DefaultBlobTTL).
	BlobTTL time.Duration
	// NowFunc returns the current time (default time.Now).
	NowFunc func() time.Time
}

// Now returns the queue's current time.
func (q *Queue) Now() time.Time {
	if q.NowFunc != nil {
		return q.NowFunc()
	}
	return time.Now()
}

func (q *Queue) blobExpiry() time.Time {
	ttl := q.BlobTTL
	if ttl <= 0 {
		ttl = DefaultBlobTTL
	}
	return q.Now().Add(ttl)
}

// enqueue runs put (which stores the job's input through st and returns
// the job's args) and inserts the job, in one transaction: either both
// commit or neither.
func (q *Queue) enqueue(ctx context.Context, put func(ctx context.Context, st *postgres.Store) (river.JobArgs, error)) (*rivertype.JobRow, error) {
	var row *rivertype.JobRow
	err := q.Store.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		args, err := put(ctx, st)
		if err != nil {
			return err
		}
		res, err := q.Client.InsertTx(ctx, tx, args, nil)
		if err != nil {
			return fmt.Errorf("enqueue %s: %w", args.Kind(), err)
		}
		row = res.Job
		return nil
	})
	return row, err
}

// EnqueueImport stores req's file as a blob and queues its import
// (ImportWorker).
func (q *Queue) EnqueueImport(ctx context.Context, req transfer.Request) (*rivertype.JobRow, error) {
	t := req.Target
	return q.enqueue(ctx, func(ctx context.Context, st *postgres.Store) (river.JobArgs, error) {
		b, err := st.PutBlob(ctx, postgres.Blob{Server: t.Server, Kind: postgres.BlobLorebook, FileName: req.FileName, Data: req.Data, ExpiresAt: q.blobExpiry()})
		if err != nil {
			return nil, err
		}
		return ImportArgs{BlobID: b.ID, ServerID: t.Server, LineageID: int64(t.Lineage), CollectionID: t.CollectionID,
			CollectionName: t.Collection, NewName: t.NewName, Replace: t.Mode == lore.Replace,
			LongEntries: string(req.LongEntries), Actor: req.Actor}, nil
	})
}

// EnqueueBackupExport queues the export of server's workspace backup (one
// per server while queued or running).
func (q *Queue) EnqueueBackupExport(ctx context.Context, server string) (*rivertype.JobRow, error) {
	return q.enqueue(ctx, func(context.Context, *postgres.Store) (river.JobArgs, error) {
		return BackupExportArgs{ServerID: server}, nil
	})
}

// EnqueueEmbed queues server's embed job (one per server and force while
// queued); force computes every candidate's vector again
// (reindexEmbeddings).
func (q *Queue) EnqueueEmbed(ctx context.Context, server string, force bool) (*rivertype.JobRow, error) {
	return q.enqueue(ctx, func(context.Context, *postgres.Store) (river.JobArgs, error) {
		return EmbedArgs{ServerID: server, Force: force}, nil
	})
}

// previewMeta is stored with a backup preview's upload.
type previewMeta struct {
	LineageMap []LineageMapping `json:"lineageMap,omitempty"`
}

// StoreBackupPreview stores an uploaded backup with the lineage mapping it
// was previewed with, until the commit (EnqueueBackupImport) or expiry.
func (q *Queue) StoreBackupPreview(ctx context.Context, server, fileName string, data []byte, mapping []backup.LineageMapping) (lore.Blob, error) {
	meta, err := json.Marshal(previewMeta{LineageMap: mapping})
	if err != nil {
		return lore.Blob{}, fmt.Errorf("encode preview mapping: %w", err)
	}
	return q.Store.PutBlob(ctx, postgres.Blob{Server: server, Kind: postgres.BlobBackup, FileName: fileName, Data: data, ExpiresAt: q.blobExpiry(), Meta: meta})
}

// EnqueueBackupImport queues the commit of preview previewID of server.
// mapping, when non-nil, must equal the preview's (else ErrInvalid): the
// commit applies exactly what the preview showed. An expired, committed
// or foreign preview is ErrNotFound.
func (q *Queue) EnqueueBackupImport(ctx context.Context, server string, previewID int64, mapping *[]backup.LineageMapping, actor string) (*rivertype.JobRow, error) {
	return q.enqueue(ctx, func(ctx context.Context, st *postgres.Store) (river.JobArgs, error) {
		b, err := st.GetBlob(ctx, previewID)
		if err != nil || b.Server != server || b.Kind != postgres.BlobBackup || !b.ExpiresAt.After(q.Now()) {
			if err != nil && !errors.Is(err, lore.ErrNotFound) {
				return nil, err
			}
			return nil, fmt.Errorf("preview %d (expired, already imported or of another server): %w", previewID, lore.ErrNotFound)
		}
		var pm previewMeta
		_ = json.Unmarshal(b.Meta, &pm)
		if mapping != nil && !slices.Equal(*mapping, pm.LineageMap) {
			return nil, lore.Reject("lineageMap", i18n.LineageMapChanged, nil)
		}
		return BackupImportArgs{BlobID: previewID, ServerID: server, Mapping: pm.LineageMap, Actor: actor}, nil
	})
}

// EnqueueMigration stores a legacy memory migration's input and queues
// the run (MigrationWorker). It returns the run and its job.
func (q *Queue) EnqueueMigration(ctx context.Context, run postgres.MigrationRun) (postgres.MigrationRun, *rivertype.JobRow, error) {
	row, err := q.enqueue(ctx, func(ctx context.Context, st *postgres.Store) (river.JobArgs, error) {
		var err error
		if run, err = st.PutMigrationRun(ctx, run); err != nil {
			return nil, err
		}
		return MigrationArgs{RunID: run.ID}, nil
	})
	return run, row, err
}

// Progress is a running job's progress in [0, 1]: the server blocks done
// of a legacy memory migration (ok false for other kinds).
func (q *Queue) Progress(ctx context.Context, row *rivertype.JobRow) (float64, bool, error) {
	if row.Kind != transfer.JobMigration {
		return 0, false, nil
	}
	var a MigrationArgs
	if err := json.Unmarshal(row.EncodedArgs, &a); err != nil {
		return 0, false, nil
	}
	run, err := q.Store.GetMigrationRun(ctx, a.RunID)
	if errors.Is(err, lore.ErrNotFound) || (err == nil && run.Total == 0) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return float64(run.Done) / float64(run.Total), true, nil
}

// StoreArtifact stores a file made for download without a job (a card
// export), expiring after BlobTTL unless a.ExpiresAt is set.
func (q *Queue) StoreArtifact(ctx context.Context, a lore.Artifact) (lore.Artifact, error) {
	if a.ExpiresAt.IsZero() {
		a.ExpiresAt = q.blobExpiry()
	}
	return q.Store.PutArtifact(ctx, a)
}

// Job reads a job (river.ErrNotFound when unknown).
func (q *Queue) Job(ctx context.Context, id int64) (*rivertype.JobRow, error) {
	return q.Client.JobGet(ctx, id)
}

// JobReport reads a finished job's report (ErrNotFound).
func (q *Queue) JobReport(ctx context.Context, jobID int64) (lore.JobReport, error) {
	return q.Store.GetJobReport(ctx, jobID)
}

// ArtifactByJob, Artifact and ArtifactData read job artifacts
// (ErrNotFound); only ArtifactData reads the file.
func (q *Queue) ArtifactByJob(ctx context.Context, jobID int64) (lore.Artifact, error) {
	return q.Store.GetArtifactByJob(ctx, jobID)
}

// Artifact reads an artifact's metadata.
func (q *Queue) Artifact(ctx context.Context, id int64) (lore.Artifact, error) {
	return q.Store.GetArtifact(ctx, id)
}

// ArtifactData reads an artifact with its file.
func (q *Queue) ArtifactData(ctx context.Context, id int64) (lore.Artifact, error) {
	return q.Store.GetArtifactData(ctx, id)
}
