package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// cpuClock reads the CPU time (user + system) of this process and of one
// Postgres backend (from /proc/PID/schedstat, in nanoseconds; Linux only:
// the benchmark runs Postgres locally).
type cpuClock struct{ backend int }

func (c cpuClock) now(tb testing.TB) time.Duration {
	self, backend := c.parts(tb)
	return self + backend
}

// parts reads the CPU time of this process and of the backend apart.
func (c cpuClock) parts(tb testing.TB) (self, backend time.Duration) {
	var ru syscall.Rusage
	require.NoError(tb, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", c.backend))
	require.NoError(tb, err, "the benchmark reads the local Postgres backend's CPU time")
	ns, err := strconv.ParseInt(strings.Fields(string(raw))[0], 10, 64) // time on a CPU
	require.NoError(tb, err)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), time.Duration(ns)
}

// benchContent is the ~1,000 characters of content of a benchmark entry.
var benchContent = strings.Repeat("The dragon of the northern peaks guards the old road. ", 19)[:1000]

// cpuBench sets up a CPU-time benchmark: a fresh database on a pool of
// one connection (so one Postgres backend, which clock reads, does all of
// the store's work), its store and a registered server.
func cpuBench(b *testing.B) (context.Context, *pgxpool.Pool, *postgres.Store, string, cpuClock) {
	b.Helper()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(postgrestest.NewDatabase(b))
	require.NoError(b, err)
	cfg.MaxConns, cfg.MinConns = 1, 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(b, err)
	b.Cleanup(pool.Close)
	store := postgres.New(pool)
	server := snowflake(b)
	_, err = store.UpsertServer(ctx, server, "Bench")
	require.NoError(b, err)
	var pid int
	require.NoError(b, pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid))
	return ctx, pool, store, server, cpuClock{backend: pid}
}

// revisionVariant is one side of BenchmarkRevisionWrite: the revision
// trigger's state, the context of the updates and the CPU time and count
// of the updates made.
type revisionVariant struct {
	trigger string
	ctx     context.Context
	cpu, pg time.Duration // pg: the backend's part of cpu
	n       int
}

// BenchmarkRevisionWrite measures the CPU time (this process plus its one
// Postgres backend) of an entry update (~1,000 characters of content, 5
// keys) with the revision trigger and an actor (the revision settings set
// with the lock), and with neither. The two alternate in blocks of
// revisionBlock updates of the same entry, so that a change of the
// machine's load falls on both alike; without-cpu-ns/op and
// with-cpu-ns/op are the CPU time of one update of each, added-% what the
// revision adds (issue 29: at most 20%), without-pg-cpu-ns/op and
// with-pg-cpu-ns/op the Postgres backend's part of each.
//
//	./bin/loregate with-postgres -- go test -run '^$' -bench RevisionWrite -benchtime 3000x ./lore/postgres/
func BenchmarkRevisionWrite(b *testing.B) {
	ctx, pool, store, server, clock := cpuBench(b)
	e := entry(server, 3, "", benchContent)
	e.Title = "Dragon"
	e.Keys = []string{"dragon", "northern peaks", "old road", "wyrm", "gold"}
	e, err := store.InsertEntry(ctx, e)
	require.NoError(b, err)
	variants := []revisionVariant{{trigger: "DISABLE", ctx: ctx}, {trigger: "ENABLE", ctx: lore.WithActor(ctx, "user:42")}}
	const revisionBlock = 50
	var v *revisionVariant
	var self0, pg0 time.Duration
	stop := func() {
		self, pg := clock.parts(b)
		v.cpu += self + pg - self0 - pg0
		v.pg += pg - pg0
	}
	i := 0
	for b.Loop() {
		if i%revisionBlock == 0 {
			b.StopTimer()
			if v != nil {
				stop()
			}
			v = &variants[i/revisionBlock%2]
			_, err := pool.Exec(ctx, `ALTER TABLE lorebook_entries `+v.trigger+` TRIGGER lorebook_entries_revision_update`)
			require.NoError(b, err)
			b.StartTimer()
			self0, pg0 = clock.parts(b)
		}
		i++
		c := fmt.Sprintf("%d %s", i, benchContent)
		if _, err := store.UpdateEntry(v.ctx, server, 3, e.ID, lore.EntryPatch{Content: &c}); err != nil {
			b.Fatal(err)
		}
		v.n++
	}
	stop()
	if variants[0].n == 0 || variants[1].n == 0 {
		return // b.N under one block: nothing to compare
	}
	without := float64(variants[0].cpu) / float64(variants[0].n)
	with := float64(variants[1].cpu) / float64(variants[1].n)
	b.ReportMetric(without, "without-cpu-ns/op")
	b.ReportMetric(with, "with-cpu-ns/op")
	b.ReportMetric(100*(with-without)/without, "added-%")
	b.ReportMetric(float64(variants[0].pg)/float64(variants[0].n), "without-pg-cpu-ns/op")
	b.ReportMetric(float64(variants[1].pg)/float64(variants[1].n), "with-pg-cpu-ns/op")
}

// BenchmarkMove250 compares the CPU time (this process plus its Postgres
// backend) of moving 250 entries between persona books in one
// MoveEntries call with that of 250 single UpdateEntry calls on the same
// entries (issue 29: the move at most 0.2x). Both record revisions.
//
//	./bin/loregate with-postgres -- go test -run '^$' -bench Move250 -benchtime 20x ./lore/postgres/
func BenchmarkMove250(b *testing.B) {
	ctx, _, store, server, clock := cpuBench(b)
	content := benchContent
	book := make([]lore.Entry, lore.MaxEntriesPerScope)
	for i := range book {
		book[i] = entry(server, 1, "", fmt.Sprintf("%d %s", i, content))
		book[i].Title = fmt.Sprintf("Entry %d", i)
		book[i].Keys = []string{"dragon", "northern peaks", "old road", "wyrm", fmt.Sprint("k", i)}
	}
	_, err := store.ReplacePersonaBook(ctx, server, 1, book)
	require.NoError(b, err)
	ctx = lore.WithActor(ctx, "user:42")
	b.Run("250-single-updates", func(b *testing.B) {
		list, err := store.ListScope(ctx, server, 1, "")
		require.NoError(b, err)
		start := clock.now(b)
		n := 0
		for b.Loop() {
			n++
			for _, e := range list {
				if _, err := store.UpdateEntry(ctx, server, 1, e.ID, lore.EntryPatch{Order: &n}); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(clock.now(b)-start)/float64(b.N), "cpu-ns/op")
	})
	b.Run("move-250", func(b *testing.B) {
		from, to := lore.Lineage(1), lore.Lineage(2)
		var dur time.Duration
		for b.Loop() {
			b.StopTimer()
			list, err := store.ListScope(ctx, server, from, "")
			require.NoError(b, err)
			refs := make([]lore.EntryRef, len(list))
			for i, e := range list {
				refs[i] = lore.EntryRef{ID: e.ID}
			}
			b.StartTimer()
			start := clock.now(b)
			if _, err := store.MoveEntries(ctx, lore.MoveRequest{Server: server, From: from, Entries: refs, To: lore.BookRef{Lineage: to}}); err != nil {
				b.Fatal(err)
			}
			dur += clock.now(b) - start
			from, to = to, from
		}
		b.ReportMetric(float64(dur)/float64(b.N), "cpu-ns/op")
	})
}
