package postgres_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// BenchmarkLoadEnabledForScope measures the per-turn read of full scopes:
// 250 Serverwide entries in 5 collections and 250 entries of the persona
// lineage, each with ~1,000 characters of content, 5 keys and a small
// extensions object, one pending legacy tag on every tenth entry.
// cpu-ns/op is the CPU time of this process plus its one Postgres backend
// per read (see cpuBench).
//
//	./bin/loregate with-postgres -- go test -run '^$' -bench LoadEnabledForScope -benchmem -benchtime 100x ./lore/postgres/
func BenchmarkLoadEnabledForScope(b *testing.B) {
	ctx, pool, store, server, clock := cpuBench(b)
	tb := &testBundle{ctx: ctx, pool: pool, store: store, server: server}
	const lineage lore.Lineage = 3
	content := benchContent
	mk := func(l lore.Lineage, collection string, i int) lore.Entry {
		e := entry(tb.server, l, collection, fmt.Sprintf("%d %s", i, content))
		e.Title = fmt.Sprintf("Entry %d", i)
		e.Keys = []string{fmt.Sprintf("key%d", i), "dragon", "northern peaks", "old road", "/wyrm/i"}
		e.Extensions = map[string]json.RawMessage{"st.uid": json.RawMessage(fmt.Sprint(i)), "st.depth": json.RawMessage(`4`)}
		if i%10 == 0 {
			e.LegacyChannelTags = []string{"roleplay"}
		}
		return e
	}
	var persona []lore.Entry
	for i := range lore.MaxEntriesPerScope {
		persona = append(persona, mk(lineage, "", i))
	}
	_, err := tb.store.ReplacePersonaBook(tb.ctx, tb.server, lineage, persona)
	require.NoError(b, err)
	for c := range 5 {
		var batch []lore.Entry
		for i := range lore.MaxEntriesPerScope / 5 {
			batch = append(batch, mk(lore.Serverwide, "", c*1000+i))
		}
		_, _, err := tb.store.CreateCollectionWithEntries(tb.ctx, lore.Collection{Server: tb.server, Name: fmt.Sprintf("Book %d", c), Enabled: true}, batch)
		require.NoError(b, err)
	}
	_, err = tb.pool.Exec(tb.ctx, `ANALYZE`)
	require.NoError(b, err)

	for _, bc := range []struct {
		name    string
		lineage lore.Lineage
		want    int
	}{
		{"serverwide-250", lore.Serverwide, 250},
		{"serverwide-250+persona-250", lineage, 500},
	} {
		b.Run(bc.name, func(b *testing.B) {
			start := clock.now(b)
			for b.Loop() {
				snap, err := tb.store.LoadEnabledForScope(tb.ctx, tb.server, bc.lineage)
				if err != nil || len(snap.Entries) != bc.want {
					b.Fatalf("got %d entries, err %v", len(snap.Entries), err)
				}
			}
			b.ReportMetric(float64(clock.now(b)-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkListEntries measures a dashboard's entry page of a 250-entry
// persona book (~1,000 characters of content each): the whole book read
// (ListScope, what the unsorted connection pages in memory) beside one SQL
// page of 50 sorted by title with its count, and a search page.
//
//	make bench BENCH=ListEntries PKGS=./lore/postgres/
func BenchmarkListEntries(b *testing.B) {
	tb := setup(b)
	const lineage lore.Lineage = 3
	content := benchContent
	var book []lore.Entry
	for i := range lore.MaxEntriesPerScope {
		e := entry(tb.server, lineage, "", fmt.Sprintf("%d %s", i, content))
		e.Title = fmt.Sprintf("Entry %d", (i*37)%lore.MaxEntriesPerScope)
		e.Keys = []string{fmt.Sprintf("key%d", i), "dragon", "northern peaks"}
		book = append(book, e)
	}
	_, err := tb.store.ReplacePersonaBook(tb.ctx, tb.server, lineage, book)
	require.NoError(b, err)
	_, err = tb.pool.Exec(tb.ctx, `ANALYZE`)
	require.NoError(b, err)
	b.Run("scope-read-250", func(b *testing.B) {
		for b.Loop() {
			if es, err := tb.store.ListScope(tb.ctx, tb.server, lineage, ""); err != nil || len(es) != 250 {
				b.Fatalf("got %d entries, err %v", len(es), err)
			}
		}
	})
	for _, bc := range []struct {
		name   string
		search string
		want   int
	}{
		{"page-50-by-title+count", "", 50},
		{"search-page+count", "entry 1", 50}, // Entry 1, 10-19, 100-199: 111 match
	} {
		b.Run(bc.name, func(b *testing.B) {
			q := lore.EntryQuery{Server: tb.server, Lineage: lineage, Search: bc.search,
				Order: lore.EntryOrder{Field: lore.OrderTitle}, Limit: 50, Count: true}
			for b.Loop() {
				page, err := tb.store.ListEntries(tb.ctx, q)
				if err != nil || len(page.Entries) != bc.want {
					b.Fatalf("got %d entries, err %v", len(page.Entries), err)
				}
			}
		})
	}
}
