package jobs_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// BenchmarkImportJobs measures end-to-end import throughput of small books:
// each op is one blob + job inserted in one transaction, worked by a River
// client (4 workers) and committed with its report; b.N jobs per run,
// reported as imports/s.
func BenchmarkImportJobs(b *testing.B) {
	ctx := context.Background()
	pool := postgrestest.NewPool(b)
	store := postgres.New(pool)
	data := mustRead(b, "st-worldinfo/bronya-rand__Eorzea.json")
	client, err := jobs.NewClient(pool, jobs.Config{Deps: jobs.Deps{Store: store}, Work: true})
	require.NoError(b, err)
	done, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled, river.EventKindJobFailed)
	defer cancel()
	require.NoError(b, client.Start(ctx))
	defer func() { _ = client.Stop(ctx) }()
	// Each book goes to its own persona lineage (one scope each).
	const server = "111111111111111111"
	_, err = store.UpsertServer(ctx, server, "bench")
	require.NoError(b, err)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		require.NoError(b, store.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
			blob, err := st.PutBlob(ctx, postgres.Blob{Server: server, Kind: postgres.BlobLorebook, FileName: "book.json", Data: data, ExpiresAt: farFuture})
			if err != nil {
				return err
			}
			_, err = client.InsertTx(ctx, tx, jobs.ImportArgs{BlobID: blob.ID, ServerID: server, LineageID: int64(i + 1)}, nil)
			return err
		}))
	}
	for n := 0; n < b.N; {
		ev := <-done
		if ev.Job.Kind != (jobs.ImportArgs{}).Kind() {
			continue
		}
		require.Equal(b, rivertype.JobStateCompleted, ev.Job.State)
		n++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "imports/s")
}

// BenchmarkBackupExport measures a full server's workspace backup export
// (read in one snapshot, encode, store the artifact, complete): 250
// Serverwide entries in 5 collections plus 10 persona lineages of 250
// entries each (2,750 entries of 1,000 characters).
func BenchmarkBackupExport(b *testing.B) {
	ctx := context.Background()
	pool := postgrestest.NewPool(b)
	store := postgres.New(pool)
	const server = "111111111111111111"
	_, err := store.UpsertServer(ctx, server, "bench")
	require.NoError(b, err)
	content := make([]byte, 1000)
	for i := range content {
		content[i] = 'a' + byte(i%26)
	}
	var sw []lore.Entry
	var cols []lore.Collection
	for c := 0; c < 5; c++ {
		cols = append(cols, lore.Collection{Name: fmt.Sprintf("Book %d", c), Enabled: true})
	}
	mk := func(i int) lore.Entry {
		e := lore.NewEntry()
		e.Title, e.Content, e.Keys = fmt.Sprintf("entry %d", i), string(content), []string{"k1", "k2", "k3"}
		return e
	}
	for i := 0; i < lore.MaxEntriesPerScope; i++ {
		e := mk(i)
		e.Collection = cols[i%5].Name
		sw = append(sw, e)
	}
	scopes := []lore.ScopeReplacement{{Lineage: lore.Serverwide, Entries: sw, Collections: cols}}
	for l := 1; l <= 10; l++ {
		var es []lore.Entry
		for i := 0; i < lore.MaxEntriesPerScope; i++ {
			es = append(es, mk(i))
		}
		scopes = append(scopes, lore.ScopeReplacement{Lineage: lore.Lineage(l), Entries: es})
	}
	require.NoError(b, store.ReplaceScopes(ctx, server, scopes))
	client, err := jobs.NewClient(pool, jobs.Config{Deps: jobs.Deps{Store: store}, Work: true})
	require.NoError(b, err)
	done, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled, river.EventKindJobFailed)
	defer cancel()
	require.NoError(b, client.Start(ctx))
	defer func() { _ = client.Stop(ctx) }()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := client.Insert(ctx, jobs.BackupExportArgs{ServerID: server}, nil)
		require.NoError(b, err)
		for {
			ev := <-done
			if ev.Job.ID == res.Job.ID {
				require.Equal(b, rivertype.JobStateCompleted, ev.Job.State)
				break
			}
		}
	}
}
