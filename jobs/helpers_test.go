package jobs_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"loregate/lore/sharedtest"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"loregate/jobs"
	"loregate/lore/postgres"
)

const (
	serverA = "111111111111111111"
	serverB = "222222222222222222"
	// helperEnv selects a helper process mode of this test binary.
	helperEnv   = "LOREGATE_JOBS_TEST_HELPER"
	helperDBEnv = "LOREGATE_JOBS_TEST_DB"
)

// TestMain lets the test binary double as a worker process that dies inside
// the import transaction (TestWorkerKilledMidImport).
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "crash-import" {
		os.Exit(crashingWorker(os.Getenv(helperDBEnv)))
	}
	os.Exit(m.Run())
}

// crashingWorker works import jobs and exits with status 3 from inside the
// import transaction, after every write and before the commit: a real
// process death, the connection drops and Postgres rolls back.
func crashingWorker(dbURL string) int {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.ImportWorker{
		Deps: jobs.Deps{Store: postgres.New(pool), Logger: slog.New(slog.DiscardHandler)},
		BeforeCommitFunc: func(context.Context, int64) {
			fmt.Println("dying before commit")
			os.Exit(3)
		},
	})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Logger: slog.New(slog.DiscardHandler), Workers: workers,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := client.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	time.Sleep(2 * time.Minute) // the job kills the process long before
	return 4
}

func testLogger(t *testing.T) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel()}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// startClient starts a working client with cfg (Store and Logger filled
// in), stopped when the test ends.
func startClient(t *testing.T, pool *pgxpool.Pool, cfg jobs.Config) *river.Client[pgx.Tx] {
	t.Helper()
	if cfg.Store == nil {
		cfg.Store = postgres.New(pool)
	}
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	cfg.Work = true
	client, err := jobs.NewClient(pool, cfg)
	require.NoError(t, err)
	require.NoError(t, client.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		require.NoError(t, client.StopAndCancel(ctx))
	})
	return client
}

// waitFinal polls the job until it is completed, cancelled or discarded
// (a bounded wait, not a timing assertion).
func waitFinal(t *testing.T, client *river.Client[pgx.Tx], id int64) *rivertype.JobRow {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		row, err := client.JobGet(context.Background(), id)
		require.NoError(t, err)
		switch row.State {
		case rivertype.JobStateCompleted, rivertype.JobStateCancelled, rivertype.JobStateDiscarded:
			return row
		}
		require.True(t, time.Now().Before(deadline), "job %d still %s after %s (errors %v)", id, row.State, waitLimit, row.Errors)
		time.Sleep(50 * time.Millisecond)
	}
}

// waitKindDone waits until a job of kind has completed: a periodic job
// that runs on start (river.PeriodicJobOpts.RunOnStart) is enqueued only
// once the client is elected leader, which on a busy machine can come after
// the test's own writes.
func waitKindDone(t *testing.T, client *river.Client[pgx.Tx], kind string) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	params := river.NewJobListParams().Kinds(kind).States(rivertype.JobStateCompleted).First(1)
	for {
		res, err := client.JobList(context.Background(), params)
		require.NoError(t, err)
		if len(res.Jobs) > 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "no %s job completed after %s", kind, waitLimit)
		time.Sleep(50 * time.Millisecond)
	}
}

// insert enqueues args with an insert-only client.
func insert(t *testing.T, pool *pgxpool.Pool, args river.JobArgs) *rivertype.JobInsertResult {
	t.Helper()
	client, err := jobs.NewClient(pool, jobs.Config{Deps: jobs.Deps{Store: postgres.New(pool)}})
	require.NoError(t, err)
	res, err := client.Insert(context.Background(), args, nil)
	require.NoError(t, err)
	return res
}

var farFuture = time.Now().Add(24 * time.Hour)

func logLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("LOREGATE_TEST_LOG_LEVEL"))); err != nil {
		return slog.LevelWarn
	}
	return l
}

// waitLimit bounds every wait for a job.
const waitLimit = 90 * time.Second

func mustRead(tb testing.TB, rel string) []byte {
	tb.Helper()
	return sharedtest.Read(tb, "corpus", rel)
}
