package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"loregate/lore/backup"
	"loregate/lore/postgres"
	"loregate/lore/transfer"
)

// BackupExportArgs exports a server's workspace backup, the All Personas
// bundle (docs/contract.md#backups; lore/backup).
type BackupExportArgs struct {
	ServerID string `json:"server_id"`
}

// Kind is "workspace_backup_export".
func (BackupExportArgs) Kind() string { return transfer.JobBackupExport }

// InsertOpts: unique per server while one is queued or running (a second
// request returns the first job).
func (BackupExportArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: pendingStates()}}
}

// pendingStates are the states in which a unique job blocks another:
// River's required ones plus retryable, without the finished states, so a
// new job may run once the previous one finished.
func pendingStates() []rivertype.JobState {
	return []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
		rivertype.JobStateRunning, rivertype.JobStateScheduled}
}

// BackupExportReport is the export job's report.
type BackupExportReport struct {
	ArtifactID int64  `json:"artifact_id"`
	FileName   string `json:"file_name"`
	SizeBytes  int64  `json:"size_bytes"`
	SHA256     string `json:"sha256"`
	// Scopes maps "serverwide" and "lineage:N" to entry counts.
	Scopes    map[string]int `json:"scopes"`
	ExpiresAt time.Time      `json:"expires_at"`
}

// BackupExportWorker works BackupExportArgs: one consistent read of the
// server's lore (postgres.Store.ReadWorkspace), the bundle encoded as JSON,
// and, in one transaction, the artifact (with checksum and expiry), the
// report and the job's completion.
type BackupExportWorker struct {
	river.WorkerDefaults[BackupExportArgs]
	Deps
}

// Timeout bounds one attempt: Deps.ImportTimeout.
func (w *BackupExportWorker) Timeout(*river.Job[BackupExportArgs]) time.Duration {
	return w.ImportTimeout
}

// Work exports. An unknown server cancels the job.
func (w *BackupExportWorker) Work(ctx context.Context, job *river.Job[BackupExportArgs]) error {
	server := job.Args.ServerID
	ws, err := w.Store.ReadWorkspace(ctx, server)
	if err != nil {
		return outcome(err)
	}
	now := w.NowFunc()
	doc := backup.Build(ws.Server, ws.Personas, ws.Collections, ws.Entries, ws.Books(), now)
	data, err := backup.Encode(doc)
	if err != nil {
		return river.JobCancel(err)
	}
	scopes := map[string]int{"serverwide": 0}
	for _, e := range ws.Entries {
		key := "serverwide"
		if !e.Lineage.IsServerwide() {
			key = fmt.Sprintf("lineage:%d", int64(e.Lineage))
		}
		scopes[key]++
	}
	err = w.Store.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		a, err := st.PutArtifact(ctx, postgres.Artifact{
			Server: server, JobID: job.ID, Kind: "backup", ContentType: "application/json",
			FileName: fmt.Sprintf("loregate-backup-%s-%s.json", server, now.UTC().Format("20060102T150405Z")),
			Data:     data, ExpiresAt: now.Add(w.ArtifactTTL),
		})
		if err != nil {
			return err
		}
		raw, err := json.Marshal(BackupExportReport{ArtifactID: a.ID, FileName: a.FileName, SizeBytes: a.Size, SHA256: a.SHA256, Scopes: scopes, ExpiresAt: a.ExpiresAt})
		if err != nil {
			return err
		}
		if err := st.PutJobReport(ctx, postgres.JobReport{JobID: job.ID, Server: server, Kind: job.Kind, Report: raw}); err != nil {
			return err
		}
		return completeTx(ctx, tx, job)
	})
	if err != nil {
		return outcome(err)
	}
	w.Logger.InfoContext(ctx, "workspace backup exported", "job_id", job.ID, "server", server, "entries", len(ws.Entries), "bytes", len(data))
	return nil
}
