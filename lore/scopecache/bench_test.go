package scopecache

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// BenchmarkScopeScale measures one persona scope of 250, 1,000 and 5,000
// entries (the deployment limit raised to the 5,000 ceiling) of 1,000
// characters and 4 keys each: a cached turn (Load from memory, matcher,
// 20 messages of ~150 characters, the bot's options: no trace) as ns/op, the first
// (uncached) load and compile as load-ns (wall), load-cpu-ns (this
// process's CPU) and load-pg-cpu-ns (the cluster's, from /proc in 10 ms
// ticks), the estimated bytes the cached
// scope holds with its matcher, and how many such scopes a 256 MiB budget
// keeps. Run with:
//
//	make bench PKGS=./lore/scopecache/ BENCH=ScopeScale
func BenchmarkScopeScale(b *testing.B) {
	pool := postgrestest.NewPool(b)
	ctx := context.Background()
	store := postgres.New(pool).WithLimits(lore.Limits{ScopeEntries: lore.CeilingScopeEntries})
	_, err := store.UpsertServer(ctx, serverA, "bench")
	require.NoError(b, err)
	msgs := make([]string, 20)
	for i := range msgs {
		msgs[i] = fmt.Sprintf("Message %d talks about key%dx and the weather, then about other%dy in passing, with more words for a turn.", i, i*37, i*53)
	}
	content := strings.Repeat("A paragraph of world info about the place and the people in it. ", 16)[:1000]
	for _, n := range []int{250, 1000, 5000} {
		lineage := lore.Lineage(n)
		entries := make([]lore.Entry, n)
		for i := range entries {
			e := lore.NewEntry()
			e.Server, e.Lineage = serverA, lineage
			e.Title = fmt.Sprintf("entry %d", i)
			e.Keys = []string{fmt.Sprintf("key%dx", i), fmt.Sprintf("other%dy", i), fmt.Sprintf("third %d", i), fmt.Sprintf("fourth%d", i)}
			e.Content = content
			entries[i] = e
		}
		_, err := store.ReplacePersonaBook(ctx, serverA, lineage, entries)
		require.NoError(b, err)
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			c := New(store, Config{})
			c.listening.Store(true) // pushed invalidation: no per-turn check
			depth := 20
			opts := activation.Options{ScanDepth: &depth, Texts: activation.NewTextCache(0), SkipTrace: true}
			turn := func() activation.Result {
				s, err := c.Load(ctx, serverA, lineage)
				require.NoError(b, err)
				in := activation.Input{Entries: s.Snapshot.Entries, Collections: s.Snapshot.Collections, Messages: msgs,
					Server: serverA, Lineage: lineage}
				res, err := s.Matcher(&in, opts.MatchOptions()).Activate(ctx, in, opts)
				require.NoError(b, err)
				return res
			}
			loads := 0
			var loadNs, loadCPU, loadPG int64
			for range 3 {
				c.Clear()
				cpu0, pg0 := selfCPU(), pgCPU(b, pool)
				start := time.Now()
				turn()
				loadNs += int64(time.Since(start))
				loadCPU += int64(selfCPU() - cpu0)
				loadPG += int64(pgCPU(b, pool) - pg0)
				loads++
			}
			res := turn()
			require.NotEmpty(b, res.Admitted())
			per := c.Stats().Bytes
			b.ResetTimer()
			for b.Loop() {
				turn()
			}
			b.ReportMetric(float64(loadNs/int64(loads)), "load-ns")
			b.ReportMetric(float64(loadCPU/int64(loads)), "load-cpu-ns")
			b.ReportMetric(float64(loadPG/int64(loads)), "load-pg-cpu-ns")
			b.ReportMetric(float64(per), "bytes/scope")
			b.ReportMetric(float64(per)/float64(n), "bytes/entry")
			b.ReportMetric(float64(DefaultMaxBytes/per), "scopes/256MiB")
		})
	}
}

// selfCPU is this process's CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pgCPU is the CPU time so far of every process of the cluster that
// pg_stat_activity lists, from /proc/PID/stat (USER_HZ ticks of 10 ms).
func pgCPU(b *testing.B, pool *pgxpool.Pool) time.Duration {
	rows, err := pool.Query(context.Background(), `SELECT pid FROM pg_stat_activity`)
	require.NoError(b, err)
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	require.NoError(b, err)
	var sum time.Duration
	for _, pid := range pids {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // ended meanwhile
		}
		f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		sum += time.Duration(utime+stime) * 10 * time.Millisecond
	}
	return sum
}
