package jobs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/transfer"
)

// TestMigrationJobProgress: a 2,000-memory migration across 20 servers
// runs as a job, records its progress after every server block (visible in
// the database while the job runs), commits one history record per server
// and finishes with the report. TestSoakMigrationJobProgress (make soak)
// runs it with 10,000 memories across 100 servers.
func TestMigrationJobProgress(t *testing.T) { testMigrationJobProgress(t, 20) }

// testMigrationJobProgress is TestMigrationJobProgress with servers
// servers of 100 memories each.
func testMigrationJobProgress(t *testing.T, servers int) {
	const perServer = 100
	ctx := context.Background()
	pool := postgrestest.NewPool(t)
	store := postgres.New(pool)
	var input bytes.Buffer
	channelOnly := 0
	for i := range servers {
		server := fmt.Sprintf("1%017d", 4000+i)
		_, err := store.UpsertServer(ctx, server, fmt.Sprintf("Guild %d", i))
		require.NoError(t, err)
		for j := range perServer {
			m := map[string]any{"id": fmt.Sprintf("s%d-m%d", i, j), "server_id": server,
				"content": fmt.Sprintf("Memory %d of guild %d.", j, i), "tags": []string{fmt.Sprintf("topic %d", j), "#general"}}
			if j%2 == 1 {
				m["persona_lineage_id"] = 1
			}
			if j%50 == 0 {
				m["tags"] = []string{"#only-a-channel"}
				channelOnly++
			}
			line, err := json.Marshal(m)
			require.NoError(t, err)
			input.Write(append(line, '\n'))
		}
	}

	inserter, err := jobs.NewClient(pool, jobs.Config{Deps: jobs.Deps{Store: store}})
	require.NoError(t, err)
	queue := &jobs.Queue{Store: store, Client: inserter}
	run, job, err := queue.EnqueueMigration(ctx, postgres.MigrationRun{SourceName: "memories.jsonl", SourceSHA256: transfer.Hash(input.Bytes()),
		Apply: true, Actor: "cli", Data: input.Bytes()})
	require.NoError(t, err)
	require.Equal(t, transfer.JobMigration, job.Kind)

	type seen struct {
		done, total, stored int
		api                 float64
	}
	var progress []seen
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.MigrationWorker{
		// One attempt: the test counts progress reports, and an attempt cut by
		// the default one-minute bound on a loaded machine would start again.
		Deps: jobs.Deps{Store: store, Logger: slog.New(slog.DiscardHandler), ImportTimeout: 10 * time.Minute},
		AfterBlockFunc: func(done, total int) {
			// The worker's goroutine: record, assert in the test.
			r, err := store.GetMigrationRun(ctx, run.ID)
			if err != nil {
				r.Done = -1
			}
			api := -1.0
			if row, err := queue.Job(ctx, job.ID); err == nil {
				api, _, _ = queue.Progress(ctx, row)
			}
			progress = append(progress, seen{done, total, r.Done, api})
		},
	})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: slog.New(slog.DiscardHandler), Workers: workers,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}}})
	require.NoError(t, err)
	require.NoError(t, client.Start(ctx))
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		require.NoError(t, client.StopAndCancel(sctx))
	})
	row := waitFinal(t, client, job.ID)
	require.Equal(t, rivertype.JobStateCompleted, row.State, "errors: %v", row.Errors)

	require.Len(t, progress, servers)
	for i, p := range progress {
		require.Equal(t, seen{i + 1, servers, i + 1, float64(i+1) / float64(servers)}, p, "progress is stored after each block and read by the API")
	}
	done, err := store.GetMigrationRun(ctx, run.ID)
	require.NoError(t, err)
	require.NotNil(t, done.FinishedAt)
	require.Nil(t, done.Data, "the input is dropped when the run finishes")
	var rep transfer.MigrationReport
	require.NoError(t, json.Unmarshal(done.Report, &rep))
	converted := servers*perServer - channelOnly
	require.Equal(t, servers*perServer, rep.Read)
	require.Equal(t, converted, rep.Added)
	require.Equal(t, channelOnly, rep.ChannelOnly)
	require.Zero(t, rep.Failed)
	require.Equal(t, converted, countRows(t, pool, "SELECT count(*) FROM lorebook_entries"))
	require.Equal(t, servers, countRows(t, pool, "SELECT count(*) FROM import_history WHERE kind = 'migration'"))
	require.Equal(t, converted, countRows(t, pool, "SELECT count(*) FROM legacy_memory_sources"))
	recs, _, err := store.History(ctx, fmt.Sprintf("1%017d", 4000), 5, 0)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.Equal(t, lore.HistoryMigration, recs[0].Kind)
	require.Len(t, recs[0].CreatedIDs, perServer-perServer/50)
}
