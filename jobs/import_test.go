package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"loregate/lore/sharedtest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/transfer"
)

func corpus(t *testing.T, rel string) []byte {
	t.Helper()
	return sharedtest.Read(t, "corpus", rel)
}

// TestWorkerKilledMidImport: a worker process that dies inside the import
// transaction (after writing every entry, the report and the blob deletion,
// before the commit) leaves no book behind; River rescues the stuck job and
// the retry imports it exactly once.
func TestWorkerKilledMidImport(t *testing.T) {
	ctx := context.Background()
	dbURL := postgrestest.NewDatabase(t)
	pool, err := pgxpool.New(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := postgres.New(pool)
	_, err = store.UpsertServer(ctx, serverA, "A")
	require.NoError(t, err)
	data := corpus(t, "st-worldinfo/bronya-rand__Eorzea.json")
	blob, err := store.PutBlob(ctx, postgres.Blob{Server: serverA, Kind: postgres.BlobLorebook, FileName: "Eorzea.json", Data: data, ExpiresAt: farFuture})
	require.NoError(t, err)
	job := insert(t, pool, jobs.ImportArgs{BlobID: blob.ID, ServerID: serverA}).Job

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=crash-import", helperDBEnv+"="+dbURL)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "helper must die: %v\n%s", err, out)
	require.Equal(t, 3, ee.ExitCode(), "helper output:\n%s", out)
	require.Contains(t, string(out), "dying before commit")

	// Nothing of the import survived; the job is stuck in running.
	n := countRows(t, pool, "SELECT count(*) FROM lorebook_entries WHERE server_id = $1", serverA)
	require.Zero(t, n, "no partial book")
	require.Zero(t, countRows(t, pool, "SELECT count(*) FROM lorebooks WHERE server_id = $1", serverA), "no empty book")
	require.Zero(t, countRows(t, pool, "SELECT count(*) FROM job_reports WHERE job_id = $1", job.ID))
	require.Zero(t, countRows(t, pool, "SELECT count(*) FROM import_history WHERE server_id = $1", serverA),
		"no history row for a write that did not commit")
	_, err = store.GetBlob(ctx, blob.ID)
	require.NoError(t, err, "the blob deletion rolled back too")
	var state string
	require.NoError(t, pool.QueryRow(ctx, "SELECT state FROM river_job WHERE id = $1", job.ID).Scan(&state))
	require.Equal(t, string(rivertype.JobStateRunning), state)

	// The dead process held River's leadership; its lease would expire on
	// its own (River's TTL), deleting it is that expiry, sooner.
	_, err = pool.Exec(ctx, "DELETE FROM river_leader")
	require.NoError(t, err)

	// A healthy worker rescues the stuck job at its rescuer's start-up run
	// and works the retry. River rescues a job only once it has been
	// running longer than both JobTimeout and RescueStuckJobsAfter, so wait
	// (a bounded poll on the database clock, no timing assertion) until the
	// dead attempt is that old.
	const stuck = 2 * time.Second
	deadline := time.Now().Add(waitLimit)
	for {
		var old bool
		require.NoError(t, pool.QueryRow(ctx, "SELECT attempted_at < now() - $2::interval FROM river_job WHERE id = $1",
			job.ID, (stuck+500*time.Millisecond).String()).Scan(&old))
		if old {
			break
		}
		require.True(t, time.Now().Before(deadline))
		time.Sleep(100 * time.Millisecond)
	}
	client := startClient(t, pool, jobs.Config{Deps: jobs.Deps{ImportTimeout: stuck}, RescueStuckJobsAfter: stuck, JobTimeout: stuck})
	row := waitFinal(t, client, job.ID)
	require.Equal(t, rivertype.JobStateCompleted, row.State, "errors: %v", row.Errors)
	require.Equal(t, 2, row.Attempt, "one killed attempt, one retry")

	entries, err := store.ListScope(ctx, serverA, lore.Serverwide, "")
	require.NoError(t, err)
	cols, err := store.ListCollections(ctx, serverA)
	require.NoError(t, err)
	require.Len(t, cols, 1)
	// Eorzea.json holds 29 entries: a second, duplicated write would show
	// as 58 (or as a duplicate count in the report).
	require.Len(t, entries, 29, "the book was written exactly once")
	require.Equal(t, 29, cols[0].EntryCount)
	rep, err := store.GetJobReport(ctx, job.ID)
	require.NoError(t, err)
	var report jobs.ImportReport
	require.NoError(t, json.Unmarshal(rep.Report, &report), "report: %s", rep.Report)
	require.Equal(t, 29, report.Added)
	require.Zero(t, report.Duplicates, "the retry did not find a first write to skip")
	require.Equal(t, 1, countRows(t, pool, "SELECT count(*) FROM job_reports WHERE job_id = $1", job.ID), "completed exactly once")
	hist, _, err := store.History(ctx, serverA, 10, 0)
	require.NoError(t, err)
	require.Len(t, hist, 1, "the committed retry is recorded once")
	require.Equal(t, report.ImportID, hist[0].ID)
	require.Equal(t, lore.HistoryFile, hist[0].Kind)
	require.Len(t, hist[0].CreatedIDs, 29)
	require.Equal(t, transfer.Hash(data), hist[0].SourceSHA256)
	_, err = store.GetBlob(ctx, blob.ID)
	require.ErrorIs(t, err, lore.ErrNotFound, "the blob is deleted with the commit")
}

func countRows(t *testing.T, pool *pgxpool.Pool, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), q, args...).Scan(&n))
	return n
}

// TestImportOutcomes: invalid input cancels with a clear error and writes
// nothing; a stale target is cancelled; a missing blob is cancelled.
func TestImportOutcomes(t *testing.T) {
	ctx := context.Background()
	pool := postgrestest.NewPool(t)
	store := postgres.New(pool)
	_, err := store.UpsertServer(ctx, serverA, "A")
	require.NoError(t, err)
	client := startClient(t, pool, jobs.Config{})
	c, err := store.CreateCollection(ctx, lore.Collection{Server: serverA, Name: "Book", Enabled: true})
	require.NoError(t, err)
	book := corpus(t, "st-worldinfo/bronya-rand__Eorzea.json")

	for _, tc := range []struct {
		name    string
		file    []byte
		args    jobs.ImportArgs
		noBlob  bool
		wantErr string
	}{
		{"not a lorebook", []byte(`{"hello": "world"}`), jobs.ImportArgs{}, false, "invalid file"},
		{"card without a book", corpus(t, "png/sillytavern-content__contest_Assistant_Amy_nobook.png"), jobs.ImportArgs{}, false, "no lorebook in this card"},
		{"stale target", book, jobs.ImportArgs{CollectionID: c.ID, CollectionName: "Old name"}, false, "renamed or deleted"},
		{"blob gone", nil, jobs.ImportArgs{}, true, "is gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			args.ServerID = serverA
			args.BlobID = 1 << 40
			if !tc.noBlob {
				b, err := store.PutBlob(ctx, postgres.Blob{Server: serverA, Kind: postgres.BlobLorebook, FileName: "f", Data: tc.file, ExpiresAt: farFuture})
				require.NoError(t, err)
				args.BlobID = b.ID
			}
			var res *rivertype.JobInsertResult
			require.NoError(t, store.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, _ *postgres.Store) error {
				var err error
				res, err = client.InsertTx(ctx, tx, args, nil)
				return err
			}))
			row := waitFinal(t, client, res.Job.ID)
			require.Equal(t, rivertype.JobStateCancelled, row.State)
			require.NotEmpty(t, row.Errors)
			require.Contains(t, row.Errors[len(row.Errors)-1].Error, tc.wantErr)
			n := countRows(t, pool, "SELECT count(*) FROM lorebook_entries WHERE server_id = $1", serverA)
			require.Zero(t, n)
		})
	}
}
