package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/postgres"
)

// LineageMapping maps one source lineage of a backup to a destination
// lineage (the bucket mapping of seed 000).
type LineageMapping struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// BackupImportArgs commits a previewed workspace backup (blob BlobID) into
// server ServerID.
type BackupImportArgs struct {
	BlobID   int64            `json:"blob_id"`
	ServerID string           `json:"server_id"`
	Mapping  []LineageMapping `json:"mapping,omitempty"`
}

// Kind is "workspace_backup_import".
func (BackupImportArgs) Kind() string { return "workspace_backup_import" }

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

// BackupImportReport is the import job's report: the plan's per-scope
// counts and memory report, plus what the conversions actually added.
type BackupImportReport struct {
	Scopes   []backup.ScopePlan  `json:"scopes"`
	Memories backup.MemoryReport `json:"memories"`
	// ConvertedAdded and ConvertedDuplicates: converted memories written,
	// and those skipped as already present (repeated imports).
	ConvertedAdded      int `json:"converted_added"`
	ConvertedDuplicates int `json:"converted_duplicates"`
}

// PlanBackup decodes data and plans its import into server with the
// destination's current settings and counts (the preview). Errors wrap
// lore.ErrInvalid for a file that is not a backup or a bad mapping.
func PlanBackup(ctx context.Context, st lore.Store, server string, data []byte, mapping map[lore.Lineage]lore.Lineage) (backup.ImportPlan, error) {
	doc, err := backup.Decode(data)
	if err != nil {
		return backup.ImportPlan{}, err
	}
	sv, err := st.GetServer(ctx, server)
	if err != nil {
		return backup.ImportPlan{}, err
	}
	counts, err := st.CountByScope(ctx, server)
	if err != nil {
		return backup.ImportPlan{}, err
	}
	return backup.Plan(doc, backup.Options{Server: server, LineageMap: mapping, MemoryTagging: sv.Settings.MemoryTagging, Current: counts})
}

// BackupImportWorker works BackupImportArgs: in one transaction it plans
// against the destination as it is now, replaces every included scope
// (lore.Store.ReplaceScopes: whole batch validated first, absent scopes
// untouched), appends converted keyword memories (Append: deduplicated
// against the scope, so repeated imports add them once), records the report,
// deletes the blob and completes the job. Any failure rolls everything back
// and leaves the blob for a retry.
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
	blob, err := w.Store.GetBlob(ctx, a.BlobID)
	if errors.Is(err, lore.ErrNotFound) {
		return river.JobCancel(fmt.Errorf("backup upload %d is gone (expired or already imported)", a.BlobID))
	}
	if err != nil {
		return err
	}
	if blob.Server != a.ServerID || blob.Kind != postgres.BlobBackup {
		return river.JobCancel(fmt.Errorf("upload %d is not a backup of this server", a.BlobID))
	}
	var rep BackupImportReport
	err = w.Store.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		plan, err := PlanBackup(ctx, st, a.ServerID, blob.Data, a.LineageMap())
		if err != nil {
			return err
		}
		rep = BackupImportReport{Scopes: plan.Scopes, Memories: plan.Memories}
		if len(plan.Replace) > 0 {
			if err := st.ReplaceScopes(ctx, a.ServerID, plan.Replace); err != nil {
				return err
			}
		}
		for _, sc := range plan.Scopes {
			conv := plan.Conversions[sc.Lineage]
			if len(conv) == 0 {
				continue
			}
			target := lore.ImportTarget{Server: a.ServerID, Lineage: sc.Lineage}
			if sc.Lineage.IsServerwide() {
				c, err := st.GetCollectionByName(ctx, a.ServerID, lore.DefaultCollection)
				if errors.Is(err, lore.ErrNotFound) {
					c, err = st.CreateCollection(ctx, lore.Collection{Server: a.ServerID, Name: lore.DefaultCollection, Enabled: true})
				}
				if err != nil {
					return err
				}
				target.CollectionID, target.Collection = c.ID, c.Name
			}
			res, err := st.ImportEntries(ctx, target, lore.Append, conv)
			if err != nil {
				return err
			}
			rep.ConvertedAdded += res.Added
			rep.ConvertedDuplicates += res.Duplicates
		}
		raw, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		if err := st.PutJobReport(ctx, postgres.JobReport{JobID: job.ID, Server: a.ServerID, Kind: job.Kind, Report: raw}); err != nil {
			return err
		}
		if err := st.DeleteBlob(ctx, blob.ID); err != nil {
			return err
		}
		return completeTx(ctx, tx, job)
	})
	if err != nil {
		w.Logger.WarnContext(ctx, "workspace backup import failed", "job_id", job.ID, "server", a.ServerID, "attempt", job.Attempt, "err", err)
		return outcome(err)
	}
	w.Logger.InfoContext(ctx, "workspace backup imported", "job_id", job.ID, "server", a.ServerID,
		"scopes", len(rep.Scopes), "converted", rep.ConvertedAdded, "converted_duplicates", rep.ConvertedDuplicates)
	return nil
}
