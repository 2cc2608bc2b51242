package postgres_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// bigBook fills a collection and a persona lineage with n entries each
// (a store allowing 300 per scope) whose titles, orders, priorities and
// update times vary, and returns them as stored.
func bigBook(t *testing.T, n int) (*testBundle, lore.Collection, map[lore.Lineage][]lore.Entry) {
	t.Helper()
	b := setup(t)
	b.store = b.store.WithLimits(lore.Limits{ScopeEntries: 300})
	col := b.collection(t, "Big")
	for _, l := range []lore.Lineage{lore.Serverwide, 6} {
		batch := make([]lore.Entry, n)
		for i := range batch {
			name := string(rune('a'+(i*7)%26)) + fmt.Sprintf("%03d", (i*37)%n)
			if i%2 == 0 {
				name = strings.ToUpper(name[:1]) + name[1:]
			}
			e := entry(b.server, l, "", fmt.Sprintf("body %d of scope %d", i, l))
			e.Title, e.Order, e.Priority = name, (i*13)%50, (i*29)%7
			e.SecondaryKeys = []string{fmt.Sprintf("second%d", i)}
			if l.IsServerwide() {
				e.Collection = col.Name
			}
			batch[i] = e
		}
		target := lore.ImportTarget{Server: b.server, Lineage: l}
		if l.IsServerwide() {
			target.CollectionID, target.Collection = col.ID, col.Name
		}
		_, err := b.store.ImportEntries(b.ctx, target, lore.Append, batch)
		require.NoError(t, err)
	}
	out := map[lore.Lineage][]lore.Entry{}
	for _, l := range []lore.Lineage{lore.Serverwide, 6} {
		all, err := b.store.ListScope(b.ctx, b.server, l, "")
		require.NoError(t, err)
		// Every fifth entry is edited, so update times differ.
		for i := 0; i < len(all); i += 5 {
			all[i], err = b.store.UpdateEntry(b.ctx, b.server, l, all[i].ID, lore.EntryPatch{Enabled: ptr(i%10 != 0)})
			require.NoError(t, err)
		}
		out[l] = all
	}
	return b, col, out
}

// TestListEntriesPagesEveryOrder pages a 260-entry book with each sort
// key in both directions and checks the pages join into exactly the
// expected order (key, then id), with totals and enabled filtering.
func TestListEntriesPagesEveryOrder(t *testing.T) {
	t.Parallel()
	b, col, books := bigBook(t, 260)
	keys := map[lore.EntryOrderField]func(a, c lore.Entry) int{
		lore.OrderTitle:          func(a, c lore.Entry) int { return strings.Compare(strings.ToLower(a.Title), strings.ToLower(c.Title)) },
		lore.OrderInsertionOrder: func(a, c lore.Entry) int { return cmp.Compare(a.Order, c.Order) },
		lore.OrderPriority:       func(a, c lore.Entry) int { return cmp.Compare(a.Priority, c.Priority) },
		lore.OrderUpdatedAt:      func(a, c lore.Entry) int { return a.UpdatedAt.Compare(c.UpdatedAt) },
		lore.OrderCreatedAt:      func(a, c lore.Entry) int { return a.CreatedAt.Compare(c.CreatedAt) },
	}
	for _, l := range []lore.Lineage{lore.Serverwide, 6} {
		for field, key := range keys {
			for _, desc := range []bool{false, true} {
				for _, enabledOnly := range []bool{false, true} {
					order := lore.EntryOrder{Field: field, Desc: desc}
					t.Run(fmt.Sprintf("lineage %d %s enabledOnly=%v", l, order, enabledOnly), func(t *testing.T) {
						var want []int64
						sorted := slices.Clone(books[l])
						slices.SortFunc(sorted, func(a, c lore.Entry) int {
							r := cmp.Or(key(a, c), cmp.Compare(a.ID, c.ID))
							if desc {
								r = -r
							}
							return r
						})
						for _, e := range sorted {
							if e.Enabled || !enabledOnly {
								want = append(want, e.ID)
							}
						}
						q := lore.EntryQuery{Server: b.server, Lineage: l, Order: order, Limit: 37, Count: true, EnabledOnly: enabledOnly}
						if l.IsServerwide() {
							q.Collection = col.Name
						}
						var got []int64
						for pages := 0; ; pages++ {
							require.Less(t, pages, 10)
							page, err := b.store.ListEntries(b.ctx, q)
							require.NoError(t, err)
							require.Equal(t, len(want), page.Total)
							require.LessOrEqual(t, len(page.Entries), 37)
							for _, e := range page.Entries {
								got = append(got, e.ID)
							}
							if !page.HasMore {
								break
							}
							q.After = &page.Positions[len(page.Positions)-1]
						}
						require.Equal(t, want, got)
					})
				}
			}
		}
	}
}

// TestListEntriesSearch: the search matches title, keys, secondary keys
// and content case-insensitively, treats LIKE wildcards and backslashes as
// text, and is bounded; the page stays correct when entries change between
// pages.
func TestListEntriesSearch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	mk := func(title, content string, keys, second []string) lore.Entry {
		e := entry(b.server, 2, "", content)
		e.Title, e.Keys, e.SecondaryKeys = title, keys, second
		return e
	}
	stored := b.insert(t,
		mk("Dragon", "Wyrms hoard gold.", []string{"wyrm"}, nil),
		mk("Inn", "The tavern of 50% discounts.", []string{"inn"}, nil),
		mk("Under_score", "plain text", []string{"u"}, nil),
		mk("Backslash", `a\b path`, []string{"bs"}, nil),
		mk("Keyed", "nothing here", []string{"Serpent"}, []string{"MOUNTAIN pass"}),
		mk("Other", "nothing", []string{"k"}, nil),
	)
	id := func(i int) int64 { return stored[i].ID }
	cases := []struct {
		search string
		want   []int64
	}{
		{"dragon", []int64{id(0)}},                              // title, case-insensitive
		{"HOARD", []int64{id(0)}},                               // content
		{"serp", []int64{id(4)}},                                // key
		{"mountain PASS", []int64{id(4)}},                       // secondary key, with a space
		{"50%", []int64{id(1)}},                                 // % is literal
		{"%", []int64{id(1)}},                                   // not "everything"
		{"_", []int64{id(2)}},                                   // _ is literal
		{`a\b`, []int64{id(3)}},                                 // backslash is literal
		{"no such text", nil},                                   // nothing
		{"", []int64{id(0), id(1), id(2), id(3), id(4), id(5)}}, // no filter
	}
	for _, tc := range cases {
		t.Run(tc.search, func(t *testing.T) {
			page, err := b.store.ListEntries(b.ctx, lore.EntryQuery{Server: b.server, Lineage: 2, Search: tc.search,
				Order: lore.EntryOrder{Field: lore.OrderInsertionOrder}, Limit: 50, Count: true})
			require.NoError(t, err)
			var got []int64
			for _, e := range page.Entries {
				got = append(got, e.ID)
			}
			slices.Sort(got)
			require.Equal(t, tc.want, got)
			require.Equal(t, len(tc.want), page.Total)
		})
	}
	_, err := b.store.ListEntries(b.ctx, lore.EntryQuery{Server: b.server, Lineage: 2, Search: strings.Repeat("x", lore.MaxEntrySearchLen+1),
		Order: lore.EntryOrder{Field: lore.OrderTitle}, Limit: 5})
	requireInvalidField(t, err, "search")
	_, err = b.store.ListEntries(b.ctx, lore.EntryQuery{Server: b.server, Lineage: 2, Order: lore.EntryOrder{Field: "content; DROP"}, Limit: 5})
	requireInvalidField(t, err, "orderBy")
	_, err = b.store.ListEntries(b.ctx, lore.EntryQuery{Server: b.server, Lineage: lore.Serverwide, Order: lore.EntryOrder{Field: lore.OrderTitle}, Limit: 5})
	requireInvalidField(t, err, "collection")

	// Keyset paging survives changes between pages: after the first page
	// (by title: Backslash, Dragon), an entry sorting before the cursor is
	// added and one after it deleted; the next page continues after
	// "Dragon" with neither a repeat nor a gap.
	q := lore.EntryQuery{Server: b.server, Lineage: 2, Order: lore.EntryOrder{Field: lore.OrderTitle}, Limit: 2}
	page, err := b.store.ListEntries(b.ctx, q)
	require.NoError(t, err)
	require.Equal(t, []int64{id(3), id(0)}, []int64{page.Entries[0].ID, page.Entries[1].ID})
	b.insert(t, mk("Aardvark", "new", []string{"aa"}, nil))
	require.NoError(t, b.store.DeleteEntry(b.ctx, b.server, 2, id(1)))
	q.After, q.Limit = &page.Positions[1], 10
	page, err = b.store.ListEntries(b.ctx, q)
	require.NoError(t, err)
	var titles []string
	for _, e := range page.Entries {
		titles = append(titles, e.Title)
	}
	require.Equal(t, []string{"Keyed", "Other", "Under_score"}, titles)
	require.False(t, page.HasMore)
}

// TestListServers pages servers by name then id, restricted to ids or all.
func TestListServers(t *testing.T) {
	t.Parallel()
	b := setup(t) // "Test Guild"
	ids := []string{b.server}
	for _, name := range []string{"Alpha", "beta", "Alpha"} {
		id := snowflake(t)
		_, err := b.store.UpsertServer(b.ctx, id, name)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	var names []string
	q := lore.ServerQuery{IDs: append(ids[1:], "not-a-snowflake", snowflake(t)), Limit: 2}
	for {
		page, err := b.store.ListServers(b.ctx, q)
		require.NoError(t, err)
		require.Equal(t, 3, page.Total, "unknown and malformed ids are not counted")
		for _, s := range page.Servers {
			names = append(names, s.Name)
		}
		if !page.HasMore {
			break
		}
		last := page.Servers[len(page.Servers)-1]
		q.AfterName, q.AfterID = last.Name, last.ID
	}
	require.Len(t, names, 3)
	require.Equal(t, "beta", names[2])
	page, err := b.store.ListServers(b.ctx, lore.ServerQuery{All: true, Limit: 100})
	require.NoError(t, err)
	require.GreaterOrEqual(t, page.Total, 4)
	page, err = b.store.ListServers(b.ctx, lore.ServerQuery{Limit: 10})
	require.NoError(t, err)
	require.Empty(t, page.Servers, "no ids, not all: nothing")
}
