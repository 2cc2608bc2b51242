package scopecache

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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
// (uncached) load and compile as load-ns, the estimated bytes the cached
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
			var loadNs int64
			for range 3 {
				c.Clear()
				start := time.Now()
				turn()
				loadNs += int64(time.Since(start))
				loads++
			}
			res := turn()
			require.NotEmpty(b, res.Admitted)
			per := c.Stats().Bytes
			b.ResetTimer()
			for b.Loop() {
				turn()
			}
			b.ReportMetric(float64(loadNs/int64(loads)), "load-ns")
			b.ReportMetric(float64(per), "bytes/scope")
			b.ReportMetric(float64(per)/float64(n), "bytes/entry")
			b.ReportMetric(float64(DefaultMaxBytes/per), "scopes/256MiB")
		})
	}
}
