package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/postgres"
	"loregate/lore/transfer"
)

// LineageMapping maps one source lineage of a backup to a destination
// lineage (backup.LineageMapping).
type LineageMapping = backup.LineageMapping

// BackupImportArgs commits a previewed workspace backup (blob BlobID) into
// server ServerID.
type BackupImportArgs struct {
	BlobID   int64            `json:"blob_id"`
	ServerID string           `json:"server_id"`
	Mapping  []LineageMapping `json:"mapping,omitempty"`
	// Actor is who asked (recorded in the import history).
	Actor string `json:"actor,omitempty"`
}

// Kind is "workspace_backup_import".
func (BackupImportArgs) Kind() string { return transfer.JobBackupImport }

// InsertOpts: unique by args while queued or running (committing the same
// preview twice enqueues one job).
func (BackupImportArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: pendingStates()}}
}

// LineageMap converts the mapping for backup.Options.
func (a BackupImportArgs) LineageMap() map[lore.Lineage]lore.Lineage {
	m := make(map[lore.Lineage]lore.Lineage, len(a.Mapping))
	for _, p := range a.Mapping {
		m[lore.Lineage(p.From)] = lore.Lineage(p.To)
	}
	return m
}

// BackupImportReport is the import job's report (transfer.BackupReport).
type BackupImportReport = transfer.BackupReport

// BackupImportWorker works BackupImportArgs: in one transaction it imports
// the backup (transfer.ImportBackup: plan against the destination as it is
// now, replace the included scopes, append converted keyword memories,
// record the history), records the report, deletes the blob and completes
// the job. Any failure rolls everything back and leaves the blob for a
// retry.
type BackupImportWorker struct {
	river.WorkerDefaults[BackupImportArgs]
	Deps
}

// Timeout bounds one attempt: Deps.ImportTimeout.
func (w *BackupImportWorker) Timeout(*river.Job[BackupImportArgs]) time.Duration {
	return w.ImportTimeout
}

// Work imports the backup.
func (w *BackupImportWorker) Work(ctx context.Context, job *river.Job[BackupImportArgs]) error {
	a := job.Args
	blob, err := loadBlob(ctx, w.Deps, blobRef{ID: a.BlobID, Server: a.ServerID, Kind: postgres.BlobBackup,
		Name: "backup upload", Expect: "a backup"})
	if err != nil {
		return err
	}
	var rep BackupImportReport
	err = commitBlobJob(ctx, w.Deps, job, blob, "workspace backup import", func(ctx context.Context, st *postgres.Store) (any, error) {
		var err error
		rep, err = transfer.ImportBackup(ctx, st, a.ServerID, blob.FileName, blob.Data, a.LineageMap(), a.Actor)
		return rep, err
	}, nil)
	if err != nil {
		return err
	}
	w.Logger.InfoContext(ctx, "workspace backup imported", "job_id", job.ID, "server", a.ServerID,
		"scopes", len(rep.Scopes), "converted", rep.ConvertedAdded, "converted_duplicates", rep.ConvertedDuplicates)
	return nil
}
