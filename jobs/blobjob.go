package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"loregate/lore"
	"loregate/lore/postgres"
)

// The skeleton of the workers that work an uploaded blob (ImportWorker,
// BackupImportWorker): loadBlob reads the job's blob and checks that it is
// the server's and of the expected kind; commitBlobJob then runs the
// worker's write and, in the same transaction, records its report,
// deletes the blob and completes the job. A failure rolls all of it back
// and leaves the blob for a retry.

// blobRef is the blob a job names and what it must be.
type blobRef struct {
	ID     int64
	Server string
	// Kind is the blob kind the job works (postgres.BlobLorebook or
	// postgres.BlobBackup).
	Kind string
	// Name names the upload in the cancel messages ("upload", "backup
	// upload"); Expect what it must be ("a lorebook upload", "a backup").
	Name, Expect string
}

// loadBlob returns the blob of ref. A missing blob (expired or already
// imported) or one of another server or kind cancels the job; a database
// failure is returned as is (retried).
func loadBlob(ctx context.Context, d Deps, ref blobRef) (postgres.Blob, error) {
	blob, err := d.Store.GetBlob(ctx, ref.ID)
	if errors.Is(err, lore.ErrNotFound) {
		return blob, river.JobCancel(fmt.Errorf("%s %d is gone (expired or already imported)", ref.Name, ref.ID))
	}
	if err != nil {
		return blob, err
	}
	if blob.Server != ref.Server || blob.Kind != ref.Kind {
		return blob, river.JobCancel(fmt.Errorf("upload %d is not %s of this server", ref.ID, ref.Expect))
	}
	return blob, nil
}

// commitBlobJob runs write in one transaction with the job's report (what
// write returns, as JSON), the deletion of blob and the job's completion;
// beforeCommit, when set, runs last inside it (tests). A failure is
// logged as "<what> failed" and mapped by outcome.
func commitBlobJob[T river.JobArgs](ctx context.Context, d Deps, job *river.Job[T], blob postgres.Blob, what string,
	write func(ctx context.Context, st *postgres.Store) (report any, err error), beforeCommit func(ctx context.Context, jobID int64)) error {
	err := d.Store.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		rep, err := write(ctx, st)
		if err != nil {
			return err
		}
		raw, err := json.Marshal(rep)
		if err != nil {
			return fmt.Errorf("encode report: %w", err)
		}
		if err := st.PutJobReport(ctx, postgres.JobReport{JobID: job.ID, Server: blob.Server, Kind: job.Kind, Report: raw}); err != nil {
			return err
		}
		if err := st.DeleteBlob(ctx, blob.ID); err != nil {
			return err
		}
		if beforeCommit != nil {
			beforeCommit(ctx, job.ID)
		}
		return completeTx(ctx, tx, job)
	})
	if err != nil {
		d.Logger.WarnContext(ctx, what+" failed", "job_id", job.ID, "server", blob.Server, "attempt", job.Attempt, "err", err)
		return outcome(err)
	}
	return nil
}
